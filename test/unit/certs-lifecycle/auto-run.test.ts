/**
 * `tsadm certs renew --auto` on a PKI made by tsadm 355 days ago (every leaf expires in 10 days),
 * of which some were renewed since (not due): exactly the due ones are renewed (openssl reads the
 * dates), nothing else changes (bytes and mtimes), the Lease on a real kube-apiserver is taken
 * and released, a run that finds it held waits its turn (--wait; 0 stops it before any write), a
 * holder stuck for longer than a renewal may take is renewed past only for what expires within 7
 * days, and the unreachable-API rule holds both ways. kube-scheduler is restarted through a stand-in kubelet
 * (a real HTTP liveness endpoint on loopback that exists while its manifest does).
 */
import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Plan } from '../../../src/plan/types.js';
import { runRenewAuto } from '../../../src/certs-lifecycle/auto-run.js';
import { LeaseObserver } from '../../../src/kube/lease-lock.js';
import { createRuntime } from '../../../src/run/runtime.js';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { captureIo } from '../../helpers/cli.js';
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

  const secondRoot = async (): Promise<{ root2: TempRoot; kubelet2: StandInKubelet }> => {
    const port2 = await freePort();
    const root2 = await makeRoot(10, port2);
    writeFileSync(root2.at('/lease.conf'), server.adminKubeconfig, { mode: 0o600 });
    writeFileSync(root2.at('/kubeadm.yaml'), readFileSync(root2.at('/kubeadm.yaml'), 'utf8').replace('name: cp1', 'name: cp2'));
    const kubelet2 = new StandInKubelet(root2, port2);
    await kubelet2.start();
    return { root2, kubelet2 };
  };

  test('two control planes due at once, started together: the second waits for the Lease (saying who holds it) and renews when the first releases it', async () => {
    const { root2, kubelet2 } = await secondRoot();
    try {
      const [a, b] = await Promise.all([auto(root, '--within', '30d'), auto(root2, '--within', '30d')]);
      expect([a.code, a.stderr, b.code, b.stderr]).toEqual([0, '', 0, '']);
      for (const r of [root, root2]) for (const n of DUE) expect(notAfter(r, n)).toBeGreaterThan(Date.now() + 360 * DAY);
      expect([kubelet.starts, kubelet2.starts]).toEqual([2, 2]);
      const waited = [a, b].filter((r) => /The Lease kube-system\/tsadm-certs-renew is held by "cp\d" \(until 20\S+ at most, unless it renews it\); waiting for it until 20\S+ \(--wait 960s\)\./.test(r.stdout));
      expect(waited).toHaveLength(1);
      const waiter = waited[0]!;
      const first = waiter === a ? b : a;
      // the waiter took the Lease only after the first had restarted and let it go
      const holding = (r: typeof a) => r.stdout.indexOf('Holding the Lease');
      expect(holding(waiter)).toBeGreaterThan(waiter.stdout.indexOf('waiting for it'));
      expect(first.stdout).toContain('kube-scheduler restarted and healthy');
      expect((await lease()).spec.holderIdentity).toBeUndefined();
    } finally {
      await kubelet2.stop();
      root2.cleanup();
    }
  });

  test('two control planes due at once with --wait 0: one renews and restarts while the other is refused at once naming it; the other then goes', async () => {
    const { root2, kubelet2 } = await secondRoot();
    try {
      const [a, b] = await Promise.all([auto(root, '--within', '30d', '--wait', '0'), auto(root2, '--within', '30d', '--wait', '0')]);
      const ran = [a, b].filter((r) => r.code === 0);
      const refused = [a, b].filter((r) => r.code !== 0);
      expect(ran).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const winner = a.code === 0 ? 'cp1' : 'cp2';
      expect(refused[0]!.stderr).toContain(`is held by "${winner}"`);
      // only the winner's scheduler restarted
      expect(kubelet.starts + kubelet2.starts).toBe(3);
      expect(refused[0]!.stdout).not.toContain('waiting for it');
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

  const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/tsadm-certs-renew';
  /** The Lease as another control plane holding it writes it (its renewTime moved to now). */
  const putHeldLease = async (holder: string, acquireTime: string): Promise<void> => {
    const now = new Date().toISOString().replace(/Z$/, '000Z');
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'tsadm-certs-renew', namespace: 'kube-system' }, spec: { holderIdentity: holder, leaseDurationSeconds: 900, acquireTime, renewTime: now } };
    const existing = await server.request('GET', LEASE_PATH, { auth: 'admin' });
    const put = existing.status === 200
      ? await server.request('PUT', LEASE_PATH, { auth: 'admin', body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.body.metadata.resourceVersion } } })
      : await server.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { auth: 'admin', body });
    expect([200, 201, 409]).toContain(put.status); // 409: the run under test read it meanwhile, the next renewal lands
  };

  test('a Lease held by another control plane: the run waits --wait, then stops with the holder named, before anything is written', async () => {
    await putHeldLease('cp2', new Date().toISOString().replace(/Z$/, '000Z'));
    const before = fingerprint(root);
    const t0 = Date.now();
    const r = await auto(root, '--within', '30d', '--wait', '2s');
    expect(r.code).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
    expect(r.stdout).toMatch(/The Lease kube-system\/tsadm-certs-renew is held by "cp2" \(until 20\S+ at most, unless it renews it\); waiting for it until 20\S+ \(--wait 2s\)\./);
    expect(r.stderr).toMatch(/the Lease kube-system\/tsadm-certs-renew is held by "cp2" until 20\d\d-/);
    expect(r.stderr).toContain('or with a longer --wait');
    expect(fingerprint(root)).toEqual(before);
    expect(kubelet.starts).toBe(1);
    await server.request('DELETE', LEASE_PATH, { auth: 'admin' });
  });

  /**
   * A holder that keeps renewing and never finishes (a hung run): seen for longer than a run may
   * hold the Lease (900 s), it is renewed past for certificates within 7 days of expiry, and only
   * then. The run's observer counts 300 times fast, so its 900 s pass in 3 s.
   */
  describe('a holder stuck with the Lease', () => {
    const renewAutoDirect = async (r: TempRoot, waitSeconds: number) => {
      const { io, out, err } = captureIo();
      const rt = await createRuntime({ rootfs: r.dir }, { io }, { lock: 'certs renew' });
      const start = performance.now();
      const observer = new LeaseObserver(() => (performance.now() - start) * 300);
      const acquired = new Date().toISOString().replace(/Z$/, '000Z');
      await putHeldLease('cp-stuck', acquired);
      // The holder's renewals; the ones still in flight are awaited before the Lease is deleted,
      // or a late one re-creates it held and the next test waits for a live holder.
      const inFlight = new Set<Promise<unknown>>();
      const renewing = setInterval(() => {
        const put = putHeldLease('cp-stuck', acquired).catch(() => undefined);
        inFlight.add(put);
        void put.finally(() => inFlight.delete(put));
      }, 150);
      try {
        const result = await runRenewAuto(rt, { config: r.at('/kubeadm.yaml'), kubeconfig: '/lease.conf', windowSeconds: 30 * 86_400, restart: true, waitSeconds }, { leaseObserver: observer, leasePollMs: 50 })
          .then((v) => ({ ok: true as const, v }), (e: unknown) => ({ ok: false as const, e }));
        return { result, stdout: out(), stderr: err(), holder: (await lease()).spec.holderIdentity };
      } finally {
        clearInterval(renewing);
        await Promise.all(inFlight);
        rt.api.close();
        await rt.reporter.close();
        await server.request('DELETE', LEASE_PATH, { auth: 'admin' });
      }
    };

    /** This test's machine, 5 days from expiry instead of 10. */
    const fiveDaysLeft = async (): Promise<void> => {
      await kubelet.stop();
      root.cleanup();
      const port = await freePort();
      root = await makeRoot(5, port);
      writeFileSync(root.at('/lease.conf'), server.adminKubeconfig, { mode: 0o600 });
      kubelet = new StandInKubelet(root, port);
      await kubelet.start();
    };

    test('certificates within 7 days, the holder seen for longer than a renewal may take (--wait 1000s): renewed anyway, with a warning naming it', async () => {
      await fiveDaysLeft();
      const r = await renewAutoDirect(root, 1000);
      expect(r.result.ok ? r.result.v.lock : r.result.e).toBe('none-held-too-long');
      expect(r.stdout + r.stderr).toMatch(/RENEWING WITHOUT THE CLUSTER-WIDE LOCK: "cp-stuck" has held the Lease kube-system\/tsadm-certs-renew for \d+s, longer than a renewal may take \(900s\)/);
      for (const n of DUE) expect(notAfter(root, n)).toBeGreaterThan(Date.now() + 360 * DAY);
      expect(r.holder).toBe('cp-stuck'); // its Lease left alone
    });

    test('certificates 10 days from expiry after the same wait: stopped naming the holder, nothing written', async () => {
      const before = fingerprint(root);
      const r = await renewAutoDirect(root, 1000);
      expect(r.result.ok).toBe(false);
      expect(String((r.result as { e: unknown }).e)).toContain('is held by "cp-stuck"');
      expect(fingerprint(root)).toEqual(before);
      expect(r.stdout + r.stderr).not.toContain('WITHOUT THE CLUSTER-WIDE LOCK');
    });

    test('certificates within 7 days but a wait shorter than a renewal may take (--wait 600s): stopped naming the holder, nothing written', async () => {
      await fiveDaysLeft();
      const before = fingerprint(root);
      const r = await renewAutoDirect(root, 600);
      expect(r.result.ok).toBe(false);
      expect(String((r.result as { e: unknown }).e)).toContain('is held by "cp-stuck"');
      expect(fingerprint(root)).toEqual(before);
      expect(r.stdout + r.stderr).not.toContain('WITHOUT THE CLUSTER-WIDE LOCK');
    });
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
