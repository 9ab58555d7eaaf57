/**
 * The etcd client against real etcd processes (mutual TLS on loopback): list, status, add a
 * member and start it with the --initial-cluster the client computed, wait for the cluster,
 * remove the member again; add a learner, see etcd refuse to promote it until it has started and
 * caught up, promote it; calls bounded by timeouts.etcdAPICall give up in time — plus the refusals
 * (unknown member, foreign client certificate).
 */
import { EtcdClient } from '../../../src/etcd-client/client.js';
import { LEARNER_NOT_READY } from '../../../src/etcd-client/retry.js';
import { EtcdRequestError, postJson, type EtcdTls } from '../../../src/etcd-client/transport.js';
import { initialClusterFor, memberByPeerURL } from '../../../src/etcd-client/members.js';
import { issue, makeCA } from '../../helpers/tls-fixtures.js';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { describeEachEtcd, etcdLab, freePort, type EtcdLab, type EtcdMemberProcess } from '../../helpers/etcd-process.js';


describeEachEtcd('etcd client on real etcd', (etcd) => {
  let lab: EtcdLab;
  let tls: EtcdTls;
  let foreignTls: EtcdTls;
  let m1: EtcdMemberProcess;
  let m2: EtcdMemberProcess;

  beforeAll(async () => {
    lab = await etcdLab(etcd.path);
    tls = lab.tls;
    const foreign = await issue(await makeCA('other'), 'intruder', { ips: [], dns: [], usages: ['clientAuth'] });
    foreignTls = { ca: lab.ca.pem, cert: foreign.certPem, key: foreign.keyPem };
    m1 = await lab.member('e1');
    m2 = await lab.member('e2');
    await lab.startSingle(m1);
  }, 60_000);

  afterAll(async () => {
    await lab?.close();
  }, 30_000);

  test('lists the member with its uint64 id as a string, and reports status', async () => {
    const c = new EtcdClient([m1.client], { tls });
    const members = await c.memberList();
    expect(members).toHaveLength(1);
    expect(members[0]).toMatchObject({ name: 'e1', peerURLs: [m1.peer], clientURLs: [m1.client], isLearner: false });
    expect(members[0]?.id).toMatch(/^\d+$/);
    const status = await c.status(m1.client);
    expect(status).toMatchObject({ ok: true, memberId: members[0]?.id, leader: members[0]?.id });
    // The server is the binary this suite is for (its own `etcd --version`).
    expect(status.version).toBe(etcd.version);
  });

  test('a client certificate from another CA is refused by etcd', async () => {
    const c = new EtcdClient([m1.client], { tls: foreignTls, attempts: 1 });
    await expect(c.memberList()).rejects.toBeInstanceOf(EtcdRequestError);
    expect((await c.status(m1.client)).ok).toBe(false);
  });

  test('add a member, start it with the computed initial cluster, wait until available, then remove it', async () => {
    const c = new EtcdClient([m1.client], { tls });
    await c.sync();
    const { added, members } = await c.memberAdd(m2.peer);
    expect(added.peerURLs).toEqual([m2.peer]);
    expect(members).toHaveLength(2);
    const initial = initialClusterFor(members, m2.peer, 'e2');
    expect(initial).toEqual(expect.arrayContaining([{ name: 'e1', peerURL: m1.peer }, { name: 'e2', peerURL: m2.peer }]));
    lab.start(m2, initial.map((m) => `${m.name}=${m.peerURL}`).join(','), 'existing');
    c.addEndpoint(m2.client);
    const statuses = await c.waitForClusterAvailable(80, 250);
    expect(statuses.map((s) => s.endpoint).sort()).toEqual([m1.client, m2.client].sort());
    const both = await c.sync();
    expect(both.map((m) => m.name).sort()).toEqual(['e1', 'e2']);
    expect(c.endpoints.slice().sort()).toEqual([m1.client, m2.client].sort());

    const me = memberByPeerURL(both, m2.peer);
    expect(me).toBeDefined();
    const remaining = await c.memberRemove(me!.id, [m2.client]);
    expect(remaining.map((m) => m.name)).toEqual(['e1']);
    await lab.stop(m2);
    expect((await new EtcdClient([m1.client], { tls }).memberList()).map((m) => m.name)).toEqual(['e1']);
  }, 60_000);

  test('removing an unknown member is etcd\'s "member not found", not retried', async () => {
    const sleeps: number[] = [];
    const c = new EtcdClient([m1.client], { tls, sleep: (ms) => { sleeps.push(ms); return Promise.resolve(); } });
    const err = await c.memberRemove('12345').catch((e: unknown) => e) as EtcdRequestError;
    expect(err).toBeInstanceOf(EtcdRequestError);
    expect(err.message).toBe('etcdserver: member not found');
    expect(err.grpcCode).toBe(5);
    expect(sleeps).toEqual([]);
  });

  test('an unreachable endpoint is skipped for a live one; none live fails within the retry budget', async () => {
    const dead = `https://127.0.0.1:${await freePort()}`;
    expect((await new EtcdClient([dead, m1.client], { tls }).memberList()).length).toBe(1);
    const sleeps: number[] = [];
    const c = new EtcdClient([dead], { tls, attempts: 3, retryDelayMs: 10, sleep: (ms) => { sleeps.push(ms); return Promise.resolve(); } });
    await expect(c.memberAdd('https://127.0.0.1:1')).rejects.toThrow(/ECONNREFUSED/);
    expect(sleeps).toEqual([10, 20]);
  });

  test('a learner: added as non-voting, promotion refused until it has started and caught up, then a voter; removable', async () => {
    const m3 = await lab.member('e3');
    const c = new EtcdClient([m1.client], { tls, callTimeoutMs: 60_000 });
    await c.sync();
    const { added, members } = await c.memberAdd(m3.peer, { learner: true });
    expect(added).toMatchObject({ peerURLs: [m3.peer], isLearner: true, name: '' });
    expect(memberByPeerURL(await c.memberList(), m3.peer)?.isLearner).toBe(true);

    // Not started: etcd refuses the promotion ("not in sync"), tried every 50 ms until the 1.5 s bound.
    const refusals: string[] = [];
    const short = new EtcdClient([m1.client], { tls, callTimeoutMs: 1500, pollIntervalMs: 50 });
    const t0 = Date.now();
    const err = await short.memberPromote(added.id, (e) => refusals.push((e as Error).message)).catch((e: unknown) => e) as EtcdRequestError;
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(err).toBeInstanceOf(EtcdRequestError);
    expect(err.message).toBe(`${LEARNER_NOT_READY} (gave up after 1.5s, timeouts.etcdAPICall)`);
    expect(refusals.length).toBeGreaterThan(3);
    // Every try was refused as not in sync; only the last, cut short by the bound, may have had no
    // answer in time on a loaded machine (the error then still reports etcd's refusal, below).
    const [lastRefusal, ...before] = [...refusals].reverse();
    expect(new Set(before)).toEqual(new Set([LEARNER_NOT_READY]));
    expect(lastRefusal).toMatch(new RegExp(`^(${LEARNER_NOT_READY}|no answer within \\d+ ms)$`));

    lab.start(m3, initialClusterFor(members, m3.peer, 'e3').map((m) => `${m.name}=${m.peerURL}`).join(','), 'existing');
    const promoted = await c.memberPromote(added.id);
    expect(promoted.promoted).toBe(true);
    const after = await c.memberList();
    expect(memberByPeerURL(after, m3.peer)).toMatchObject({ isLearner: false, name: 'e3' });
    // Promoting a voter again is a no-op, as kubeadm's MemberPromote ("already promoted").
    expect((await c.memberPromote(added.id)).promoted).toBe(false);
    c.addEndpoint(m3.client);
    await c.waitForClusterAvailable(80, 250);

    await c.memberRemove(added.id, [m3.client]);
    await lab.stop(m3);
    expect((await new EtcdClient([m1.client], { tls }).memberList()).map((m) => m.name)).toEqual(['e1']);
  }, 90_000);

  test('adding a peer URL that is already a member answers that member: etcd\'s "member ID already exist" within the same second, "Peer URLs already exists" after it', async () => {
    const m5 = await lab.member('e5');
    const c = new EtcdClient([m1.client], { tls });
    const add = (): Promise<unknown> => postJson(m1.client, '/v3/cluster/member/add', { peerURLs: [m5.peer], isLearner: true }, tls, 10_000);
    // Just after a second starts, so that the first add and the next ones share it.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const second = Math.floor(Date.now() / 1000);
    const first = await c.memberAdd(m5.peer, { learner: true });
    const sameSecond = await add().then(() => undefined, (e: unknown) => e) as EtcdRequestError;
    const again = await c.memberAdd(m5.peer, { learner: true });
    // (All three within that second: else this case did not happen.)
    expect(Math.floor(Date.now() / 1000)).toBe(second);
    expect(sameSecond).toBeInstanceOf(EtcdRequestError);
    expect([sameSecond.message, sameSecond.grpcCode]).toEqual(['etcdserver: member ID already exist', 9]);
    expect(again.added).toMatchObject({ id: first.added.id, peerURLs: [m5.peer], isLearner: true });
    expect(again.members.map((m) => m.id).sort()).toEqual(first.members.map((m) => m.id).sort());
    // A second later the ID differs and etcd names the peer URL; the client answers the same.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const later = await add().then(() => undefined, (e: unknown) => e) as EtcdRequestError;
    expect([later.message, later.grpcCode]).toEqual(['etcdserver: Peer URLs already exists', 9]);
    expect((await c.memberAdd(m5.peer, { learner: true })).added.id).toBe(first.added.id);
    await c.memberRemove(first.added.id);
    expect((await c.memberList()).map((m) => m.name)).toEqual(['e1']);
  });

  test('promoting a member that does not exist is "member not found" at once', async () => {
    const c = new EtcdClient([m1.client], { tls, callTimeoutMs: 60_000 });
    const t0 = Date.now();
    await expect(c.memberPromote('12345')).rejects.toThrow(/member not found/);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  test('with timeouts.etcdAPICall, a call to a stopped etcd keeps trying every 500 ms and gives up after the bound', async () => {
    const dead = `https://127.0.0.1:${await freePort()}`;
    const sleeps: number[] = [];
    const c = new EtcdClient([dead], { tls, callTimeoutMs: 1200, sleep: (ms) => { sleeps.push(ms); return new Promise((r) => setTimeout(r, ms)); } });
    const t0 = Date.now();
    const err = await c.memberList().catch((e: unknown) => e) as EtcdRequestError;
    const took = Date.now() - t0;
    expect(err).toBeInstanceOf(EtcdRequestError);
    expect(err.message).toMatch(/ECONNREFUSED.*\(gave up after 1\.2s, timeouts\.etcdAPICall\)$/);
    // Tries at 0, 0.5 and 1 s; a fourth would start at 1.5 s, past the bound.
    expect(sleeps).toEqual([500, 500]);
    expect(took).toBeGreaterThanOrEqual(1000);
    expect(took).toBeLessThan(1200 + 1000);
    await expect(c.memberAdd('https://127.0.0.1:1', { learner: true })).rejects.toThrow(/gave up after 1\.2s/);
    await expect(c.memberRemove('1')).rejects.toThrow(/gave up after 1\.2s/);
  }, 20_000);
});

/**
 * What a call reports when its last try, cut short by timeouts.etcdAPICall, hears nothing. Real etcd
 * cannot be made to fall silent at a chosen try, so this one error path uses a stand-in gateway
 * (HTTPS on loopback, answering as etcd's gateway does): it lists one learner, refuses the first
 * REFUSALS promotions as not in sync, then never answers. The call's clock is the test's (it moves
 * only with the pauses between tries), so which try is cut short does not depend on the machine.
 */
describe('a call whose last try is cut short and unanswered (stand-in etcd gateway)', () => {
  let server: https.Server;
  let endpoint: string;
  let tls: EtcdTls;
  let refusals = 0;
  let promotes = 0;
  const held: { destroy(): void }[] = [];

  beforeAll(async () => {
    const ca = await makeCA('etcd-ca');
    const serving = await issue(ca, 'etcd', { ips: ['127.0.0.1'], usages: ['serverAuth'] });
    const client = await issue(ca, 'client', { usages: ['clientAuth'] });
    tls = { ca: ca.pem, cert: client.certPem, key: client.keyPem };
    server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/v3/cluster/member/list') {
          res.end(JSON.stringify({ members: [{ ID: '7', name: '', peerURLs: ['https://127.0.0.1:2380'], isLearner: true }] }));
        } else if (++promotes <= refusals) {
          res.writeHead(400);
          res.end(JSON.stringify({ error: LEARNER_NOT_READY, message: LEARNER_NOT_READY, code: 9 }));
        } else {
          held.push(res.socket!); // silent
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise((r) => server.close(r));
  });

  /** A client on the test's clock: each pause moves it; the pause itself is immediate. */
  function client(opts: { callTimeoutMs: number; requestTimeoutMs?: number; refuse: number }): { c: EtcdClient; seen: string[] } {
    refusals = opts.refuse;
    promotes = 0;
    let clock = 0;
    const c = new EtcdClient([endpoint], {
      tls, callTimeoutMs: opts.callTimeoutMs, pollIntervalMs: 500, now: () => clock,
      sleep: (ms) => { clock += ms; return Promise.resolve(); },
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
    });
    return { c, seen: [] };
  }

  test('etcd\'s last answer is reported, not "no answer within …" (tries at 0, 0.5 and 1 s; the last may take only 0.5 s)', async () => {
    const { c, seen } = client({ callTimeoutMs: 1500, refuse: 2 });
    const err = await c.memberPromote('7', (e) => seen.push((e as Error).message)).catch((e: unknown) => e) as EtcdRequestError;
    expect(seen).toEqual([LEARNER_NOT_READY, LEARNER_NOT_READY, 'no answer within 500 ms']);
    expect(err).toBeInstanceOf(EtcdRequestError);
    expect([err.message, err.grpcCode]).toEqual([`${LEARNER_NOT_READY} (gave up after 1.5s, timeouts.etcdAPICall)`, 9]);
  });

  test('a call that never heard etcd reports the time that ran out', async () => {
    // Tries at 0 and 0.5 s of a 1 s call: the second may take only the 0.5 s left. (Not a 0.6 s
    // call, whose last try gets the 100 ms floor: under a loaded CI machine the member list that
    // opens each try, a new TLS connection, once took longer than that, and the try never reached
    // the promote this test is about.)
    const { c, seen } = client({ callTimeoutMs: 1000, refuse: 0 });
    const err = await c.memberPromote('7', (e) => seen.push((e as Error).message)).catch((e: unknown) => e) as EtcdRequestError;
    expect(seen).toEqual(['no answer within 1000 ms', 'no answer within 500 ms']);
    expect(err.message).toMatch(/^no answer within 500 ms \(gave up after .+, timeouts\.etcdAPICall\)$/);
  });

  test('a last try that had its whole time and got no answer is what is reported, even after a refusal', async () => {
    // 300 ms per request, tries at 0, 0.5, 1 and 1.5 s of a 2 s call: each has its whole 300 ms.
    const { c, seen } = client({ callTimeoutMs: 2000, requestTimeoutMs: 300, refuse: 1 });
    const err = await c.memberPromote('7', (e) => seen.push((e as Error).message)).catch((e: unknown) => e) as EtcdRequestError;
    expect(seen).toEqual([LEARNER_NOT_READY, 'no answer within 300 ms', 'no answer within 300 ms', 'no answer within 300 ms']);
    expect(err.message).toBe('no answer within 300 ms (gave up after 2s, timeouts.etcdAPICall)');
  });
});
