/**
 * The single executable on the harness (issue 10, "one file to copy"): dist/tsadm, built by
 * `npm run build:sea`, is copied alone into the scratch directory machines see, and run on
 * harness machine p1 with Node.js gone — each command runs in a private mount namespace where
 * /usr/bin/node is covered by /dev/null, so neither PATH nor an absolute path reaches it. There
 * it writes the PKI (verified with openssl), then a full `tsadm init` brings up a healthy control
 * plane, and `tsadm check` passes on the result.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  cacheDir, createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, podPhases, provision, repoRoot,
  requireComponents, waitFor, writeSharedFile, type ExecOptions, type ExecResult, type Machine,
} from './harness.js';

const M: Machine = { name: 'p1', ip: '10.250.0.51' };
const MIN = 60_000;
const PKI = '/etc/kubernetes/pki';

let exe: string;
let configPath: string;

/** Runs the single executable inside p1 with Node.js hidden from it (and checks that it is). */
function sea(args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const script = 'mount --bind /dev/null /usr/bin/node && if command -v node >/dev/null 2>&1; then echo "node is still reachable" >&2; exit 99; fi; exec "$0" "$@"';
  return machineExec(M.name, ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', script, exe, ...args], opts);
}

beforeAll(async () => {
  await provision();
  requireComponents();
  execFileSync(process.execPath, [path.join(repoRoot(), 'scripts/build-sea.mjs')], { cwd: repoRoot(), stdio: 'pipe', timeout: 10 * MIN });
  const dir = path.join(cacheDir(), 'e2e-scratch');
  mkdirSync(dir, { recursive: true });
  exe = path.join(dir, 'tsadm-sea');
  copyFileSync(path.join(repoRoot(), 'dist', 'tsadm'), exe);
  chmodSync(exe, 0o755);
  await destroyMachine(M.name).catch(() => undefined);
  await createMachine(M.name, M.ip);
  // A fixed token, so `tsadm check bootstrap-token` finds the token init made (a run without
  // one makes a new token each time, as kubeadm does).
  const config = (await kubeadmConfig(M.ip, M.name)).replace('kind: InitConfiguration\n', 'kind: InitConfiguration\nbootstrapTokens:\n- token: sea0ab.0123456789abcdef\n  ttl: 2h0m0s\n');
  expect(config).toContain('sea0ab.');
  configPath = writeSharedFile(`tsadm-${M.name}.yaml`, config);
}, 20 * MIN);

afterAll(async () => {
  await destroyMachine(M.name).catch(() => undefined);
}, 5 * MIN);

describe('the single executable on a harness machine without Node.js', () => {
  test('Node.js is really out of reach in the commands the test runs', async () => {
    const r = await machineExec(M.name, ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', 'mount --bind /dev/null /usr/bin/node && node --version'], { reject: false });
    expect(r.exitCode).not.toBe(0);
    const v = await sea(['version', '-o', 'short']);
    expect(v.stdout).toMatch(/^v\d+\.\d+\.\d+/);
  }, 2 * MIN);

  test('init phase certs all writes a PKI that openssl verifies', async () => {
    const r = await sea(['init', 'phase', 'certs', 'all', '--config', configPath]);
    expect(r.stdout).toContain('[certs] Generating "apiserver" certificate and key');
    const verify = await machineExec(M.name, ['sh', '-c', [
      `openssl verify -CAfile ${PKI}/ca.crt ${PKI}/apiserver.crt ${PKI}/apiserver-kubelet-client.crt`,
      `openssl verify -CAfile ${PKI}/etcd/ca.crt ${PKI}/etcd/server.crt ${PKI}/etcd/peer.crt ${PKI}/apiserver-etcd-client.crt`,
      `openssl verify -CAfile ${PKI}/front-proxy-ca.crt ${PKI}/front-proxy-client.crt`,
      `stat -c '%a %n' ${PKI}/ca.key ${PKI}/sa.key`,
    ].join(' && ')]);
    expect(verify.stdout).toContain(`${PKI}/apiserver.crt: OK`);
    expect(verify.stdout).toContain(`${PKI}/etcd/peer.crt: OK`);
    expect(verify.stdout).toContain(`${PKI}/front-proxy-client.crt: OK`);
    expect(verify.stdout).toContain(`600 ${PKI}/ca.key`);
  }, 3 * MIN);

  test('a full init on the same machine brings up a healthy control plane, and tsadm check passes', async () => {
    const r = await sea(['init', '--config', configPath], { timeoutMs: 8 * MIN });
    expect(r.stdout).toContain('[certs] Using existing ca certificate authority');
    expect(r.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');
    expect((await kubectl(M.name, ['get', '--raw', '/healthz'])).trim()).toBe('ok');
    await waitFor(async () => {
      const p = await podPhases(M.name, 'kube-system');
      return ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every((c) => p[`${c}-${M.name}`] === 'Running');
    }, 4 * MIN, 'control-plane mirror pods Running');
    const check = await sea(['check', '--config', configPath], { reject: false, timeoutMs: 3 * MIN });
    expect({ code: check.exitCode, out: check.exitCode === 0 ? '' : check.all.slice(-3000) }).toEqual({ code: 0, out: '' });
  }, 12 * MIN);
});
