/**
 * `tsadm certs renew --auto` on a real single control plane made by `tsadm init` on harness machine
 * ar1: three of its certificates are re-issued to last 2 hours (a v1beta4
 * `certificateValidityPeriod: 2h` given to `certs renew`), then `renew --auto --within 3h` renews
 * exactly those three (check-expiration before and after), restarts only the API server and the
 * scheduler (their containers' start times), takes and releases the Lease, and the renewed admin.conf
 * works with kubectl; a re-run renews nothing. The API is polled once a second throughout: with one
 * control plane, the API server's own restart is an outage, so its length is bounded rather than zero.
 * Needs `npm run build` (machines run bin/tsadm).
 */
import { expect } from '@jest/globals';
import {
  createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, provision, requireComponents, tsadm, waitFor,
  writeSharedFile, type Machine,
} from './harness.js';

const CP: Machine = { name: 'ar1', ip: '10.250.0.91' };
const MIN = 60_000;
const SHORT = ['admin.conf', 'apiserver', 'scheduler.conf'];

interface Expiration {
  certificates: { name: string; expirationDate: string | null; residualTime: number }[];
}

async function expiration(): Promise<Expiration> {
  return JSON.parse((await tsadm(CP.name, ['certs', 'check-expiration', '-o', 'json'])).stdout) as Expiration;
}

async function startedAt(component: string): Promise<number> {
  const out = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'pod', `${component}-${CP.name}`, '-o', 'jsonpath={.status.containerStatuses[0].state.running.startedAt}'], { reject: false });
  return out ? Date.parse(out) : 0;
}

beforeAll(async () => {
  await provision();
  requireComponents();
  await destroyMachine(CP.name).catch(() => undefined);
  await createMachine(CP.name, CP.ip);
  const config = writeSharedFile(`tsadm-${CP.name}.yaml`, await kubeadmConfig(CP.ip, CP.name));
  await tsadm(CP.name, ['init', '--config', config], { timeoutMs: 6 * MIN });
  await waitFor(async () => {
    const r = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'pods', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}'], { reject: false });
    return ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every((c) => r.includes(`${c}-${CP.name}=Running`));
  }, 4 * MIN, 'control-plane mirror pods Running');
  // three certificates made short-lived, as a cluster 2 hours from their expiry
  const short = writeSharedFile(`tsadm-${CP.name}-2h.yaml`, ['apiVersion: kubeadm.k8s.io/v1beta4', 'kind: ClusterConfiguration', 'kubernetesVersion: v1.20.2', 'certificateValidityPeriod: 2h0m0s', ''].join('\n'));
  for (const name of SHORT) await tsadm(CP.name, ['certs', 'renew', name, '--config', short]);
}, 15 * MIN);

afterAll(async () => {
  await destroyMachine(CP.name).catch(() => undefined);
}, 5 * MIN);

describe('certs renew --auto on a tsadm control plane', () => {
  test('renews exactly the due certificates, restarts only their readers, the API comes back, kubectl works; a re-run renews nothing', async () => {
    const before = await expiration();
    for (const name of SHORT) expect([name, before.certificates.find((c) => c.name === name)!.residualTime < 3 * 3600]).toEqual([name, true]);
    const started = Object.fromEntries(await Promise.all(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map(async (c) => [c, await startedAt(c)] as const)));

    // poll the API once a second while the renewal runs
    let polling = true;
    const outages: number[] = [];
    let downSince: number | undefined;
    const poller = (async () => {
      while (polling) {
        const ok = (await machineExec(CP.name, ['kubectl', '--kubeconfig', '/etc/kubernetes/admin.conf', 'get', '--raw', '/readyz', '--request-timeout=2s'], { reject: false })).exitCode === 0;
        const now = Date.now();
        if (!ok && downSince === undefined) downSince = now;
        if (ok && downSince !== undefined) { outages.push(now - downSince); downSince = undefined; }
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    const r = await tsadm(CP.name, ['certs', 'renew', '--auto', '--within', '3h'], { timeoutMs: 10 * MIN });
    await waitFor(() => Promise.resolve(downSince === undefined), 2 * MIN, 'the API to answer after the renewal');
    polling = false;
    await poller;

    expect(r.stdout).toContain('Holding the Lease kube-system/tsadm-certs-renew as "ar1"');
    expect(r.stdout.match(/^\[renew\] .* renewed \(until /gm)).toHaveLength(SHORT.length);
    expect(r.stdout).toContain('[restart] kube-apiserver restarted and healthy');
    expect(r.stdout).toContain('[restart] kube-scheduler restarted and healthy');
    expect(r.stdout).not.toContain('[restart] etcd');
    expect(r.stdout).not.toContain('[restart] kube-controller-manager');

    const after = await expiration();
    for (const c of after.certificates) {
      const old = before.certificates.find((b) => b.name === c.name)!;
      if (SHORT.includes(c.name)) expect([c.name, c.residualTime > 300 * 86_400]).toEqual([c.name, true]);
      else expect([c.name, c.expirationDate]).toEqual([c.name, old.expirationDate]);
    }
    expect(await startedAt('kube-apiserver')).toBeGreaterThan(started['kube-apiserver']!);
    expect(await startedAt('kube-scheduler')).toBeGreaterThan(started['kube-scheduler']!);
    expect(await startedAt('etcd')).toBe(started.etcd);
    // (kube-controller-manager is not restarted by tsadm, as its output says, but with one control
    // plane it loses its leader-election lease while the API server restarts and exits by itself;
    // the kubelet starts it again, so its start time is no oracle here)
    // one control plane: the API server's restart is the only outage, and a short one
    expect(outages.every((ms) => ms < 90_000)).toBe(true);

    // the renewed admin.conf works; the Lease is released
    expect(await kubectl(CP.name, ['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).toBe(CP.name);
    expect(await kubectl(CP.name, ['-n', 'kube-system', 'get', 'lease', 'tsadm-certs-renew', '-o', 'jsonpath={.spec.holderIdentity}'])).toBe('');

    const again = await tsadm(CP.name, ['certs', 'renew', '--auto', '--within', '3h']);
    expect(again.stdout).toContain('Nothing to renew');
    expect((await expiration()).certificates.map((c) => c.expirationDate)).toEqual(after.certificates.map((c) => c.expirationDate));
  }, 15 * MIN);
});
