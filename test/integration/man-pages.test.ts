/**
 * The Debian package's man pages (scripts/package-deb.mjs) come from the CLI's own --help through
 * scripts/lib/man.mjs. Oracle: man-db and groff render the page without a warning (as lintian's
 * groff-message check runs them), and the rendered text carries the help's flags and subcommands.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO,  scratchDir, tsadmSync } from '../helpers/built-cli.js';
import { describeWithOracles, oracles } from '../helpers/oracle.js';


/** roff for `words` from scripts/lib/man.mjs, run in a plain node (the script is not TypeScript). */
function roffOf(words: string[], help: string, seeAlso: string[], page: { summary?: string; synopsis?: string } = {}): string {
  const lib = pathToFileURL(path.join(REPO, 'scripts', 'lib', 'man.mjs')).href;
  const code = `import(${JSON.stringify(lib)}).then((m) => process.stdout.write(m.helpToMan(JSON.parse(process.argv[1]))))`;
  const r = spawnSync(process.execPath, ['-e', code, JSON.stringify({ words, help, version: 'v0.0.0', date: '2026-11-27', seeAlso, ...page })], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout;
}

describeWithOracles([oracles.built, oracles.man])('man pages from --help', () => {
  test.each([[['init']], [['certs']], [[]]])('tsadm %p renders without groff warnings and lists its flags', (args) => {
    const help = tsadmSync([...args, '--help']);
    expect(help.code).toBe(0);
    const words = ['tsadm', ...args];
    const roff = roffOf(words, help.stdout, ['tsadm']);
    const tmp = scratchDir('tsadm-man-');
    try {
      const file = path.join(tmp.dir, `${words.join('-')}.8`);
      writeFileSync(file, roff);
      const env = { ...process.env, LC_ALL: 'C.UTF-8', MANWIDTH: '80', MANROFFSEQ: '' };
      const warn = spawnSync('man', ['--warnings', '-E', 'UTF-8', '-l', '-Tutf8', '-Z', file], { encoding: 'utf8', env });
      expect(warn.status).toBe(0);
      expect(warn.stderr).toBe('');
      const text = spawnSync('man', ['-l', file], { encoding: 'utf8', env: { ...env, MANPAGER: 'cat' } }).stdout.replace(/\s+/g, ' '); // man-db leaves out bold overstrikes when stdout is a pipe
      expect(text).toContain(`${words.join('-').toUpperCase()}(8)`);
      // Every long flag and every subcommand the help names appears in the page.
      const flags = [...new Set(help.stdout.match(/--[a-z][a-z0-9-]+/g) ?? [])];
      expect(flags.length).toBeGreaterThan(3);
      for (const f of flags) expect(text).toContain(f);
      const commands = help.stdout.split(/\n(?=\S)/).find((block) => block.startsWith('Commands:')) ?? '';
      const named = [...commands.matchAll(/^ {2}(tsadm [a-z-]+(?: [a-z-]+)*)/gm)].map((m) => m[1]);
      expect(named.length > 0).toBe(args[0] !== 'init' || named.includes('tsadm init phase'));
      for (const c of named) expect(text).toContain(c);
    } finally {
      tmp.cleanup();
    }
  });

  test('NAME and SYNOPSIS read as a man page: tsadm(8) says what tsadm is, a command page takes its line and usage from its parent\'s Commands', () => {
    const lib = pathToFileURL(path.join(REPO, 'scripts', 'lib', 'man.mjs')).href;
    const entries = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(lib)}).then((m) => process.stdout.write(JSON.stringify(m.commandEntries(process.argv[1]))))`, tsadmSync(['--help']).stdout], { encoding: 'utf8' });
    const join = (JSON.parse(entries.stdout) as { words: string[]; usage: string; summary: string }[]).find((e) => e.words.join(' ') === 'join')!;
    expect(join.usage).toBe('tsadm join [api-server-endpoint]');
    const pages: [string[], { summary: string; synopsis: string }, RegExp, RegExp][] = [
      [[], { summary: 'bootstrap a Kubernetes cluster, kubeadm-compatible', synopsis: 'tsadm <command> [flags]' }, /NAME\s+tsadm - bootstrap a Kubernetes cluster, kubeadm-compatible\s+SYNOPSIS\s+tsadm <command> \[flags\]\s+DESCRIPTION/, /NAME\s+tsadm - tsadm/],
      [['join'], { summary: join.summary, synopsis: `${join.usage} [flags]` }, /NAME\s+tsadm-join - run this on any machine you wish to join an existing cluster\s+SYNOPSIS\s+tsadm join \[api-server-endpoint\] \[flags\]\s+DESCRIPTION/, /^$/],
    ];
    const tmp = scratchDir('tsadm-man-');
    try {
      for (const [args, page, want, never] of pages) {
        const words = ['tsadm', ...args];
        const file = path.join(tmp.dir, `${words.join('-')}.8`);
        writeFileSync(file, roffOf(words, tsadmSync([...args, '--help']).stdout, [], page));
        const text = spawnSync('man', ['-l', file], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8', MANWIDTH: '200', MANPAGER: 'cat', MANROFFSEQ: '' } }).stdout.replace(/[‐−]/g, '-');
        expect(text).toMatch(want);
        if (args.length === 0) expect(text).not.toMatch(never);
      }
      // A help without a usage line starts with its description: one paragraph, not a NAME of its first line.
      const renew = path.join(tmp.dir, 'tsadm-certs-renew.8');
      writeFileSync(renew, roffOf(['tsadm', 'certs', 'renew'], tsadmSync(['certs', 'renew', '--help']).stdout, [], { summary: 'Renew certificates for a Kubernetes cluster', synopsis: 'tsadm certs renew [certificate] [flags]' }));
      const renewText = spawnSync('man', ['-l', renew], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8', MANWIDTH: '200', MANPAGER: 'cat', MANROFFSEQ: '' } }).stdout.replace(/[‐−]/g, '-').replace(/\s+/g, ' ');
      expect(renewText).toContain('NAME tsadm-certs-renew - renew certificates for a Kubernetes cluster SYNOPSIS tsadm certs renew [certificate] [flags] DESCRIPTION Renew the certificate(s), regardless of their expiration date. Subject, SANs and key usages (for kubeconfigs');
    } finally {
      tmp.cleanup();
    }
  });
});
