/**
 * The single executable (npm run build:sea → dist/tsadm): built from the sources, copied alone
 * into an empty directory and run there with an environment whose PATH has no Node.js, it runs
 * `init phase certs all` (certificates openssl verifies, a clean JSON event stream), prints its
 * version, help and shell completion. NODE_OPTIONS does not reach the Node.js inside it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeWithOracles, fileOracle, oracles } from '../helpers/oracle.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The Node.js the executable embeds (scripts/lib/node-binary.mjs; its checks: sea-node-binary.test.ts).
const PINNED_NODE = `node-${process.platform}-${process.arch}`;
const pinnedNode = fileOracle(`npm's ${PINNED_NODE} (the pinned Node.js of the single executable)`, () => path.join(REPO, 'node_modules', PINNED_NODE, 'bin', 'node'), 'npm ci');
const describeSea = describeWithOracles([oracles.postject, pinnedNode]);

describeSea('dist/tsadm, the single executable', () => {
  let dir: string;
  let exe: string;
  const NO_NODE_PATH = '/usr/sbin:/sbin';
  const run = (args: string[], extraEnv: Record<string, string> = {}) =>
    spawnSync(exe, args, { cwd: dir, env: { PATH: NO_NODE_PATH, HOME: dir, ...extraEnv }, encoding: 'utf8', timeout: 60_000 });

  beforeAll(() => {
    execFileSync(process.execPath, [path.join(REPO, 'scripts/build-sea.mjs')], { cwd: REPO, stdio: 'pipe' });
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-sea-'));
    exe = path.join(dir, 'tsadm');
    copyFileSync(path.join(REPO, 'dist/tsadm'), exe);
    execFileSync('chmod', ['755', exe]);
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the PATH it runs with has no node', () => {
    const which = spawnSync('/bin/sh', ['-c', 'command -v node'], { env: { PATH: NO_NODE_PATH } });
    expect(which.status).not.toBe(0);
    expect(readdirSync(dir)).toEqual(['tsadm']);
  });

  test('init phase certs all --rootfs from an empty directory', () => {
    const root = path.join(dir, 'root');
    execFileSync('mkdir', [root]);
    const r = run(['init', 'phase', 'certs', 'all', '--rootfs', root, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; ok?: boolean });
    expect(events.filter((e) => e.type === 'file')).toHaveLength(22);
    expect(events.at(-1)).toMatchObject({ type: 'result', ok: true });
    const pki = path.join(root, 'etc/kubernetes/pki');
    expect(existsSync(path.join(pki, 'sa.pub'))).toBe(true);
    expect(execFileSync('openssl', ['verify', '-CAfile', `${pki}/ca.crt`, `${pki}/apiserver.crt`]).toString()).toContain('OK');
  }, 60_000);

  test('version, help and completion', () => {
    expect(run(['version', '-o', 'short']).stdout.trim()).toMatch(/^v\d+\.\d+\.\d+/);
    const help = run(['init', 'phase', 'certs', 'apiserver', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--apiserver-cert-extra-sans');
    const completion = run(['completion', 'bash']);
    expect(completion.status).toBe(0);
    expect(completion.stdout).toContain('complete -o bashdefault -o default -F _tsadm_completions tsadm');
    // The script asks the executable itself for the words, so completion works without node on PATH.
    expect(run(['--get-yargs-completions', 'tsadm', 'in']).stdout).toContain('init');
  });

  // As root, `NODE_OPTIONS=--require x.js tsadm …` would run x.js with tsadm's rights; the build
  // sets the SEA config's execArgvExtension to 'none'. Each probe is first shown to work on plain
  // Node.js with the same NODE_OPTIONS.
  test('NODE_OPTIONS reaches no Node.js inside: a --require\'d script does not run, --inspect opens no debugger', () => {
    const probeDir = mkdtempSync(path.join(tmpdir(), 'tsadm-sea-probe-'));
    try {
      const marker = path.join(probeDir, 'probe-ran');
      const probe = path.join(probeDir, 'probe.cjs');
      writeFileSync(probe, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid));`);
      const requireProbe = `--require ${probe}`;
      const plain = spawnSync(process.execPath, ['-e', '0'], { env: { PATH: NO_NODE_PATH, NODE_OPTIONS: requireProbe }, encoding: 'utf8' });
      expect(plain.status).toBe(0);
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);

      const r = run(['version', '-o', 'short'], { NODE_OPTIONS: requireProbe });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toMatch(/^v\d+\.\d+\.\d+/);
      expect(existsSync(marker)).toBe(false);

      const inspect = '--inspect=127.0.0.1:0';
      const plainInspect = spawnSync(process.execPath, ['-e', '0'], { env: { PATH: NO_NODE_PATH, NODE_OPTIONS: inspect }, encoding: 'utf8' });
      expect(plainInspect.stderr).toContain('Debugger listening on ws://127.0.0.1:');
      const ri = run(['version', '-o', 'short'], { NODE_OPTIONS: inspect });
      expect(ri.status).toBe(0);
      expect(ri.stderr).toBe('');
    } finally {
      rmSync(probeDir, { recursive: true, force: true });
    }
  });
});
