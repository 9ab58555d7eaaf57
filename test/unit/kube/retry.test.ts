/**
 * withRetry on a fake clock: the deadline is honoured from both sides. It never gives up before
 * the deadline (the last wait is cut so one attempt lands on it) and never sleeps past it.
 */
import { NO_RETRY, withRetry, type RetryPolicy } from '../../../src/kube/retry.js';

const transient = (): boolean => true;

/** A clock that moves only when the code under test sleeps or an attempt "takes" time. */
function fakeClock() {
  let t = 0;
  const slept: number[] = [];
  const attempts: number[] = [];
  return {
    now: () => t,
    sleep: (ms: number) => { slept.push(ms); t += ms; return Promise.resolve(); },
    failingAttempt: (costMs: number) => () => { attempts.push(t); t += costMs; return Promise.reject(new Error('connect ECONNREFUSED')); },
    slept, attempts, at: () => t,
  };
}

const ONE_SECOND: RetryPolicy = { initialDelayMs: 250, maxDelayMs: 2000, factor: 2, deadlineMs: 1000 };

describe('withRetry', () => {
  test('instant failures: backoff 250, 500, then the wait is cut to land the last attempt on the deadline', async () => {
    const c = fakeClock();
    await expect(withRetry(c.failingAttempt(0), ONE_SECOND, { sleep: c.sleep, now: c.now, retryIf: transient })).rejects.toThrow('ECONNREFUSED');
    expect(c.slept).toEqual([250, 500, 250]);
    expect(c.attempts).toEqual([0, 250, 750, 1000]);
    expect(c.at()).toBe(1000);
  });

  test('slow attempts (a loaded machine) still retry until the deadline, not until the step before it', async () => {
    // Each attempt costs 180 ms: the old rule ("give up if elapsed + next delay > deadline") stopped
    // after the second attempt, 610 ms in; a one-second budget must mean about one second.
    const c = fakeClock();
    await expect(withRetry(c.failingAttempt(180), ONE_SECOND, { sleep: c.sleep, now: c.now, retryIf: transient })).rejects.toThrow();
    expect(c.at()).toBeGreaterThanOrEqual(1000);
    expect(c.slept).toEqual([250, 390]);
    expect(c.attempts).toEqual([0, 430, 1000]);
    // No wait ever reaches past the deadline.
    expect(c.attempts.every((a) => a <= ONE_SECOND.deadlineMs)).toBe(true);
  });

  test('success on a later attempt returns its value', async () => {
    const c = fakeClock();
    let n = 0;
    const value = await withRetry(() => (++n < 3 ? Promise.reject(new Error('503')) : Promise.resolve('ok')), ONE_SECOND, { sleep: c.sleep, now: c.now, retryIf: transient });
    expect(value).toBe('ok');
    expect(c.slept).toEqual([250, 500]);
  });

  test('a non-transient error is thrown at once', async () => {
    const c = fakeClock();
    await expect(withRetry(c.failingAttempt(0), ONE_SECOND, { sleep: c.sleep, now: c.now, retryIf: () => false })).rejects.toThrow();
    expect(c.attempts).toEqual([0]);
    expect(c.slept).toEqual([]);
  });

  test('NO_RETRY makes exactly one attempt', async () => {
    // The old rule (elapsed + 0 > 0) retried while the clock stood still: an endless loop on this clock.
    const c = fakeClock();
    await expect(withRetry(c.failingAttempt(0), NO_RETRY, { sleep: c.sleep, now: c.now, retryIf: transient })).rejects.toThrow();
    expect(c.attempts).toEqual([0]);
  });

  test('onRetry is told the wait actually taken, including the shortened last one', async () => {
    const c = fakeClock();
    const told: number[] = [];
    await expect(withRetry(c.failingAttempt(0), ONE_SECOND, { sleep: c.sleep, now: c.now, retryIf: transient, onRetry: (_e, ms) => told.push(ms) })).rejects.toThrow();
    expect(told).toEqual(c.slept);
  });
});
