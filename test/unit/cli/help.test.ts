/**
 * Help and shell completion: every phase of init, join and reset has a
 * summary, a description and an example, and each shows in its `--help`; every top-level
 * command's help has an example; `tsadm completion bash|zsh` prints the script for the shell named
 * (kubeadm's spelling) and answers completion requests with the real subcommands and phases.
 */
import { flatten, type Phase } from '../../../src/engine/phase.js';
import { initPhases } from '../../../src/workflows/init.js';
import { joinPhases } from '../../../src/workflows/join.js';
import { resetPhases } from '../../../src/workflows/reset.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../src/versions/resolve.js';
import { runCli } from '../../helpers/run-cli.js';
import { cut, phaseHelpTree, wrapWords } from '../../../src/cli/help.js';

function trees(): Array<[string, readonly Phase<never>[]]> {
  return [['init', initPhases(profileFor(DEFAULT_KUBERNETES_VERSION))], ['join', joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION))], ['reset', resetPhases()]];
}

test('every visible phase has a summary, a description and an example', () => {
  const missing: string[] = [];
  for (const [cmd, tree] of trees()) {
    for (const { path, phase } of flatten(tree)) {
      if (phase.hidden) continue;
      for (const field of ['summary', 'description', 'example'] as const) {
        if (!phase[field] || String(phase[field]).trim() === '') missing.push(`${cmd} phase ${path}: ${field}`);
      }
    }
  }
  expect(missing).toEqual([]);
});

test('each phase command shows its description and example in --help', async () => {
  for (const { path, phase } of flatten(initPhases(profileFor(DEFAULT_KUBERNETES_VERSION)))) {
    if (phase.hidden) continue;
    const r = await runCli(['init', 'phase', ...path.split('/'), '--help']);
    expect([path, r.code]).toEqual([path, 0]);
    const firstLine = (phase.description ?? '').split('\n')[0]!.slice(0, 40);
    expect([path, r.stdout.replace(/\s+/g, ' ').includes(firstLine.replace(/\s+/g, ' '))]).toEqual([path, true]);
    expect([path, r.stdout.includes('Examples:')]).toEqual([path, true]);
  }
}, 60_000);

test.each([['init'], ['apply'], ['check'], ['token'], ['config']])('tsadm %s --help has examples or subcommands', async (cmd) => {
  const r = await runCli([cmd, '--help']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/Examples:|Commands:/);
});

test('tsadm completion: a bash script, and completions for commands and phases', async () => {
  const bash = await runCli(['completion', 'bash'], { SHELL: '/bin/zsh' });
  expect(bash.code).toBe(0);
  expect(bash.stdout).toContain('complete -o bashdefault -o default -F _tsadm_completions tsadm');

  const zsh = await runCli(['completion', 'zsh'], { SHELL: '/bin/bash' });
  expect(zsh.stdout).toContain('#compdef tsadm');

  // What the shell script asks: `tsadm --get-yargs-completions <words so far>`.
  const top = await runCli(['--get-yargs-completions', 'tsadm', ''], { SHELL: '/bin/bash' });
  expect(top.stdout.split('\n')).toEqual(expect.arrayContaining(['init', 'apply', 'check', 'completion']));
  const phases = await runCli(['--get-yargs-completions', 'tsadm', 'init', 'phase', ''], { SHELL: '/bin/bash' });
  expect(phases.stdout.split('\n')).toEqual(expect.arrayContaining(['certs', 'kubeconfig', 'control-plane', 'addon']));
  const certs = await runCli(['--get-yargs-completions', 'tsadm', 'init', 'phase', 'certs', ''], { SHELL: '/bin/bash' });
  expect(certs.stdout.split('\n')).toEqual(expect.arrayContaining(['all', 'apiserver', 'etcd-ca', 'sa']));
});

describe('phaseHelpTree at a width (issue 40: no summary wrapped to column 0)', () => {
  const tree = initPhases(profileFor(DEFAULT_KUBERNETES_VERSION));

  test('full: a long summary continues under the summary column, every line within the width', () => {
    const text = phaseHelpTree(tree, { width: 80 });
    const column = (/^(preflight +)Run pre-flight checks$/m.exec(text)?.[1] ?? '').length;
    expect(column).toBeGreaterThan(10);
    const lines = text.split('\n');
    expect(lines.filter((l) => l.length > 79)).toEqual([]);
    // A continuation starts at the summary column; every other line is a row or a heading.
    const continued = lines.filter((l) => /^ +\S/.test(l) && !/^ +\/[a-z0-9-]+ {2,}\S/.test(l));
    expect(continued.length).toBeGreaterThan(0);
    for (const l of continued) expect(l.length - l.trimStart().length).toBe(column);
    // Nothing lost: the words of every summary are there, in order.
    const flat = text.replace(/\s+/g, ' ');
    for (const { phase } of flatten(tree)) if (!phase.hidden && !phase.retired) expect(flat).toContain(phase.summary);
  });

  test('compact: one line per top-level phase, a cut summary ends with "…", the children\'s names packed below', () => {
    const text = phaseHelpTree(tree, { width: 100, compact: true });
    const lines = text.split('\n');
    expect(lines.filter((l) => l.length > 99)).toEqual([]);
    expect(text).toMatch(/^certs +Certificate generation\n {2}\/ca \/apiserver /m);
    expect(text).toMatch(/^kubeconfig +Generate all kubeconfig files necessary to establish the control plane.*…$/m);
    for (const { phase, path } of flatten(tree)) {
      if (phase.hidden || phase.retired) continue;
      expect([path, path.includes('/') ? text.includes(`/${phase.name}`) : new RegExp(`^${phase.name} {2,}`, 'm').test(text)]).toEqual([path, true]);
    }
    expect(lines.length).toBeLessThan(flatten(tree).length);
  });

  test('cut and wrapWords', () => {
    expect(cut('short', 10)).toBe('short');
    expect(cut('Generate all kubeconfig files, necessary', 32)).toBe('Generate all kubeconfig files…');
    expect(wrapWords('a bb ccc dddd', 6)).toEqual(['a bb', 'ccc', 'dddd']);
    expect(wrapWords('', 6)).toEqual(['']);
    expect(wrapWords('averyveryverylongword x', 5)).toEqual(['averyveryverylongword', 'x']);
  });
});
