import { jest } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { flatten, type Phase } from '../../../src/engine/phase.js';
import { initPhases } from '../../../src/workflows/init.js';
import { joinPhases } from '../../../src/workflows/join.js';
import { resetPhases } from '../../../src/workflows/reset.js';
import { upgradeApplyPhases, upgradeNodePhases } from '../../../src/workflows/upgrade.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../src/versions/resolve.js';
import { rootOf } from '../../../src/cli/root-flags.js';
import { TsadmError } from '../../../src/errors.js';
import { tempRoot } from '../../helpers/temp-root.js';
import { runCli } from '../../helpers/cli.js';

// A few hundred in-process command lines, each parsing the whole CLI.
jest.setTimeout(120_000);

/**
 * Every kubeadm command that is not a phase, as kubeadm's reference for v1.34 lists them
 * (kubernetes.io/docs/reference/setup-tools/kubeadm/generated/: each page shows --rootfs under
 * "Options inherited from parent commands"; cmd/kubeadm/app/cmd/cmd.go declares it on the root's
 * PersistentFlags), with the arguments each needs to get past its own argument checks.
 */
const KUBEADM_COMMANDS: readonly (readonly string[])[] = [
  ['certs', 'certificate-key'], ['certs', 'check-expiration'], ['certs', 'generate-csr'],
  ...['all', 'admin.conf', 'apiserver', 'apiserver-etcd-client', 'apiserver-kubelet-client', 'controller-manager.conf', 'etcd-healthcheck-client', 'etcd-peer', 'etcd-server', 'front-proxy-client', 'scheduler.conf', 'super-admin.conf'].map((c) => ['certs', 'renew', c]),
  ['completion', 'bash'],
  ['config', 'images', 'list'], ['config', 'images', 'pull'], ['config', 'migrate', '--old-config', 'old.yaml'],
  ['config', 'print', 'init-defaults'], ['config', 'print', 'join-defaults'], ['config', 'print', 'reset-defaults'], ['config', 'print', 'upgrade-defaults'],
  ['config', 'validate', '--config', 'c.yaml'],
  ['init'], ['join', '10.0.0.1:6443', '--token', 'abcdef.0123456789abcdef', '--discovery-token-unsafe-skip-ca-verification'],
  ['kubeconfig', 'user', '--client-name', 'jane'], ['reset', '--force'],
  ['token', 'create'], ['token', 'delete', 'abcdef'], ['token', 'generate'], ['token', 'list'],
  ['upgrade', 'apply', 'v1.37.0', '--yes'], ['upgrade', 'diff'], ['upgrade', 'node'], ['upgrade', 'plan'],
  ['version'],
];

/** Every visible phase command of tsadm's workflows (each must take the root flags as well). */
function phaseCommands(): string[][] {
  const profile = profileFor(DEFAULT_KUBERNETES_VERSION);
  const of = <C>(prefix: string[], tree: readonly Phase<C>[]): string[][] =>
    flatten(tree).filter((f) => !f.phase.hidden).map((f) => [...prefix, ...f.path.split('/')]);
  return [
    ...of(['init', 'phase'], initPhases(profile)),
    ...of(['join', 'phase'], joinPhases(profile)),
    ...of(['reset', 'phase'], resetPhases()),
    ...of(['upgrade', 'apply', 'phase'], upgradeApplyPhases()),
    ...of(['upgrade', 'node', 'phase'], upgradeNodePhases(profile)),
  ];
}

describe("kubeadm's root flags (--rootfs, -v) on every command", () => {
  // A --rootfs that is not a directory fails every kubeadm command in the root's chroot, before
  // the command does anything; so it does here. The error (not "Unknown argument") shows the flag
  // was taken and checked, and nothing touches this machine.
  test.each([
    ['--rootfs', '<missing>', '-v', '5'],
    ['--rootfs=<missing>', '--v=5', '--vmodule', 'proxy*=3'],
  ])('each command takes %s %s %s %s and checks the root first', async (...flags) => {
    const parent = tempRoot();
    const missing = parent.at('/no-such-root');
    const args = flags.map((f) => f.replace('<missing>', missing));
    const commands = [...KUBEADM_COMMANDS, ...phaseCommands()];
    expect(commands.length).toBeGreaterThan(60);
    const results = [];
    try {
      for (const command of commands) {
        const r = await runCli([...command, ...args]);
        results.push({ command: command.join(' '), code: r.code, stderr: r.stderr.split('\n')[0] });
      }
    } finally {
      parent.cleanup();
    }
    const expected = commands.map((c) => ({ command: c.join(' '), code: 3, stderr: `error: --rootfs ${missing}: not a directory` }));
    expect(results).toEqual(expected);
  });

  describe('the commands that touch no host file run with them as without them', () => {
    let root: ReturnType<typeof tempRoot>;
    beforeAll(() => {
      root = tempRoot();
    });
    afterAll(() => root.cleanup());

    test.each([
      [['version', '-o', 'short']],
      [['version', '-o', 'yaml']],
      [['completion', 'bash']],
      [['config', 'print', 'init-defaults']],
      [['config', 'print', 'join-defaults']],
      [['config', 'print', 'reset-defaults']],
      [['config', 'print', 'upgrade-defaults']],
      [['config', 'images', 'list', '--kubernetes-version', 'v1.36.2']],
    ])('%j', async (command) => {
      const plain = await runCli(command);
      expect(plain.code).toBe(0);
      for (const flags of [['--rootfs', root.dir, '-v', '5'], ['--rootfs', root.dir, '--v', '2']]) {
        expect(await runCli([...command, ...flags])).toEqual(plain);
      }
    });

    test.each([
      [['certs', 'certificate-key'], /^[0-9a-f]{64}\n$/],
      [['token', 'generate'], /^[a-z0-9]{6}\.[a-z0-9]{16}\n$/],
      // kubeadm's token parent declares --kubeconfig and --dry-run for every token subcommand; generate reads neither.
      [['token', 'generate', '--kubeconfig', '/nonexistent/admin.conf', '--dry-run'], /^[a-z0-9]{6}\.[a-z0-9]{16}\n$/],
    ])('%j', async (command, output) => {
      const r = await runCli([...command, '--rootfs', root.dir, '-v', '5']);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(output);
    });

    test('config validate and migrate read and write their files on the real filesystem under --rootfs, as --config everywhere', async () => {
      const files = tempRoot({
        '/old.yaml': 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: v1.36.2\n',
      });
      try {
        const validate = await runCli(['config', 'validate', '--config', files.at('/old.yaml'), '--rootfs', root.dir, '-v', '5', '--allow-deprecated-api']);
        expect([validate.code, validate.stdout]).toEqual([0, 'ok\n']);
        const migrate = await runCli(['config', 'migrate', '--old-config', files.at('/old.yaml'), '--new-config', files.at('/new.yaml'), '--rootfs', root.dir, '-v', '5']);
        expect(migrate.code).toBe(0);
        expect(readFileSync(files.at('/new.yaml'), 'utf8')).toContain('kind: ClusterConfiguration');
        expect(existsSync(path.join(root.dir, files.at('/new.yaml')))).toBe(false);
      } finally {
        files.cleanup();
      }
    });

    test('-v 2 sets the verbosity: a failure prints its stack, as on every other command', async () => {
      const quiet = await runCli(['config', 'validate', '--config', path.join(root.dir, 'missing.yaml'), '--rootfs', root.dir]);
      const loud = await runCli(['config', 'validate', '--config', path.join(root.dir, 'missing.yaml'), '--rootfs', root.dir, '-v', '2']);
      // The same failure (the missing file, not a refused flag), with the stack added at -v 2.
      expect(quiet.stderr).toContain('missing.yaml');
      expect(quiet.stderr).not.toContain('Unknown argument');
      expect([loud.code, loud.stderr.split('\n')[0]]).toEqual([quiet.code, quiet.stderr.split('\n')[0]]);
      expect(quiet.stderr).not.toMatch(/\n\s+at /);
      expect(loud.stderr).toMatch(/\n\s+at /);
      const bad = await runCli(['version', '-v', 'loud']);
      expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([3, 'error: invalid argument "loud" for "-v, --v" flag: the log level must be a non-negative integer']);
    });
  });

  describe('config images pull finds and reaches the CRI socket under --rootfs', () => {
    const listen = (socket: string): Promise<net.Server> => {
      mkdirSync(path.dirname(socket), { recursive: true });
      const server = net.createServer((c) => c.destroy());
      return new Promise((resolve) => server.listen(socket, () => resolve(server)));
    };

    test("two runtimes' sockets in the root: kubeadm's detection asks for --cri-socket (the machine's own sockets are not looked at)", async () => {
      const root = tempRoot();
      const servers = [await listen(root.at('/run/containerd/containerd.sock')), await listen(root.at('/var/run/crio/crio.sock'))];
      try {
        const r = await runCli(['config', 'images', 'pull', '--kubernetes-version', 'v1.36.2', '--rootfs', root.dir, '-v', '5']);
        expect([r.code, r.stderr.split('\n')[0]]).toEqual([3, 'error: found multiple CRI sockets, please use --cri-socket to select one: unix:///run/containerd/containerd.sock, unix:///var/run/crio/crio.sock']);
      } finally {
        for (const s of servers) s.close();
        root.cleanup();
      }
    });

    test('the socket reached is the one under the root', async () => {
      const root = tempRoot();
      try {
        const r = await runCli(['config', 'images', 'pull', '--kubernetes-version', 'v1.36.2', '--cri-socket', 'unix:///run/tsadm-test/cri.sock', '--rootfs', root.dir]);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain(`error: container runtime is not running: cannot connect to the CRI socket ${root.at('/run/tsadm-test/cri.sock')}: `);
      } finally {
        root.cleanup();
      }
    });
  });

  test('rootOf: "/" unset, the absolute directory given (the last of several), a usage error otherwise', async () => {
    const root = tempRoot();
    try {
      writeFileSync(root.at('/file'), '');
      await expect(rootOf({})).resolves.toBe('/');
      await expect(rootOf({ rootfs: root.dir })).resolves.toBe(root.dir);
      await expect(rootOf({ rootfs: [root.at('/nope'), root.dir] })).resolves.toBe(root.dir);
      await expect(rootOf({ rootfs: path.relative(process.cwd(), root.dir) })).resolves.toBe(root.dir);
      const err = await rootOf({ rootfs: root.at('/file') }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TsadmError);
      expect([(err as TsadmError).code, (err as TsadmError).message]).toEqual(['E_USAGE', `--rootfs ${root.at('/file')}: not a directory`]);
    } finally {
      root.cleanup();
    }
  });
});
