/**
 * `tsadm certs renew --auto` on a PKI made by tsadm 355 days ago (every leaf expires in 10 days),
 * of which some were renewed since (not due): exactly the due ones are renewed (openssl reads the
 * dates), nothing else changes (bytes and mtimes), the Lease on a real kube-apiserver is taken
 * and released, a Lease held by another control plane stops the run before any write, and the
 * unreachable-API rule holds both ways. kube-scheduler is restarted through a stand-in kubelet
 * (a real HTTP liveness endpoint on loopback that exists while its manifest does).
 */
import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Plan } from '../../../src/plan/types.js';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { KC, runCli } from '../../helpers/certs-lifecycle.js';
import { DAY, DUE, FRESH, fileOf, fingerprint, makeRoot, notAfter } from '../../helpers/auto-renew.js';
import type { TempRoot } from '../../helpers/temp-root.js';
import { SCHEDULER_MANIFEST, StandInKubelet, freePort } from '../../helpers/stand-in-kubelet.js';

jest.setTimeout(180_000);

const auto = (root: TempRoot, ...args: string[]) =>
  runCli(['certs', 'renew', '--auto', '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml'), '--kubeconfig', '/lease.conf', ...args]);

describeWithApiServer('renew --auto under the Lease of a real API server', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let kubelet: StandInKubelet;

  beforeAll(async () => {
    server = await startApiServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);
  beforeEach(async () => {
    const port = await freePort();
    root = await makeRoot(10, port);
    writeFileSync(root.at('/lease.conf'), server.adminKubeconfig, { mode: 0o600 });
    kubelet = new StandInKubelet(root, port);
    await kubelet.start();
  });
  afterEach(async () => {
    await kubelet.stop();
    root.cleanup();
  });

  const lease = async () => {
    const r = await server.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/tsadm-certs-renew', { auth: 'admin' });
    return { status: r.status, spec: (JSON.parse(r.text) as { spec?: { holderIdentity?: string; leaseTransitions?: number } }).spec ?? {} };
  };

  test('renews exactly what expires within the window, restarts kube-scheduler once, releases the Lease; a re-run renews nothing', async () => {
    const before = fingerprint(root);
    const dates = Object.fromEntries([...FRESH, ...DUE].map((n) => [n, notAfter(root, n)]));
    const r = await auto(root, '--within', '30d');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const n of DUE) expect(notAfter(root, n)).toBeGreaterThan(Date.now() + 360 * DAY);
    for (const n of FRESH) expect(notAfter(root, n)).toBe(dates[n]);
    const after = fingerprint(root);
    const changed = [...after.keys()].filter((f) => after.get(f) !== before.get(f)).sort();
    // the due certificates' files and the restarted static pod's manifest (put back byte for byte), nothing else (keys kept)
    expect(changed).toEqual([...DUE.map(fileOf), SCHEDULER_MANIFEST].sort());
    const hash = (m: Map<string, string>) => m.get(SCHEDULER_MANIFEST)?.split(' ')[0];
    expect(hash(after)).toBe(hash(before));
    expect(kubelet.starts).toBe(2);
    expect(r.stdout).toContain('Holding the Lease kube-system/tsadm-certs-renew as "cp1"');
    expect(r.stdout).toContain('kube-scheduler restarted and healthy');
    expect(existsSync(root.at('/etc/kubernetes/tmp/tsadm-renew-pending.json'))).toBe(false);
    const l = await lease();
    expect(l.spec.holderIdentity).toBeUndefined();

    const again = fingerprint(root);
    const second = await auto(root, '--within', '30d');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Nothing to renew');
    expect(fingerprint(root)).toEqual(again);
    expect(kubelet.starts).toBe(2);
  });

  test('--plan: nothing changes and no key is in the plan; apply renews exactly the planned certificates under the Lease; an edited set is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-renew-plan-'));
    try {
      const planFile = path.join(dir, 'renew.json');
      const before = fingerprint(root);
      const made = await auto(root, '--within', '30d', '--plan', planFile);
      expect(`${made.code}\n${made.stderr}`).toMatch(/^0\n/);
      expect(fingerprint(root)).toEqual(before);
      expect(kubelet.starts).toBe(1);
      const text = readFileSync(planFile, 'utf8');
      const plan = JSON.parse(text) as Plan;
      expect(plan.command).toBe('certs renew');
      // One step: what is due and how to reach the cluster; the certificates are signed when it is applied.
      expect(plan.steps).toEqual([{
        type: 'certs-renew-auto', windowSeconds: 30 * 86_400, restart: true, due: expect.arrayContaining(DUE) as unknown, pending: [],
        config: root.at('/kubeadm.yaml'), kubeconfig: '/lease.conf',
      }]);
      expect((plan.steps[0] as unknown as { due: string[] }).due).toHaveLength(DUE.length);
      expect(text).not.toContain('-----BEGIN');
      expect(plan.preconditions.files.map((f) => f.path)).toEqual(expect.arrayContaining(['/etc/kubernetes/admin.conf', '/etc/kubernetes/pki/etcd/healthcheck-client.crt']));

      // An edited plan that would renew another set than is due: refused before anything is written.
      const edited = path.join(dir, 'edited.json');
      writeFileSync(edited, JSON.stringify({ ...plan, steps: [{ ...plan.steps[0], due: ['admin.conf'] }] }), { mode: 0o600 });
      const refused = await runCli(['apply', edited]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('refusing to renew: due now are admin.conf, etcd-healthcheck-client, scheduler.conf, the plan renews admin.conf');
      expect(fingerprint(root)).toEqual(before);

      const dates = Object.fromEntries(FRESH.map((n) => [n, notAfter(root, n)]));
      const applied = await runCli(['apply', planFile]);
      expect(`${applied.code}\n${applied.stderr}`).toMatch(/^0\n/);
      for (const n of DUE) expect(notAfter(root, n)).toBeGreaterThan(Date.now() + 360 * DAY);
      for (const n of FRESH) expect(notAfter(root, n)).toBe(dates[n]);
      expect(applied.stdout).toContain('Holding the Lease kube-system/tsadm-certs-renew as "cp1"');
      expect(kubelet.starts).toBe(2);
      expect((await lease()).spec.holderIdentity).toBeUndefined();
      // Applied again: the certificates it read have changed (they were renewed), so it refuses.
      const again = await runCli(['apply', planFile]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/refusing to apply the plan: \d+ things? changed since it was made/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--plan without --auto is a usage error', async () => {
    const r = await runCli(['certs', 'renew', 'all', '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml'), '--plan', root.at('/never.json')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('--plan goes with --auto');
    expect(existsSync(root.at('/never.json'))).toBe(false);
  });

  test('two control planes due at once: one renews and restarts while the other is refused naming it; the other then goes', async () => {
    const port2 = await freePort();
    const root2 = await makeRoot(10, port2);
    writeFileSync(root2.at('/lease.conf'), server.adminKubeconfig, { mode: 0o600 });
    writeFileSync(root2.at('/kubeadm.yaml'), readFileSync(root2.at('/kubeadm.yaml'), 'utf8').replace('name: cp1', 'name: cp2'));
    const kubelet2 = new StandInKubelet(root2, port2);
    await kubelet2.start();
    try {
      const [a, b] = await Promise.all([auto(root, '--within', '30d'), auto(root2, '--within', '30d')]);
      const ran = [a, b].filter((r) => r.code === 0);
      const refused = [a, b].filter((r) => r.code !== 0);
      expect(ran).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const winner = a.code === 0 ? 'cp1' : 'cp2';
      expect(refused[0]!.stderr).toContain(`is held by "${winner}"`);
      // only the winner's scheduler restarted
      expect(kubelet.starts + kubelet2.starts).toBe(3);
      const loser = winner === 'cp1' ? root2 : root;
      const again = await auto(loser, '--within', '30d');
      expect(again.code).toBe(0);
      expect(kubelet.starts).toBe(2);
      expect(kubelet2.starts).toBe(2);
    } finally {
      await kubelet2.stop();
      root2.cleanup();
    }
  });

  test('a Lease held by another control plane stops the run before anything is written', async () => {
    const now = new Date().toISOString().replace(/Z$/, '000Z');
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'tsadm-certs-renew', namespace: 'kube-system' }, spec: { holderIdentity: 'cp2', leaseDurationSeconds: 900, acquireTime: now, renewTime: now } };
    const existing = await lease();
    const put = existing.status === 200
      ? await server.request('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/tsadm-certs-renew', { auth: 'admin', body: { ...body, metadata: { ...body.metadata, resourceVersion: (await server.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/tsadm-certs-renew', { auth: 'admin' })).body.metadata.resourceVersion } } })
      : await server.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { auth: 'admin', body });
    expect([200, 201]).toContain(put.status);
    const before = fingerprint(root);
    const r = await auto(root, '--within', '30d');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the Lease kube-system\/tsadm-certs-renew is held by "cp2" until 20\d\d-/);
    expect(fingerprint(root)).toEqual(before);
    expect(kubelet.starts).toBe(1);
    await server.request('DELETE', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/tsadm-certs-renew', { auth: 'admin' });
  });

  test('--dry-run says what it would renew and restart, and writes nothing', async () => {
    const before = fingerprint(root);
    const r = await auto(root, '--within', '30d', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.includes('would be renewed'))).toHaveLength(DUE.length);
    expect(r.stdout).toContain('Would restart kube-scheduler');
    expect(r.stdout).toContain('Would take the Lease kube-system/tsadm-certs-renew');
    expect(fingerprint(root)).toEqual(before);
    expect(kubelet.starts).toBe(1);
  });

  test('-o json: one JSON event per line', async () => {
    const r = await auto(root, '--within', '30d', '-o', 'json');
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; message?: string });
    expect(events.some((e) => e.message?.includes('certificate embedded in the kubeconfig file for the admin to use and for kubeadm itself renewed'))).toBe(true);
  });
});

describe('renew --auto when the API cannot be reached (no Lease)', () => {
  let root: TempRoot;
  let kubelet: StandInKubelet;
  afterEach(async () => {
    await kubelet.stop();
    root.cleanup();
  });
  async function setup(daysLeft: number): Promise<void> {
    const port = await freePort();
    root = await makeRoot(daysLeft, port);
    // a kubeconfig of this cluster whose server refuses connections (a closed loopback port)
    const admin = readFileSync(root.at(`${KC}/admin.conf`), 'utf8').replace(/server: \S+/, `server: https://127.0.0.1:${await freePort()}`);
    writeFileSync(root.at('/lease.conf'), admin, { mode: 0o600 });
    kubelet = new StandInKubelet(root, port);
    await kubelet.start();
  }

  test('nothing within 7 days of expiry: refuses with a one-line error and writes nothing', async () => {
    await setup(10);
    const before = fingerprint(root);
    const r = await auto(root, '--within', '30d', '--lease-wait', '0s');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not renewing: the Lease kube-system\/tsadm-certs-renew .* could not be taken .* nothing expires within 7 days/);
    expect(fingerprint(root)).toEqual(before);
  });

  test('a certificate within 7 days of expiry: renews this machine\'s due files anyway, with a loud warning', async () => {
    await setup(5);
    const r = await auto(root, '--within', '30d', '--lease-wait', '0s');
    expect(r.stderr).toContain('RENEWING WITHOUT THE CLUSTER-WIDE LOCK');
    expect(r.code).toBe(0);
    for (const n of DUE) expect(notAfter(root, n)).toBeGreaterThan(Date.now() + 360 * DAY);
    expect(kubelet.starts).toBe(2);
  });
  test('a failing API is tried again for --lease-wait before the renewal goes ahead without the Lease (another machine\'s restart makes the API fail for seconds)', async () => {
    await setup(5);
    const t0 = Date.now();
    const r = await auto(root, '--within', '30d', '--lease-wait', '7s');
    expect(r.stderr).toMatch(/the Lease kube-system\/tsadm-certs-renew could not be taken .*; trying again until /);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(6000);
    expect(r.stderr).toContain('RENEWING WITHOUT THE CLUSTER-WIDE LOCK');
    expect(r.code).toBe(0);
  });
});
