import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { flatten } from '../../../src/engine/phase.js';
import { initPhases } from '../../../src/workflows/init.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../src/versions/resolve.js';
import { tempRoot } from '../../helpers/temp-root.js';
import { runCli } from '../../helpers/cli.js';
import { TOP_LEVEL_COMMANDS, commandsToLoad, withHelpForNoArguments, withUnknownWord, withVersionFlag } from '../../../src/cli/app.js';
import { bundleMetafile, staticClosureOf } from '../../helpers/bundle-graph.js';

const BASE = ['--kubernetes-version', 'v1.20.2', '--apiserver-advertise-address', '10.0.0.5', '--node-name', 'cp1'];

/** Every file under dir with its mode and content hash: a snapshot to compare runs with. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = `${(st.mode & 0o777).toString(8)} ${readFileSync(p).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

describe('tsadm CLI', () => {
  test('version in every output format', async () => {
    const json = await runCli(['version', '-o', 'json']);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion).toMatch(/^v\d+\.\d+\.\d+/);
    expect((await runCli(['version', '-o', 'short'])).stdout).toMatch(/^v\d+\.\d+\.\d+(-[\w.]+)?\n$/);
    expect((await runCli(['version', '-o', 'yaml'])).stdout).toContain('clientVersion:');
    expect((await runCli(['version'])).stdout).toMatch(/^tsadm version: &version\.Info\{/);
    const bad = await runCli(['version', '-o', 'xml']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('invalid output format: xml');
  });

  test('--version alone prints what version -o short prints; with anything else it is not a command', async () => {
    const flag = await runCli(['--version']);
    expect(flag).toMatchObject({ code: 0, stderr: '' });
    expect(flag.stdout).toBe((await runCli(['version', '-o', 'short'])).stdout);
    expect(withVersionFlag(['--version'])).toEqual(['version', '-o', 'short']);
    expect(withVersionFlag(['init', '--version'])).toEqual(['init', '--version']);
    expect((await runCli(['--version', 'init'])).code).toBe(3);
  });

  test('usage errors exit 3 with one clear line', async () => {
    const unknownFlag = await runCli(['init', 'phase', 'certs', 'all', '--no-such-flag']);
    expect(unknownFlag.code).toBe(3);
    // Named as typed, pointing at the command's own help (issue 40; yargs said "Unknown argument: such-flag").
    expect(unknownFlag.stderr).toBe("error: unknown flag --no-such-flag; see 'tsadm init phase certs all --help'\n");
    const unknownCommand = await runCli(['frobnicate']);
    expect(unknownCommand.code).toBe(3);
    // A flag that only another phase reads is not accepted by this phase.
    const foreign = await runCli(['init', 'phase', 'certs', 'ca', '--upload-certs']);
    expect(foreign.code).toBe(3);
  });

  test('every visible phase path is a command (init phase … and phase …)', async () => {
    for (const f of flatten(initPhases(profileFor(DEFAULT_KUBERNETES_VERSION)))) {
      if (f.phase.hidden) continue;
      const words = f.path.split('/');
      for (const prefix of [['init', 'phase'], ['phase']]) {
        const r = await runCli([...prefix, ...words, '--help']);
        expect({ path: f.path, code: r.code }).toEqual({ path: f.path, code: 0 });
        expect(r.stdout).toContain((f.phase.description ?? f.phase.summary).slice(0, 20));
      }
    }
  });

  test('init --help shows the phase tree', async () => {
    const r = await runCli(['init', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('The "init" command executes the following phases:');
    expect(r.stdout).toMatch(/certs\s+.*\n\s+\/ca\s+/);
  });

  // RSA keys from OpenSSL's generator: 11 of them take seconds on a busy 2-core machine.
  test('certs all on --rootfs writes 22 files; a re-run changes no byte; `phase certs all` is the same command', async () => {
    const root = tempRoot();
    try {
      const first = await runCli(['init', 'phase', 'certs', 'all', ...BASE, '--rootfs', root.dir]);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('[certs] Generating "ca" certificate and key');
      const snap = snapshot(root.dir);
      expect(Object.keys(snap).length).toBe(22);
      expect(snap['etc/kubernetes/pki/ca.key']?.startsWith('600 ')).toBe(true);
      expect(snap['etc/kubernetes/pki/ca.crt']?.startsWith('644 ')).toBe(true);
      const again = await runCli(['phase', 'certs', 'all', ...BASE, '--rootfs', root.dir]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('Using existing ca certificate authority');
      expect(snapshot(root.dir)).toEqual(snap);
    } finally {
      root.cleanup();
    }
  }, 60_000);

  test('--dry-run writes nothing and lists what it would write', async () => {
    const root = tempRoot();
    try {
      const r = await runCli(['init', 'phase', 'certs', 'all', ...BASE, '--rootfs', root.dir, '--dry-run']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[dryrun] The following files would be written:');
      expect(r.stdout).toMatch(/\/etc\/kubernetes\/pki\/ca\.key\s+0600/);
      expect(snapshot(root.dir)).toEqual({});
    } finally {
      root.cleanup();
    }
  }, 60_000);

  test('--skip-phases rejects unknown phases and skips known ones', async () => {
    const root = tempRoot();
    try {
      const bad = await runCli(['init', ...BASE, '--rootfs', root.dir, '--skip-phases', 'certs/nope', '--dry-run']);
      expect(bad.code).toBe(3);
      expect(bad.stderr).toContain('--skip-phases entry "certs/nope" is not a phase');
    } finally {
      root.cleanup();
    }
  });

  test('invalid configuration exits 3 naming the field; nothing is written', async () => {
    const root = tempRoot();
    try {
      const r = await runCli(['init', 'phase', 'certs', 'all', ...BASE, '--service-cidr', '10.96.0/12', '--rootfs', root.dir]);
      expect(r.code).toBe(3);
      expect(r.stderr.split('\n')[0]).toMatch(/serviceSubnet/);
      expect(snapshot(root.dir)).toEqual({});
    } finally {
      root.cleanup();
    }
  });

  test('-o json streams one JSON event per line ending with a result', async () => {
    const root = tempRoot();
    try {
      const r = await runCli(['init', 'phase', 'certs', 'ca', '--kubernetes-version', 'v1.20.2', '--rootfs', root.dir, '-o', 'json']);
      expect(r.code).toBe(0);
      const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; path?: string });
      expect(events[0]?.type).toBe('plan');
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['phase-start', 'phase-finish', 'file', 'log']));
      expect(events.filter((e) => e.type === 'file').map((e) => e.path).sort()).toEqual(['/etc/kubernetes/pki/ca.crt', '/etc/kubernetes/pki/ca.key']);
      expect(events[events.length - 1]).toMatchObject({ type: 'result', ok: true });
    } finally {
      root.cleanup();
    }
  });

  test('config print init-defaults is accepted back by init', async () => {
    const printed = await runCli(['config', 'print', 'init-defaults', '--kubernetes-version', 'v1.20.2']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('apiVersion: kubeadm.k8s.io/v1beta2');
    const root = tempRoot({ '/cfg.yaml': printed.stdout });
    try {
      const r = await runCli(['init', 'phase', 'certs', 'ca', '--config', root.at('/cfg.yaml'), '--rootfs', root.dir, '--dry-run']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    } finally {
      root.cleanup();
    }
  });
});

test('tsadm with no arguments prints the help and exits 0, as kubeadm', async () => {
  expect(withHelpForNoArguments([])).toEqual(['--help']);
  expect(withHelpForNoArguments(['init'])).toEqual(['init']);
  const r = await runCli([]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(r.stdout).toBe((await runCli(['--help'])).stdout);
  expect(r.stdout).toContain('tsadm init phase certs all');
});

describe('a mistyped command or phase', () => {
  test('names the word and the suggestion (yargs alone says only "Did you mean …?")', () => {
    expect(withUnknownWord('Did you mean certs?', ['init', 'phase', 'certz', 'all', '--v', '1'])).toBe('Unknown argument: certz (did you mean certs?)');
    expect(withUnknownWord('Did you mean host?', ['init', 'phase', 'nope'])).toBe('Unknown argument: nope (did you mean host?)');
    expect(withUnknownWord('Unknown argument: x', ['x'])).toBe('Unknown argument: x');
  });

  test('through the CLI: exit 3, one error line naming both', async () => {
    const r = await runCli(['init', 'phase', 'certz']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('error: Unknown argument: certz (did you mean certs?)');
  });
});

describe('a command line loads only the command it names', () => {
  const ALL = Object.keys(TOP_LEVEL_COMMANDS);

  test('the first word, when it names a command; everything otherwise', () => {
    expect(commandsToLoad(['join', '--help'])).toEqual(['join']);
    expect(commandsToLoad(['token', 'list'])).toEqual(['token']);
    expect(commandsToLoad(['phase', 'certs', 'all'])).toEqual(['phase']);
    // Top-level help, a flag first (its value could be a command's name), an alias, a typo.
    for (const argv of [['--help'], ['-v', '5', 'join'], ['--rootfs', 'join', 'init'], ['certificates', 'list'], ['jion'], [], ['completion', 'bash']]) {
      expect(commandsToLoad(argv)).toEqual(ALL);
    }
  });

  test('the table holds every top-level command the help lists (completion is always there)', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}tsadm (\S+)/gm)].map((m) => m[1]);
    expect(listed.length).toBeGreaterThan(10);
    expect(new Set(listed)).toEqual(new Set([...ALL, 'completion']));
  });

  test('a command loaded alone runs as with every command loaded', async () => {
    const alone = await runCli(['token', 'list', '--help']);
    const all = await runCli(['-v', '0', 'token', 'list', '--help']);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain('tsadm token list');
    expect(alone.stdout).toBe(all.stdout);
  });

  test('in the bundle, the parser loads no command; join loads none of upgrade, certs, etcd, check, apply or config', async () => {
    const metafile = await bundleMetafile();
    const cli = staticClosureOf(metafile, 'src/cli/app.ts');
    expect(cli).toEqual(expect.arrayContaining(['src/cli/app.ts', 'src/cli/yargs-kit.ts']));
    for (const command of ['src/workflows/', 'src/commands/', 'src/phases/']) expect(cli.filter((i) => i.startsWith(command))).toEqual([]);
    const join = staticClosureOf(metafile, 'src/workflows/join.ts');
    expect(join).toEqual(expect.arrayContaining(['src/workflows/join.ts', 'src/phases/join/preflight.ts']));
    for (const other of ['src/commands/upgrade.ts', 'src/phases/upgrade/', 'src/commands/certs.ts', 'src/certs-lifecycle/rotate-ca/', 'src/commands/etcd.ts',
      'src/etcd-snapshot/', 'src/commands/check.ts', 'src/commands/apply.ts', 'src/plan/apply.ts', 'src/commands/config.ts']) {
      expect(join.filter((i) => i.startsWith(other))).toEqual([]);
    }
  }, 60_000);
});
