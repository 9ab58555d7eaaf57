import { isTransient } from './errors.js';

/** Exponential backoff for transient API failures, bounded by a deadline. */
export interface RetryPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
  /** Stop retrying once this much time has passed since the first attempt. */
  readonly deadlineMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { initialDelayMs: 250, maxDelayMs: 5000, factor: 2, deadlineMs: 60_000 };
export const NO_RETRY: RetryPolicy = { initialDelayMs: 0, maxDelayMs: 0, factor: 1, deadlineMs: 0 };

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` until it succeeds, fails with a non-transient error, or the deadline passes.
 * The last wait is cut short so that one more attempt lands on the deadline: a caller given
 * "retry for 1 s" is never told "unreachable" after 0.6 s because the next full backoff step would
 * have overrun it (kubeadm's polls likewise run until their timeout, not until the step before it).
 */
export async function withRetry<T>(
  fn: () => Promise<T>,
  policy: RetryPolicy,
  opts: { sleep?: Sleep; now?: () => number; onRetry?: (err: unknown, delayMs: number) => void; retryIf?: (err: unknown) => boolean } = {},
): Promise<T> {
  const sleep = opts.sleep ?? realSleep;
  const now = opts.now ?? Date.now;
  const retryIf = opts.retryIf ?? isTransient;
  const start = now();
  let delay = policy.initialDelayMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      const remaining = policy.deadlineMs - (now() - start);
      if (!retryIf(err) || remaining <= 0) throw err;
      const wait = Math.min(delay, remaining);
      opts.onRetry?.(err, wait);
      await sleep(wait);
      delay = Math.min(policy.maxDelayMs, Math.max(1, delay * policy.factor));
    }
  }
}
