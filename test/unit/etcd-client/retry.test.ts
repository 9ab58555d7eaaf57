/**
 * The retry decisions of the etcd client (pure): a fixed number of doubling tries, or kubeadm's
 * poll every 500 ms within timeouts.etcdAPICall; and etcd's two answers the join looks for.
 */
import {
  ETCD_API_CALL_RETRY_INTERVAL_MS, LEARNER_NOT_READY, isLearnerNotReady, isMemberIDExists, isPeerURLExists, nextRetryDelay, requestBudgetMs, type EtcdRetryPolicy,
} from '../../../src/etcd-client/retry.js';
import { EtcdRequestError } from '../../../src/etcd-client/transport.js';

const attempts: EtcdRetryPolicy = { kind: 'attempts', attempts: 4, initialDelayMs: 500, maxDelayMs: 1500 };
const deadline: EtcdRetryPolicy = { kind: 'deadline', timeoutMs: 2000, intervalMs: ETCD_API_CALL_RETRY_INTERVAL_MS };

test('attempts: doubling delays capped at the maximum, none after the last try, whatever the time', () => {
  expect([1, 2, 3, 4].map((a) => nextRetryDelay(attempts, a, 0))).toEqual([500, 1000, 1500, undefined]);
  expect(nextRetryDelay(attempts, 1, 10 * 60_000)).toBe(500);
  expect(requestBudgetMs(attempts, 10_000, 10 * 60_000)).toBe(10_000);
});

test('deadline: a try every 500 ms (kubeadm EtcdAPICallRetryInterval) while the next one would still start in time', () => {
  expect(ETCD_API_CALL_RETRY_INTERVAL_MS).toBe(500);
  expect(nextRetryDelay(deadline, 1, 0)).toBe(500);
  expect(nextRetryDelay(deadline, 50, 1499)).toBe(500);
  expect(nextRetryDelay(deadline, 2, 1500)).toBeUndefined();
  expect(nextRetryDelay(deadline, 2, 2500)).toBeUndefined();
});

test('deadline: one request may take what is left of the bound, at least 100 ms, at most the per-request timeout', () => {
  expect(requestBudgetMs(deadline, 10_000, 0)).toBe(2000);
  expect(requestBudgetMs(deadline, 10_000, 1200)).toBe(800);
  expect(requestBudgetMs(deadline, 10_000, 1990)).toBe(100);
  expect(requestBudgetMs({ kind: 'deadline', timeoutMs: 120_000, intervalMs: 500 }, 10_000, 0)).toBe(10_000);
});

test('etcd\'s "learner not in sync" and "peer URL exists" answers are recognised by their text', () => {
  expect(isLearnerNotReady(new EtcdRequestError(LEARNER_NOT_READY, 'https://127.0.0.1:2379', 9))).toBe(true);
  expect(isLearnerNotReady(new EtcdRequestError('etcdserver: can only promote a learner member', 'e', 9))).toBe(false);
  expect(isPeerURLExists(new EtcdRequestError('etcdserver: Peer URLs already exists', 'e', 9))).toBe(true);
  expect(isPeerURLExists(new Error('connect ECONNREFUSED'))).toBe(false);
  // etcd's rpctypes.ErrGRPCMemberExist (FailedPrecondition); client.test.ts meets it on real etcd.
  expect(isMemberIDExists(new EtcdRequestError('etcdserver: member ID already exist', 'e', 9))).toBe(true);
  expect(isMemberIDExists(new EtcdRequestError('etcdserver: Peer URLs already exists', 'e', 9))).toBe(false);
  expect(isLearnerNotReady('not an error')).toBe(false);
});
