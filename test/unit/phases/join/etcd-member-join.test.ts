/**
 * A joining control plane's etcd member (joinEtcdMember) against real etcd processes on loopback
 * with mutual TLS: the "manifest" the join writes is the etcd process started with the
 * --initial-cluster the join computed (what the kubelet does with etcd.yaml). Under
 * EtcdLearnerMode the member is a learner until promoted; a join killed between add and promote
 * converges on re-run; with the gate off (1.28's default) the member is a voter from the start.
 * Which minors turn the gate on comes from kubeadm's features.go of each minor (see the table).
 */
import { EtcdClient } from '../../../../src/etcd-client/client.js';
import { memberByPeerURL, type EtcdMember } from '../../../../src/etcd-client/members.js';
import { joinEtcdMember, learnerModeEnabled, type EtcdMemberJoin } from '../../../../src/phases/join/etcd-member-join.js';
import { memberIdHex } from '../../../../src/etcd-client/members.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { describeEachEtcd, etcdLab, type EtcdLab, type EtcdMemberProcess } from '../../../helpers/etcd-process.js';

describe('learnerModeEnabled: EtcdLearnerMode per minor (kubeadm features.go)', () => {
  const on = (minor: keyof typeof VERSION_TABLE, gates: Record<string, boolean> = {}): boolean => learnerModeEnabled(gates, VERSION_TABLE[minor]);

  test('no gate before 1.27: never a learner, whatever the config says', () => {
    expect(on('1.20')).toBe(false);
    expect(on('1.26', { EtcdLearnerMode: true })).toBe(false);
  });

  test('alpha in 1.27 and 1.28: off unless the gate is set', () => {
    expect(on('1.27')).toBe(false);
    expect(on('1.28')).toBe(false);
    expect(on('1.28', { EtcdLearnerMode: true })).toBe(true);
  });

  test('beta from 1.29: on unless the gate is set to false', () => {
    expect(on('1.29')).toBe(true);
    expect(on('1.31')).toBe(true);
    expect(on('1.31', { EtcdLearnerMode: false })).toBe(false);
  });

  test('GA (locked on) in 1.32, gate removed in 1.33: always a learner', () => {
    expect(on('1.32', { EtcdLearnerMode: false })).toBe(true);
    expect(on('1.33')).toBe(true);
    expect(on('1.34')).toBe(true);
  });
});


describeEachEtcd('joinEtcdMember on real etcd', (etcd) => {
  let lab: EtcdLab;
  let m1: EtcdMemberProcess;

  beforeAll(async () => {
    lab = await etcdLab(etcd.path);
    m1 = await lab.member('cp1');
    await lab.startSingle(m1);
  }, 60_000);

  afterAll(async () => {
    await lab?.close();
  }, 30_000);

  const client = async (): Promise<EtcdClient> => {
    const c = new EtcdClient([m1.client], { tls: lab.tls, callTimeoutMs: 60_000 });
    await c.sync();
    return c;
  };
  const list = async (): Promise<EtcdMember[]> => new EtcdClient([m1.client], { tls: lab.tls }).memberList();

  /** One join run; the manifest write starts the member's etcd (unless `start` is false: "killed" before the kubelet ran it). */
  function run(m: EtcdMemberProcess, learner: boolean, c: EtcdClient, seen: { atManifest?: EtcdMember | undefined; lines: string[] }, start = true): EtcdMemberJoin {
    return {
      client: c, nodeName: m.name, peerURL: m.peer, clientURL: m.client, learner, dryRun: false,
      log: { info: (l) => seen.lines.push(l), warn: (l) => seen.lines.push(`warn: ${l}`), debug: (l) => seen.lines.push(`debug: ${l}`) },
      health: { retries: 80, intervalMs: 250 },
      addWaitMs: 60_000,
      async writeManifest(initialCluster) {
        seen.atManifest = memberByPeerURL(await list(), m.peer);
        expect(initialCluster).toEqual(expect.arrayContaining([{ name: m.name, peerURL: m.peer }, { name: 'cp1', peerURL: m1.peer }]));
        if (start) lab.start(m, initialCluster.map((x) => `${x.name}=${x.peerURL}`).join(','), 'existing');
      },
    };
  }

  async function leave(m: EtcdMemberProcess): Promise<void> {
    const me = memberByPeerURL(await list(), m.peer);
    if (me) await (await client()).memberRemove(me.id, [m.client]);
    await lab.stop(m);
    expect((await list()).map((x) => x.peerURLs[0])).toEqual([m1.peer]);
  }

  test('EtcdLearnerMode on: added as a learner, manifest written, promoted once caught up, cluster available', async () => {
    const m2 = await lab.member('cp2');
    const seen: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    await joinEtcdMember(run(m2, true, await client(), seen));
    expect(seen.atManifest).toMatchObject({ isLearner: true, name: '' });
    const me = memberByPeerURL(await list(), m2.peer);
    expect(me).toMatchObject({ isLearner: false, name: 'cp2' });
    expect(seen.lines).toEqual(expect.arrayContaining([
      `debug: Adding etcd member as learner: ${m2.peer}`,
      'Announced new etcd member joining to the existing etcd cluster',
      'Creating static Pod manifest for "etcd"',
      `debug: Promoting a learner as a voting member: ${memberIdHex(me!.id)}`,
      `debug: The learner was promoted as a voting member: ${memberIdHex(me!.id)}`,
      'Waiting for the new etcd member to join the cluster. This can take up to 20s',
    ]));
    // kubeadm's order: add, manifest, promote, wait.
    const at = (l: string): number => seen.lines.findIndex((x) => x.startsWith(l));
    expect(at('Announced')).toBeLessThan(at('Creating static Pod'));
    expect(at('Creating static Pod')).toBeLessThan(at('debug: The learner was promoted'));
    expect(at('debug: The learner was promoted')).toBeLessThan(at('Waiting for the new etcd member'));
    await leave(m2);
  }, 90_000);

  test('crash between add and promote (etcd never started): the re-run finds the learner by peer URL, starts it and promotes it', async () => {
    const m3 = await lab.member('cp3');
    // First run: the learner is added and the manifest "written", then the join is killed before the kubelet starts etcd.
    const first: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    const killed = run(m3, true, await client(), first, false);
    await expect(joinEtcdMember({ ...killed, async writeManifest(ic) { await killed.writeManifest(ic); throw new Error('killed'); } })).rejects.toThrow('killed');
    const stranded = memberByPeerURL(await list(), m3.peer);
    expect(stranded).toMatchObject({ isLearner: true, name: '' });

    // Re-run (with the gate now off even): not added again, manifest written, the learner promoted.
    const again: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    await joinEtcdMember(run(m3, false, await client(), again));
    expect(again.lines).toContain(`etcd member ${m3.peer} is already part of the cluster as a learner; it is promoted once it has caught up; not adding it again`);
    expect(again.lines.some((l) => l.startsWith('Announced'))).toBe(false);
    const members = await list();
    expect(members).toHaveLength(2);
    expect(memberByPeerURL(members, m3.peer)).toMatchObject({ id: stranded!.id, isLearner: false, name: 'cp3' });
    expect(again.lines).toContain(`debug: The learner was promoted as a voting member: ${memberIdHex(stranded!.id)}`);
    await leave(m3);
  }, 90_000);

  test('crash after the learner started, before promote: the re-run promotes it; a third run has nothing to do', async () => {
    const m4 = await lab.member('cp4');
    const c = await client();
    const { members } = await c.memberAdd(m4.peer, { learner: true });
    lab.start(m4, members.map((x) => `${x.name || 'cp4'}=${x.peerURLs[0]}`).join(','), 'existing');
    const rerun: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    // The manifest of the re-run would restart the same etcd: here it is already running.
    await joinEtcdMember(run(m4, true, await client(), rerun, false));
    expect(memberByPeerURL(await list(), m4.peer)).toMatchObject({ isLearner: false });
    const third: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    await joinEtcdMember(run(m4, true, await client(), third, false));
    expect(third.lines.some((l) => l.includes('Promoting'))).toBe(false);
    expect(third.lines).toContain(`etcd member ${m4.peer} is already part of the cluster; not adding it again`);
    await leave(m4);
  }, 90_000);

  test('a learner that never comes up: the join fails after timeouts.etcdAPICall saying how to go on; the member stays a non-voting learner', async () => {
    const m7 = await lab.member('cp7');
    const c = new EtcdClient([m1.client], { tls: lab.tls, callTimeoutMs: 1500 });
    await c.sync();
    const seen: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    const t0 = Date.now();
    const err = await joinEtcdMember(run(m7, true, c, seen, false)).catch((e: unknown) => e) as { message: string; hint?: string };
    expect(Date.now() - t0).toBeLessThan(6000);
    const me = memberByPeerURL(await list(), m7.peer);
    expect(err.message).toBe(`failed to promote the etcd learner ${memberIdHex(me!.id)} (${m7.peer}) to a voting member: `
      + `etcdserver: can only promote a learner member which is in sync with leader (gave up after 1.5s, timeouts.etcdAPICall) (${m1.client})`);
    expect(err.hint).toMatch(/running the join again promotes the learner, `tsadm reset` removes it/);
    expect(seen.lines).toContain(`debug: Promoting the learner ${memberIdHex(me!.id)} failed: not in sync with the leader yet; trying again`);
    expect(me).toMatchObject({ isLearner: true });
    await leave(m7);
  }, 60_000);

  test('EtcdLearnerMode off (1.28 default): the member is a voter from the add on, nothing to promote', async () => {
    expect(learnerModeEnabled({}, VERSION_TABLE['1.28'])).toBe(false);
    const m5 = await lab.member('cp5');
    const seen: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    await joinEtcdMember(run(m5, learnerModeEnabled({}, VERSION_TABLE['1.28']), await client(), seen));
    expect(seen.atManifest).toMatchObject({ isLearner: false, name: '' });
    expect(seen.lines).toContain(`debug: Adding etcd member: ${m5.peer}`);
    expect(seen.lines.some((l) => l.includes('Promoting'))).toBe(false);
    expect(memberByPeerURL(await list(), m5.peer)).toMatchObject({ isLearner: false, name: 'cp5' });
    await leave(m5);
  }, 90_000);

  test('a voting member down: the join says which one and why it waits (etcd adds no member then), and goes on once that member is back', async () => {
    const [m8, m9, m10] = [await lab.member('cp8'), await lab.member('cp9'), await lab.member('cp10')];
    let cluster8 = '';
    let cluster9 = '';
    await joinEtcdMember({ ...run(m8, false, await client(), { lines: [] }), writeManifest: (ic) => { cluster8 = ic.map((x) => `${x.name}=${x.peerURL}`).join(','); lab.start(m8, cluster8, 'existing'); return Promise.resolve(); } });
    await joinEtcdMember({ ...run(m9, false, await client(), { lines: [] }), writeManifest: (ic) => { cluster9 = ic.map((x) => `${x.name}=${x.peerURL}`).join(','); lab.start(m9, cluster9, 'existing'); return Promise.resolve(); } });
    // Both joined members have started (published their names): etcd counts them as started voters.
    expect((await list()).map((x) => x.name).sort()).toEqual(['cp1', 'cp8', 'cp9']);
    await lab.stop(m9);
    const seen: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    // cp9 comes back (its machine restarted) while cp10's join waits.
    const back = new Promise<void>((resolve) => setTimeout(() => { lab.start(m9, cluster9, 'existing'); resolve(); }, 4000));
    const t0 = Date.now();
    await joinEtcdMember(run(m10, false, await client(), seen));
    await back;
    expect(Date.now() - t0).toBeGreaterThan(4000);
    expect(seen.lines).toContain(`warn: etcd member "cp9" (${m9.client}) does not answer: etcd adds no member while a voting member is unreachable; `
      + 'waiting up to 1m0s for it to return. If that control plane is lost for good, run `tsadm etcd remove-member cp9` on a healthy control plane');
    expect((await list()).map((x) => x.name).sort()).toEqual(['cp1', 'cp10', 'cp8', 'cp9']);
    const c = await client();
    for (const m of [m10, m9, m8]) {
      const me = memberByPeerURL(await list(), m.peer);
      if (me) await c.memberRemove(me.id, [m.client]);
      await lab.stop(m);
    }
    expect((await list()).map((x) => x.peerURLs[0])).toEqual([m1.peer]);
  }, 150_000);

  test('dry-run: nothing added, the plan names the learner', async () => {
    const m6 = await lab.member('cp6');
    const seen: { atManifest?: EtcdMember | undefined; lines: string[] } = { lines: [] };
    await joinEtcdMember({ ...run(m6, true, await client(), seen, false), dryRun: true });
    expect(seen.lines).toEqual(expect.arrayContaining([
      `Would add etcd member as a learner: ${m6.peer}`,
      'Would promote the new etcd member once it has caught up, and wait for it to join the cluster',
    ]));
    expect(await list()).toHaveLength(1);
  });
});
