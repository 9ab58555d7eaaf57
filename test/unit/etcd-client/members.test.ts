import { clientEndpoints, initialClusterFor, memberByPeerURL, memberIdHex, parseMembers, quorumOf } from '../../../src/etcd-client/members.js';
import { etcdClientURL, etcdPeerURL } from '../../../src/etcd-client/urls.js';

/** The gateway's answer to MemberAdd right after adding cp2 (captured from etcd 3.4.23). */
const ADD_ANSWER = {
  header: { cluster_id: '14881547697142661360', member_id: '4301148627022507964', raft_term: '4' },
  member: { ID: '15795064964672239865', peerURLs: ['https://10.250.0.23:2380'] },
  members: [
    { ID: '4301148627022507964', name: 'cp1', peerURLs: ['https://10.250.0.21:2380'], clientURLs: ['https://10.250.0.21:2379'] },
    { ID: '15795064964672239865', peerURLs: ['https://10.250.0.23:2380'] },
  ],
};

test('ids stay exact decimal strings (they do not fit a JS number)', () => {
  const members = parseMembers(ADD_ANSWER);
  expect(members.map((m) => m.id)).toEqual(['4301148627022507964', '15795064964672239865']);
  expect(Number(members[1]?.id).toString()).not.toBe(members[1]?.id);
  expect(members[1]).toEqual({ id: '15795064964672239865', name: '', peerURLs: ['https://10.250.0.23:2380'], clientURLs: [], isLearner: false });
});

test('the new member gets the node name in --initial-cluster (it has none until it starts)', () => {
  const members = parseMembers(ADD_ANSWER);
  expect(initialClusterFor(members, 'https://10.250.0.23:2380', 'cp2')).toEqual([
    { name: 'cp1', peerURL: 'https://10.250.0.21:2380' },
    { name: 'cp2', peerURL: 'https://10.250.0.23:2380' },
  ]);
  expect(memberByPeerURL(members, 'https://10.250.0.23:2380')?.id).toBe('15795064964672239865');
  expect(memberByPeerURL(members, 'https://10.250.0.99:2380')).toBeUndefined();
  expect(clientEndpoints(members)).toEqual(['https://10.250.0.21:2379']);
});

test('member IDs are printed in hex, as kubeadm (strconv.FormatUint(id, 16))', () => {
  expect(memberIdHex('18446744073709551615')).toBe('ffffffffffffffff');
  expect(memberIdHex('3735928559')).toBe('deadbeef');
});

test('control planes joining at once: another member that has not started yet is named by its ID in hex (two nameless entries would merge into one)', () => {
  // cp3 adds its member while cp2's, added a moment before, has not started (no name yet).
  const members = parseMembers({
    members: [
      { ID: '4301148627022507964', name: 'cp1', peerURLs: ['https://10.250.0.21:2380'], clientURLs: ['https://10.250.0.21:2379'] },
      { ID: '15795064964672239865', peerURLs: ['https://10.250.0.22:2380'] },
      { ID: '3735928559', peerURLs: ['https://10.250.0.23:2380'] },
    ],
  });
  expect(initialClusterFor(members, 'https://10.250.0.23:2380', 'cp3')).toEqual([
    { name: 'cp1', peerURL: 'https://10.250.0.21:2380' },
    { name: 'db3357e64781b8f9', peerURL: 'https://10.250.0.22:2380' },
    { name: 'cp3', peerURL: 'https://10.250.0.23:2380' },
  ]);
});

test('quorum: a majority of the voting members; learners do not count', () => {
  const m = (n: number, learners = 0) => parseMembers({ members: Array.from({ length: n + learners }, (_, i) => ({ ID: String(i + 1), isLearner: i >= n })) });
  expect([1, 2, 3, 4, 5].map((n) => quorumOf(m(n)))).toEqual([1, 2, 2, 3, 3]);
  expect(quorumOf(m(3, 1))).toBe(2);
});

test('URLs as kubeadm builds them', () => {
  expect(etcdClientURL('10.0.0.1')).toBe('https://10.0.0.1:2379');
  expect(etcdPeerURL('fd00::1')).toBe('https://[fd00::1]:2380');
});
