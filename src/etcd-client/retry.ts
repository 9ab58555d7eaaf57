/**
 * When an etcd call tries again, as data (pure). Two shapes:
 * - 'attempts': a fixed number of tries with a doubling delay (tsadm's default for a client built
 *   without a time bound);
 * - 'deadline': kubeadm's wait.PollUntilContextTimeout(EtcdAPICallRetryInterval = 500 ms,
 *   timeouts.etcdAPICall) of util/etcd/etcd.go (1.30 with the constant 2 min, 1.31+ with the v1beta4
 *   field): try, then every interval, until the time bound; no try starts past it.
 */
export type EtcdRetryPolicy =
  | { readonly kind: 'attempts'; readonly attempts: number; readonly initialDelayMs: number; readonly maxDelayMs: number }
  | { readonly kind: 'deadline'; readonly timeoutMs: number; readonly intervalMs: number };

/** kubeadm's constants.EtcdAPICallRetryInterval. */
export const ETCD_API_CALL_RETRY_INTERVAL_MS = 500;

/**
 * The delay before the next try, or undefined when the call gives up. `attempt` counts the tries
 * made so far (1 after the first), `elapsedMs` the time since the first began.
 */
export function nextRetryDelay(policy: EtcdRetryPolicy, attempt: number, elapsedMs: number): number | undefined {
  if (policy.kind === 'attempts') {
    if (attempt >= policy.attempts) return undefined;
    return Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  }
  if (elapsedMs + policy.intervalMs >= policy.timeoutMs) return undefined;
  return policy.intervalMs;
}

/**
 * How long one request of a try may take: the client's per-request timeout, cut to what is left
 * of the call's time bound (at least 100 ms, so a last try can still connect on loopback).
 */
export function requestBudgetMs(policy: EtcdRetryPolicy, requestTimeoutMs: number, elapsedMs: number): number {
  if (policy.kind === 'attempts') return requestTimeoutMs;
  return Math.max(100, Math.min(requestTimeoutMs, policy.timeoutMs - elapsedMs));
}

/** etcd's answer to a MemberPromote of a learner that has not caught up with the leader yet (ErrMemberLearnerNotReady). */
export const LEARNER_NOT_READY = 'etcdserver: can only promote a learner member which is in sync with leader';

export function isLearnerNotReady(err: unknown): boolean {
  return err instanceof Error && err.message.includes(LEARNER_NOT_READY);
}

/** etcd's answer to a MemberAdd of a peer URL some member already has (ErrPeerURLExist). */
export function isPeerURLExists(err: unknown): boolean {
  return err instanceof Error && err.message.includes('etcdserver: Peer URLs already exists');
}

/**
 * etcd's answer to a MemberAdd whose new member ID some member already has (ErrMemberExist).
 * etcd derives a new member's ID from its peer URLs and the current time in whole seconds, so an
 * add of the same peer URL within the same second as one that was applied (a retry after a lost
 * answer) meets this, not "Peer URLs already exists" (seen with etcd 3.4.23 and 3.5.30).
 */
export function isMemberIDExists(err: unknown): boolean {
  return err instanceof Error && err.message.includes('etcdserver: member ID already exist');
}
