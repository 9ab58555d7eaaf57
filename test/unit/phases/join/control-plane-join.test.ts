import { etcdJoinVerdict } from '../../../../src/phases/join/control-plane-join.js';
import { parseMembers } from '../../../../src/etcd-client/members.js';

/** check-etcd's verdict from the member list and each endpoint's status (real runs: test/e2e/ha.e2e.test.ts). */
describe('check-etcd: may a control plane join?', () => {
  const members = parseMembers({
    members: [
      { ID: '1', name: 'cp1', peerURLs: ['https://10.0.0.1:2380'], clientURLs: ['https://10.0.0.1:2379'] },
      { ID: '2', name: 'cp2', peerURLs: ['https://10.0.0.2:2380'], clientURLs: ['https://10.0.0.2:2379'] },
      { ID: '3', name: 'cp3', peerURLs: ['https://10.0.0.3:2380'], clientURLs: ['https://10.0.0.3:2379'] },
    ],
  });
  const up = (n: number, leader = '1') => ({ endpoint: `https://10.0.0.${n}:2379`, ok: true, leader });
  const down = (n: number) => ({ endpoint: `https://10.0.0.${n}:2379`, ok: false, error: 'connect EHOSTUNREACH' });

  test('two of three answer with one leader: the join goes on, naming the absent member and the way out', () => {
    expect(etcdJoinVerdict(members, [up(1), down(2), up(3)])).toEqual({
      ok: true,
      warnings: ['etcd member "cp2" (https://10.0.0.2:2379) does not answer; 2 of 3 members do, so this join goes on, '
        + 'but etcd adds this node\'s member only once "cp2" is back or removed (`tsadm etcd remove-member cp2` on a healthy control plane)'],
    });
  });

  test('one of three answers (no quorum), or members disagree on the leader: refused', () => {
    expect(etcdJoinVerdict(members, [up(1), down(2), down(3)]).ok).toBe(false);
    expect(etcdJoinVerdict(members, [up(1, '1'), up(2, '2'), down(3)]).ok).toBe(false);
    expect(etcdJoinVerdict(members, [up(1, '0'), up(2, '0'), up(3, '0')]).ok).toBe(false);
  });

  test('a member another control plane has just added (not started, no client URL) does not block: it is named as joining', () => {
    const joining = parseMembers({ members: [
      { ID: '1', name: 'cp1', peerURLs: ['https://10.0.0.1:2380'], clientURLs: ['https://10.0.0.1:2379'] },
      { ID: '3735928559', peerURLs: ['https://10.0.0.2:2380'] },
      { ID: '3', name: 'cp3', peerURLs: ['https://10.0.0.3:2380'], clientURLs: ['https://10.0.0.3:2379'] },
    ] });
    expect(etcdJoinVerdict(joining, [up(1), up(3)]).warnings).toEqual(['etcd member deadbeef (https://10.0.0.2:2380) has not started yet: another control plane is joining; this join goes on']);
  });

  test('a learner is not counted in the quorum', () => {
    const withLearner = parseMembers({ members: [
      { ID: '1', name: 'cp1', peerURLs: ['https://10.0.0.1:2380'], clientURLs: ['https://10.0.0.1:2379'] },
      { ID: '2', name: 'cp2', peerURLs: ['https://10.0.0.2:2380'], clientURLs: ['https://10.0.0.2:2379'], isLearner: true },
    ] });
    expect(etcdJoinVerdict(withLearner, [up(1), down(2)])).toEqual({ ok: true, warnings: [] });
  });
});
