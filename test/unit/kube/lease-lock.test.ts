import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import { LeaseObserver, withLeaseLock, type LeaseLockOptions } from '../../../src/kube/lease-lock.js';
import type { KubeApi } from '../../../src/kube/types.js';

/**
 * The Lease lock against a real kube-apiserver v1.20.2: the server's resourceVersion check is the
 * oracle for "only one of two racing holders wins"; the stored Lease (read back raw) for
 * acquire, renew and release. Clock skew is played by the holder's injected wall clock (`now`),
 * and a Lease duration of 15 minutes by an observer whose monotonic clock runs 300 times fast.
 */
describeWithApiServer('withLeaseLock on a real API server', () => {
  let server: TestApiServer;
  let apis: KubeApi[];

  const open = (): Promise<KubeApi> =>
    createApiSeam({ readFile: () => Promise.resolve(Buffer.from(server.adminKubeconfig)) }, false).open({ path: '/etc/kubernetes/admin.conf' }, { log: new PhaseLogger(new MemoryReporter()) });

  beforeAll(async () => {
    server = await startApiServer();
    apis = await Promise.all([open(), open()]);
  }, 120_000);
  afterAll(async () => {
    for (const a of apis ?? []) a.close();
    await server?.stop();
  }, 30_000);

  const leasePath = (name: string) => `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`;
  const readLease = async (name: string) => {
    const res = await server.request('GET', leasePath(name), { auth: 'admin' });
    return JSON.parse(res.text) as { metadata: { resourceVersion: string }; spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; acquireTime?: string; leaseTransitions?: number } };
  };
  const putLease = async (name: string, spec: Record<string, unknown>) => {
    const existing = await server.request('GET', leasePath(name), { auth: 'admin' });
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-system', ...(existing.status === 200 ? { resourceVersion: existing.body.metadata.resourceVersion } : {}) }, spec };
    const res = existing.status === 200
      ? await server.request('PUT', leasePath(name), { auth: 'admin', body })
      : await server.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { auth: 'admin', body });
    expect([200, 201]).toContain(res.status);
  };
  const micro = (d: Date) => d.toISOString().replace(/Z$/, '000Z');
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const opts = (name: string, holder: string, extra: Partial<LeaseLockOptions> = {}): LeaseLockOptions => ({ name, holder, durationSeconds: 15, ...extra });

  test('two holders race for a free Lease: exactly one runs, the other is refused naming the winner and the expiry', async () => {
    let running = 0;
    let maxRunning = 0;
    const work = (who: string) => async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      const seen = await readLease('race');
      await sleep(500);
      running--;
      return { who, holderSeen: seen.spec.holderIdentity };
    };
    const results = await Promise.allSettled([
      withLeaseLock(apis[0]!, opts('race', 'cp-a'), work('cp-a')),
      withLeaseLock(apis[1]!, opts('race', 'cp-b'), work('cp-b')),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(maxRunning).toBe(1);
    const winner = (won[0] as PromiseFulfilledResult<{ who: string; holderSeen: string }>).value;
    expect(winner.holderSeen).toBe(winner.who); // the server recorded the winner while it worked
    const err = lost[0]!.reason as Error & { code?: string };
    expect(err.code).toBe('E_LOCKED');
    expect(err.message).toContain(`held by "${winner.who}" until 20`);
    expect(err.message).not.toContain('\n');
  });

  test('at the end the Lease is released: no holder, duration 1 s, and the next machine takes it at once', async () => {
    await withLeaseLock(apis[0]!, opts('release', 'cp-a'), () => Promise.resolve());
    const after = await readLease('release');
    expect(after.spec.holderIdentity).toBeUndefined();
    expect(after.spec.leaseDurationSeconds).toBe(1);
    await expect(withLeaseLock(apis[1]!, opts('release', 'cp-b'), async () => (await readLease('release')).spec.holderIdentity)).resolves.toBe('cp-b');
    expect((await readLease('release')).spec.leaseTransitions).toBe(1);
  });

  test('a Lease held by another live holder is refused at once with its name and expiry (the duration from when this machine saw it); nothing runs', async () => {
    const renewTime = new Date();
    await putLease('held', { holderIdentity: 'cp-other', leaseDurationSeconds: 600, acquireTime: micro(renewTime), renewTime: micro(renewTime) });
    let ran = false;
    const before = Date.now();
    const err = await tsadmErrorOf(withLeaseLock(apis[0]!, opts('held', 'cp-a'), () => { ran = true; return Promise.resolve(); }));
    const after = Date.now();
    expect(ran).toBe(false);
    expect(err.code).toBe('E_LOCKED');
    expect(after - before).toBeLessThan(2000); // no waiting unless asked (the approver's passes)
    expect(err.message).toContain('kube-system/held');
    const until = Date.parse(/"cp-other" until (\S+)$/.exec(err.message)?.[1] ?? '');
    expect(until).toBeGreaterThanOrEqual(before + 600_000);
    expect(until).toBeLessThanOrEqual(after + 600_000);
    expect((await readLease('held')).spec.holderIdentity).toBe('cp-other');
  });

  test('an expired Lease (its record unchanged for its duration, as this machine saw it) is taken over (leaseTransitions counts it), then released', async () => {
    const old = new Date(Date.now() - 3600_000);
    await putLease('expired', { holderIdentity: 'cp-dead', leaseDurationSeconds: 15, acquireTime: micro(old), renewTime: micro(old), leaseTransitions: 4 });
    // The same observer across two tries (the approver's --watch passes): the first sees the
    // record, the second comes 16 s later on its clock and finds it unchanged.
    let t = 0;
    const observer = new LeaseObserver(() => t);
    expect((await tsadmErrorOf(withLeaseLock(apis[0]!, opts('expired', 'cp-a', { observer }), () => Promise.resolve()))).code).toBe('E_LOCKED');
    t += 16_000;
    const during = await withLeaseLock(apis[0]!, opts('expired', 'cp-a', { observer }), () => readLease('expired'));
    expect(during.spec.holderIdentity).toBe('cp-a');
    expect(during.spec.leaseTransitions).toBe(5);
    expect(Date.parse(during.spec.acquireTime!)).toBeGreaterThan(old.getTime());
    expect((await readLease('expired')).spec.holderIdentity).toBeUndefined();
  });

  test('the same holder takes back its own live Lease (a killed run of this machine does not lock it out)', async () => {
    const now = new Date();
    await putLease('mine', { holderIdentity: 'cp-a', leaseDurationSeconds: 600, acquireTime: micro(now), renewTime: micro(now), leaseTransitions: 2 });
    await expect(withLeaseLock(apis[0]!, opts('mine', 'cp-a'), () => Promise.resolve('ran'))).resolves.toBe('ran');
    expect((await readLease('mine')).spec.leaseTransitions).toBe(2);
  });

  test('the Lease is renewed while the work runs, so a 2 s Lease still keeps out, after 3 s, another machine that watches it for 2.5 s', async () => {
    const o = opts('renewed', 'cp-a', { durationSeconds: 2, renewIntervalMs: 300 });
    const outcome = await withLeaseLock(apis[0]!, o, async () => {
      const first = (await readLease('renewed')).spec.renewTime!;
      await sleep(3000);
      const later = (await readLease('renewed')).spec.renewTime!;
      const other = await tsadmErrorOf(withLeaseLock(apis[1]!, opts('renewed', 'cp-b', { waitMs: 2500, pollMs: 100 }), () => Promise.resolve()));
      return { first, later, other };
    });
    expect(Date.parse(outcome.later)).toBeGreaterThan(Date.parse(outcome.first) + 1000);
    expect(outcome.other.message).toContain('held by "cp-a"');
  });

  test('a holder whose clock runs 16 minutes behind keeps its live Lease: a machine with a correct clock, watching it for three durations, does not take it while it renews', async () => {
    const behind = (): Date => new Date(Date.now() - 16 * 60_000);
    let ranB = false;
    const waits: string[] = [];
    const outcome = await withLeaseLock(apis[0]!, opts('skew-behind', 'cp-slow', { durationSeconds: 2, renewIntervalMs: 300, now: behind }), async () => {
      const stored = (await readLease('skew-behind')).spec;
      const other = await tsadmErrorOf(withLeaseLock(apis[1]!, opts('skew-behind', 'cp-b', { waitMs: 6000, pollMs: 100, onWait: (who) => waits.push(who) }), () => { ranB = true; return Promise.resolve(); }));
      return { stored, other, holderAfter: (await readLease('skew-behind')).spec.holderIdentity };
    });
    // the holder's renewTime is 16 minutes old by the correct clock, far past renewTime + 2 s
    expect(Date.parse(outcome.stored.renewTime!)).toBeLessThan(Date.now() - 15 * 60_000);
    expect(ranB).toBe(false);
    expect(outcome.other.code).toBe('E_LOCKED');
    expect(outcome.other.message).toContain('held by "cp-slow"');
    expect(outcome.holderAfter).toBe('cp-slow');
    expect(waits).toEqual(['cp-slow']); // said once whom it waits for
    // released at the end: the correct machine takes it at once
    await expect(withLeaseLock(apis[1]!, opts('skew-behind', 'cp-b'), async () => (await readLease('skew-behind')).spec.holderIdentity)).resolves.toBe('cp-b');
  });

  test('a renewTime a year ahead (a holder whose clock ran ahead, then died) is not "held until then": refused at once for one duration from now, and taken over after one 15-minute duration of seeing no change', async () => {
    const ahead = new Date(Date.now() + 365 * 86_400_000);
    await putLease('skew-ahead', { holderIdentity: 'cp-ahead', leaseDurationSeconds: 900, acquireTime: micro(ahead), renewTime: micro(ahead), leaseTransitions: 1 });
    const before = Date.now();
    const refused = await tsadmErrorOf(withLeaseLock(apis[0]!, opts('skew-ahead', 'cp-a'), () => Promise.resolve()));
    const until = Date.parse(/"cp-ahead" until (\S+)$/.exec(refused.message)?.[1] ?? '');
    expect(until).toBeGreaterThanOrEqual(before + 900_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 900_000);

    // 300 times fast: 900 s of this observer's clock are 3 s.
    const start = performance.now();
    const observer = new LeaseObserver(() => (performance.now() - start) * 300);
    const announced: Array<{ who: string; until: number }> = [];
    const taken = await withLeaseLock(apis[0]!, opts('skew-ahead', 'cp-a', { observer, waitMs: 1200_000, pollMs: 50, onWait: (who, u) => announced.push({ who, until: u.getTime() }) }), async () => ({
      at: observer.now(), lease: (await readLease('skew-ahead')).spec,
    }));
    expect(taken.at).toBeGreaterThanOrEqual(900_000);
    expect(taken.at).toBeLessThan(1200_000);
    expect(taken.lease.holderIdentity).toBe('cp-a');
    expect(taken.lease.leaseTransitions).toBe(2);
    expect(Date.parse(taken.lease.renewTime!)).toBeLessThan(Date.now() + 60_000);
    expect(announced).toHaveLength(1);
    expect(announced[0]!.who).toBe('cp-ahead');
    expect(announced[0]!.until).toBeLessThan(ahead.getTime());
  });

  test('a machine that waits takes the Lease as soon as the holder releases it; waitMs 0 (the default) is refused at once', async () => {
    const order: string[] = [];
    const waits: string[] = [];
    const first = withLeaseLock(apis[0]!, opts('turns', 'cp-a', { durationSeconds: 60 }), async () => {
      order.push('a start');
      await sleep(1500);
      order.push('a end');
    });
    await sleep(300);
    const t0 = Date.now();
    const refused = await tsadmErrorOf(withLeaseLock(apis[1]!, opts('turns', 'cp-c', { durationSeconds: 60 }), () => Promise.resolve()));
    expect(refused.message).toContain('held by "cp-a"');
    expect(Date.now() - t0).toBeLessThan(1000);
    const second = withLeaseLock(apis[1]!, opts('turns', 'cp-b', { durationSeconds: 60, waitMs: 30_000, pollMs: 100, onWait: (who) => waits.push(who) }), () => {
      order.push('b start');
      return Promise.resolve();
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['a start', 'a end', 'b start']);
    expect(waits).toEqual(['cp-a']);
    // taken long before the 60 s Lease could have expired: the release let it go
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await readLease('turns')).spec.holderIdentity).toBeUndefined();
  });

  test('when the work fails the Lease is still released and the failure is what the caller sees', async () => {
    await expect(withLeaseLock(apis[0]!, opts('fails', 'cp-a'), () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect((await readLease('fails')).spec.holderIdentity).toBeUndefined();
  });

  test('a Lease taken over while the work ran is reported as lost, and the new holder keeps it', async () => {
    const o = opts('stolen', 'cp-a', { durationSeconds: 3, renewIntervalMs: 200 });
    const err = await tsadmErrorOf(withLeaseLock(apis[0]!, o, async () => {
      const now = new Date();
      await putLease('stolen', { holderIdentity: 'cp-thief', leaseDurationSeconds: 600, acquireTime: micro(now), renewTime: micro(now) });
      await sleep(800);
    }));
    expect(err.code).toBe('E_LOCKED');
    expect(err.message).toContain('lost the Lease kube-system/stolen');
    expect(err.message).toContain('"cp-thief"');
    expect((await readLease('stolen')).spec.holderIdentity).toBe('cp-thief');
  });
});
