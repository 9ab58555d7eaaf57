/**
 * Waiting for several health endpoints at once: each is polled until it answers 200, starting
 * at a short interval and backing off, all under one deadline. A target is done the moment it
 * answers; pending sleeps and requests are cancelled when everything is done or time runs out.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { HealthCheck } from './http-check.js';

export interface HealthTarget {
  /** "kubelet", "kube-apiserver", … */
  readonly component: string;
  readonly url: string;
}

export interface TargetState {
  readonly target: HealthTarget;
  healthyAfterMs?: number;
  lastDetail: string;
  attempts: number;
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly check: HealthCheck;
  /**
   * First retry delay (default 100 ms); doubled after each failure up to maxIntervalMs (default
   * 200 ms): a component is noticed ~100 ms after it turns healthy on average (BENCHMARKS.md), for a
   * few health GETs per second per component while init waits. kubeadm polls every 500 ms; a 2 s
   * cap once made tsadm notice a ready component up to 2 s late, twice per init.
   */
  readonly initialIntervalMs?: number;
  readonly maxIntervalMs?: number;
  /** How often to report the targets still not ready. */
  readonly progressEveryMs?: number;
  readonly onHealthy?: (state: TargetState) => void;
  readonly onProgress?: (pending: readonly TargetState[], elapsedMs: number) => void;
  readonly now?: () => number;
}

export interface WaitResult {
  readonly ok: boolean;
  readonly elapsedMs: number;
  readonly states: readonly TargetState[];
}

export async function waitForHealthy(targets: readonly HealthTarget[], opts: WaitOptions): Promise<WaitResult> {
  const now = opts.now ?? (() => performance.now());
  const start = now();
  const controller = new AbortController();
  const states: TargetState[] = targets.map((target) => ({ target, lastDetail: 'not checked yet', attempts: 0 }));
  const deadline = sleep(opts.timeoutMs, undefined, { signal: controller.signal }).then(() => 'timeout' as const, () => 'aborted' as const);
  const progress = setInterval(() => {
    const pending = states.filter((s) => s.healthyAfterMs === undefined);
    if (pending.length > 0) opts.onProgress?.(pending, now() - start);
  }, opts.progressEveryMs ?? 10_000);
  progress.unref();

  const poll = async (state: TargetState): Promise<void> => {
    let interval = opts.initialIntervalMs ?? 100;
    while (!controller.signal.aborted) {
      state.attempts++;
      const r = await opts.check(state.target.url, controller.signal);
      if (controller.signal.aborted) return;
      if (r.ok) {
        state.healthyAfterMs = now() - start;
        opts.onHealthy?.(state);
        return;
      }
      state.lastDetail = r.detail;
      try {
        await sleep(interval, undefined, { signal: controller.signal });
      } catch {
        return; // aborted: the deadline passed
      }
      interval = Math.min(interval * 2, opts.maxIntervalMs ?? 200);
    }
  };

  const all = Promise.all(states.map(poll));
  await Promise.race([all, deadline]);
  // Cancels the deadline or the remaining checks and sleeps; a poll that is still in flight
  // returns without reporting once its check settles.
  controller.abort();
  clearInterval(progress);
  return { ok: states.every((s) => s.healthyAfterMs !== undefined), elapsedMs: now() - start, states };
}
