/**
 * Resumable init on a --rootfs, through the CLI: a run that fails half-way records what it
 * completed (0600 state, atomic) and says how to resume or reset; a plain init then says so again
 * and runs every phase (idempotent); `--resume` skips the completed phases (same inputs, same files,
 * exit check passing) and continues from the failed one; a completed phase whose file went
 * missing, or whose inputs changed, runs again; a state left behind by a reset is ignored.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunState } from '../../src/resume/state.js';
import { CLUSTER_PHASES, LOCAL_INIT, events, runCli } from '../helpers/run-cli.js';

const INIT = (root: string, extra: readonly string[] = []): string[] => ['init', '--rootfs', root, ...LOCAL_INIT, '--skip-phases', CLUSTER_PHASES.join(','), ...extra];
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tsadm-resume-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
const at = (p: string): string => path.join(root, p);
const state = (): RunState => JSON.parse(readFileSync(at('/etc/kubernetes/tmp/tsadm-state.json'), 'utf8')) as RunState;
const tree = (): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!p.endsWith('tsadm-state.json')) out[`/${path.relative(root, p)}`] = sha(p);
    }
  };
  walk(root);
  return out;
};

describe('init --resume', () => {
  test('a failed init records its completed phases and says how to resume or reset', async () => {
    // A directory where the API server manifest goes makes control-plane/apiserver fail.
    mkdirSync(at('/etc/kubernetes/manifests/kube-apiserver.yaml'), { recursive: true });
    const r = await runCli(INIT(root));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error execution phase control-plane/apiserver');
    expect(r.stderr).toContain('tsadm init stopped at phase control-plane/apiserver. Once the cause is fixed: "tsadm init --resume" continues from there, "tsadm reset" starts over.');
    expect(statSync(at('/etc/kubernetes/tmp/tsadm-state.json')).mode & 0o777).toBe(0o600);
    const s = state();
    expect(s).toMatchObject({ command: 'init', status: 'failed', failedPhase: 'control-plane/apiserver' });
    expect(Object.keys(s.phases)).toEqual(expect.arrayContaining(['certs/ca', 'certs/sa', 'kubeconfig/admin', 'kubelet-start']));
    expect(s.phases['certs/ca']!.files).toEqual([
      { path: '/etc/kubernetes/pki/ca.key', sha256: sha(at('/etc/kubernetes/pki/ca.key')) },
      { path: '/etc/kubernetes/pki/ca.crt', sha256: sha(at('/etc/kubernetes/pki/ca.crt')) },
    ]);
    expect(s.phases['control-plane/apiserver']).toBeUndefined();
  }, 60_000);

  test('a plain init after the failure says how to resume or reset, then runs every phase again', async () => {
    const ca = sha(at('/etc/kubernetes/pki/ca.crt'));
    const r = await runCli(INIT(root));
    expect(r.stderr).toContain('[WARNING] [init] a previous "tsadm init" did not finish: it stopped at phase control-plane/apiserver at ');
    expect(r.stderr).toContain('"tsadm init --resume" would keep what it completed and continue from there, "tsadm reset" starts over');
    // Still blocked by the same cause: it fails at the same phase, and says so again.
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('tsadm init stopped at phase control-plane/apiserver.');
    expect(sha(at('/etc/kubernetes/pki/ca.crt'))).toBe(ca); // existing certificates are reused
    expect(state()).toMatchObject({ status: 'failed', failedPhase: 'control-plane/apiserver' });
  }, 30_000);

  test('--resume skips what was completed and continues from the failed phase', async () => {
    rmSync(at('/etc/kubernetes/manifests/kube-apiserver.yaml'), { recursive: true });
    const before = tree();
    const r = await runCli(INIT(root, ['--resume', '-o', 'json']));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const finished = events(r.stdout).flatMap((e) => (e.type === 'phase-finish' ? [[e.phase, e.status, e.reason ?? ''] as const] : []));
    const status = Object.fromEntries(finished.map(([p, st, why]) => [p, `${st}${why.startsWith('completed in an earlier run') ? ' (earlier run)' : ''}`]));
    expect(status).toMatchObject({
      'certs/ca': 'skipped (earlier run)', 'certs/apiserver': 'skipped (earlier run)', 'certs/sa': 'skipped (earlier run)',
      'kubeconfig/admin': 'skipped (earlier run)', 'kubelet-start': 'skipped (earlier run)',
      'control-plane/apiserver': 'ok', 'control-plane/scheduler': 'ok', 'etcd/local': 'ok',
    });
    // The keys and certificates of the first run are kept as they were.
    for (const [p, h] of Object.entries(before)) expect([p, tree()[p]]).toEqual([p, h]);
    expect(existsSync(at('/etc/kubernetes/manifests/kube-apiserver.yaml'))).toBe(true);
    expect(state()).toMatchObject({ status: 'completed' });
    expect(state().failedPhase).toBeUndefined();
  }, 60_000);

  test('a completed phase whose file is gone, or whose inputs changed, runs again', async () => {
    unlinkSync(at('/etc/kubernetes/scheduler.conf'));
    const r = await runCli(INIT(root, ['--resume', '-v', '1']));
    expect(r.code).toBe(0);
    // Its exit check (running it again would write the file) fails, so it runs again; the others are skipped.
    expect(r.stdout).toMatch(/\[resume\] Running phase kubeconfig\/scheduler again: .*\/etc\/kubernetes\/scheduler\.conf/);
    expect(r.stdout).toContain('[kubeconfig/admin] Skipping phase: completed in an earlier run');
    expect(existsSync(at('/etc/kubernetes/scheduler.conf'))).toBe(true);

    const changed = await runCli(INIT(root, ['--resume', '-v', '1', '--pod-network-cidr', '10.244.0.0/16']));
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain('[resume] Running phase control-plane/controller-manager again: its inputs (configuration, flags or version) changed');
    expect(readFileSync(at('/etc/kubernetes/manifests/kube-controller-manager.yaml'), 'utf8')).toContain('--cluster-cidr=10.244.0.0/16');
  }, 60_000);

  test('a state whose files are all gone (the node was reset) does not block a plain init', async () => {
    rmSync(at('/etc/kubernetes/manifests'), { recursive: true });
    mkdirSync(at('/etc/kubernetes/manifests/kube-apiserver.yaml'), { recursive: true });
    const failed = await runCli(INIT(root));
    expect(failed.code).toBe(1);
    expect(state().status).toBe('failed');
    for (const d of ['/etc/kubernetes/pki', '/etc/kubernetes/manifests', '/var/lib/kubelet']) rmSync(at(d), { recursive: true, force: true });
    for (const f of ['admin.conf', 'kubelet.conf', 'controller-manager.conf', 'scheduler.conf']) rmSync(at(`/etc/kubernetes/${f}`), { force: true });
    const fresh = await runCli(INIT(root));
    expect(fresh.stderr).toBe('');
    expect(fresh.code).toBe(0);
  }, 60_000);
});
