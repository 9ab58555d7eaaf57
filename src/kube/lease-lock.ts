/**
 * A cluster-wide mutual exclusion on a coordination.k8s.io/v1 Lease (kube-system by default), so
 * that no two machines of a cluster do the same risky thing at once (renewing certificates and
 * restarting their control plane, for one). It follows client-go's leader election record:
 * `holderIdentity`, `leaseDurationSeconds`, `acquireTime`, `renewTime`, `leaseTransitions`.
 *
 * - expiry is judged as client-go's leader election judges it (tryAcquireOrRenew and isLeaseValid
 *   in k8s.io/client-go/tools/leaderelection/leaderelection.go): never from the holder's
 *   `renewTime` against this machine's wall clock, but from when THIS process last saw the record
 *   change, on its own monotonic clock (`LeaseObserver`). A holder is live until its record has
 *   stayed the same for `leaseDurationSeconds`; its clock may run behind or ahead by any amount
 *   (a renewTime in the future is a skewed clock, not "held until then"). The price: a holder that
 *   died without releasing is taken over only by a process that has watched its record for one
 *   duration, so a caller that must get past such a Lease waits (`waitMs`) and keeps its observer;
 * - acquire: create the Lease, or take it over when it is free (no holder), expired (as above) or
 *   already ours (a run of the same holder that was killed); every write carries the
 *   resourceVersion that was read (KubeApi.ensure with a rebase), so of two machines racing,
 *   exactly one write succeeds and the other re-reads, sees a live holder and fails with E_LOCKED
 *   naming it and its expiry — or, with `waitMs`, polls the Lease until it is free or that time
 *   is up (then E_LOCKED);
 * - renew: while `fn` runs, `renewTime` is moved forward every third of the duration, so the record
 *   changes for every observer;
 * - release: at the end (also when `fn` throws) the holder is cleared and the duration set to 1 s
 *   (client-go's ReleaseOnCancel), so the next machine need not wait for the expiry. A release
 *   that fails (API gone) is only reported: the Lease then expires by itself.
 *
 * A Lease taken over by another holder while `fn` ran (this machine could not renew it in time)
 * is reported after `fn` ends: through `onLost` when given, else as an E_LOCKED error.
 */
import { TsadmError } from '../errors.js';
import { isTransient } from './errors.js';
import type { KubeApi, KubeObject } from './types.js';

interface LeaseSpec {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds. */
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

export interface LeaseObject extends KubeObject {
  readonly kind: 'Lease';
  readonly spec?: LeaseSpec;
}

/** What one look at a Lease told its observer. */
export interface LeaseObservation {
  /** The holder named by the record ("" or undefined: free). */
  readonly holder: string | undefined;
  /** Milliseconds until the record expires unless it changes (0 or less: expired). */
  readonly expiresInMs: number;
  /** How long this holder's current tenure (same holder, same acquireTime) has been seen. */
  readonly heldForMs: number;
}

/**
 * What this process has seen of one Lease: client-go's observedRecord and observedTime. Keep one
 * for as long as the process competes for the Lease (the approver's --watch loop, one
 * `renew --auto` run across its retries), so that a dead holder's Lease can be taken once its
 * record has not changed for its duration.
 */
export class LeaseObserver {
  readonly #clock: () => number;
  #record: string | undefined;
  #observedAt = 0;
  #tenure: string | undefined;
  #tenureSince = 0;
  #last: LeaseObservation | undefined;

  /** `monotonicMs`: a clock that never jumps (default performance.now; tests pass their own). */
  constructor(monotonicMs: () => number = () => performance.now()) {
    this.#clock = monotonicMs;
  }

  /** This observer's clock, in milliseconds. */
  now(): number {
    return this.#clock();
  }

  /** Remembers the record, and when it last changed (client-go compares the raw record). */
  observe(lease: LeaseObject): LeaseObservation {
    const t = this.#clock();
    const spec = lease.spec ?? {};
    const record = JSON.stringify([spec.holderIdentity ?? '', spec.leaseDurationSeconds ?? 0, spec.acquireTime ?? '', spec.renewTime ?? '', spec.leaseTransitions ?? 0]);
    if (record !== this.#record) {
      this.#record = record;
      this.#observedAt = t;
    }
    const tenure = spec.holderIdentity ? JSON.stringify([spec.holderIdentity, spec.acquireTime ?? '']) : undefined;
    if (tenure !== this.#tenure) {
      this.#tenure = tenure;
      this.#tenureSince = t;
    }
    this.#last = {
      holder: spec.holderIdentity || undefined,
      expiresInMs: this.#observedAt + (spec.leaseDurationSeconds ?? 0) * 1000 - t,
      heldForMs: tenure === undefined ? 0 : t - this.#tenureSince,
    };
    return this.#last;
  }

  /** What the last look saw (undefined before the first). */
  last(): LeaseObservation | undefined {
    return this.#last;
  }
}

export interface LeaseLockOptions {
  /** The Lease's name, e.g. "tsadm-certs-renew". */
  readonly name: string;
  /** Who holds it: this machine's identity (its node name), stable across runs. */
  readonly holder: string;
  /** How long the Lease stays valid without a renewal. */
  readonly durationSeconds: number;
  /** Default kube-system. */
  readonly namespace?: string;
  /** Interval of the renewals while `fn` runs (default: a third of the duration). */
  readonly renewIntervalMs?: number;
  /** The wall clock written into acquireTime and renewTime (tests: a skewed machine). */
  readonly now?: () => Date;
  /** What this process saw of the Lease before (default: a new observer on performance.now). */
  readonly observer?: LeaseObserver;
  /**
   * How long to wait for a live holder, polling the Lease, before failing with E_LOCKED (default
   * 0: fail at once). Measured on the observer's clock.
   */
  readonly waitMs?: number;
  /** Interval of the polls while waiting (default 2 s, client-go's RetryPeriod). */
  readonly pollMs?: number;
  /** Called when a wait begins, and again when another holder takes the Lease meanwhile. */
  readonly onWait?: (holder: string, until: Date, observation: LeaseObservation) => void;
  /** The hint of the E_LOCKED error naming the holder (default: a generic one). */
  readonly heldHint?: (until: string) => string;
  /** Called when the Lease was lost while `fn` ran (instead of failing after `fn`). */
  readonly onLost?: (err: TsadmError) => void;
  /** Warnings that do not stop the run (a renewal or release that failed). */
  readonly onWarning?: (message: string) => void;
}

const DEFAULT_NAMESPACE = 'kube-system';
const DEFAULT_POLL_MS = 2000;

/** Go's metav1.MicroTime format: 2006-01-02T15:04:05.000000Z07:00 (UTC here). */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function leaseRef(o: Pick<LeaseLockOptions, 'name' | 'namespace'>): string {
  return `Lease ${o.namespace ?? DEFAULT_NAMESPACE}/${o.name}`;
}

/**
 * E_LOCKED naming the holder and `until`: when, by this machine's wall clock, its record expires
 * unless it changes (now + what the observer has left of the duration).
 */
export function heldError(o: Pick<LeaseLockOptions, 'name' | 'namespace' | 'heldHint'>, lease: LeaseObject, until: Date): TsadmError {
  const holder = lease.spec?.holderIdentity ?? '';
  const at = until.toISOString();
  return new TsadmError('E_LOCKED', `the ${leaseRef(o)} is held by "${holder}" until ${at}`, {
    hint: o.heldHint?.(at) ?? `another machine is doing this now; run again after ${at} (a holder that died releases nothing: its Lease is taken over once it has stayed unchanged for its duration, ${lease.spec?.leaseDurationSeconds ?? 0}s)`,
  });
}

function leaseObject(o: LeaseLockOptions, spec: LeaseSpec): LeaseObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: o.name, namespace: o.namespace ?? DEFAULT_NAMESPACE },
    spec,
  };
}

/** The E_LOCKED of a live holder, with what the observer saw (for the wait loop). */
class LeaseHeld extends TsadmError {
  readonly lease: LeaseObject;
  readonly seen: LeaseObservation;
  readonly until: Date;

  constructor(o: LeaseLockOptions, lease: LeaseObject, seen: LeaseObservation, now: Date) {
    const until = new Date(now.getTime() + Math.max(0, seen.expiresInMs));
    const e = heldError(o, lease, until);
    super('E_LOCKED', e.message, e.hint !== undefined ? { hint: e.hint } : {});
    this.lease = lease;
    this.seen = seen;
    this.until = until;
  }
}

/** Takes the Lease or throws LeaseHeld; optimistic concurrency through the resourceVersion read. */
async function acquire(api: KubeApi, o: LeaseLockOptions, now: () => Date, observer: LeaseObserver): Promise<void> {
  const rebase = (live: LeaseObject | undefined): LeaseObject => {
    const t = now();
    const at = microTime(t);
    if (!live) return leaseObject(o, { holderIdentity: o.holder, leaseDurationSeconds: o.durationSeconds, acquireTime: at, renewTime: at, leaseTransitions: 0 });
    const seen = observer.observe(live);
    if (seen.holder !== undefined && seen.holder !== o.holder && seen.expiresInMs > 0) throw new LeaseHeld(o, live, seen, t);
    const ours = live.spec?.holderIdentity === o.holder;
    const transitions = live.spec?.leaseTransitions ?? 0;
    return leaseObject(o, {
      holderIdentity: o.holder,
      leaseDurationSeconds: o.durationSeconds,
      acquireTime: ours && live.spec?.acquireTime ? live.spec.acquireTime : at,
      renewTime: at,
      leaseTransitions: ours ? transitions : transitions + 1,
    });
  };
  await api.ensure(rebase(undefined), 'update', rebase);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * acquire, and while a live holder has the Lease, poll it until it is free, expired or `waitMs`
 * is up (then the last E_LOCKED). Once a holder has been seen, an API that fails for a moment
 * (another machine's restart behind a load balancer) is polled through, not given up on.
 */
async function acquireWaiting(api: KubeApi, o: LeaseLockOptions, now: () => Date, observer: LeaseObserver): Promise<void> {
  const deadline = observer.now() + (o.waitMs ?? 0);
  let held: LeaseHeld | undefined;
  let announced: string | undefined;
  for (;;) {
    try {
      await acquire(api, o, now, observer);
      return;
    } catch (err) {
      if (err instanceof LeaseHeld) held = err;
      else if (!(held && isTransient(err))) throw err;
      const left = deadline - observer.now();
      if (left <= 0) throw held;
      if (err instanceof LeaseHeld) {
        const tenure = `${err.seen.holder ?? ''} ${err.lease.spec?.acquireTime ?? ''}`;
        if (tenure !== announced) o.onWait?.(err.seen.holder ?? '', err.until, err.seen);
        announced = tenure;
      } else {
        o.onWarning?.(`could not read the ${leaseRef(o)} while waiting for it: ${(err as Error).message} (will retry)`);
      }
      await sleep(Math.min(o.pollMs ?? DEFAULT_POLL_MS, left));
    }
  }
}

function lostError(o: LeaseLockOptions, live: LeaseObject | undefined): TsadmError {
  const who = live?.spec?.holderIdentity ? `"${live.spec.holderIdentity}" holds it now` : 'it was deleted or released';
  return new TsadmError('E_LOCKED', `lost the ${leaseRef(o)} while working under it: ${who}`, {
    hint: 'this machine could not renew it in time (API unreachable or too slow); check what the other holder did, then run again',
  });
}

/** Moves renewTime forward; throws the lost error when the Lease is no longer ours. */
async function renew(api: KubeApi, o: LeaseLockOptions, now: () => Date): Promise<void> {
  const rebase = (live: LeaseObject | undefined): LeaseObject => {
    if (live?.spec?.holderIdentity !== o.holder) throw lostError(o, live);
    return leaseObject(o, { ...live.spec, leaseDurationSeconds: o.durationSeconds, renewTime: microTime(now()) });
  };
  await api.ensure(leaseObject(o, {}), 'update', rebase);
}

class NothingToRelease extends Error {}

/** Clears the holder when it is still ours; leaves another holder's (or a deleted) Lease alone. */
async function release(api: KubeApi, o: LeaseLockOptions, now: () => Date): Promise<void> {
  const rebase = (live: LeaseObject | undefined): LeaseObject => {
    if (!live?.spec || live.spec.holderIdentity !== o.holder) throw new NothingToRelease();
    const { holderIdentity: _mine, ...rest } = live.spec;
    return leaseObject(o, { ...rest, leaseDurationSeconds: 1, renewTime: microTime(now()) });
  };
  try {
    await api.ensure(leaseObject(o, {}), 'update', rebase);
  } catch (err) {
    if (!(err instanceof NothingToRelease)) throw err;
  }
}

/**
 * Runs `fn` while holding the Lease: acquire (waiting up to `waitMs` for a live holder; then
 * E_LOCKED naming the holder and its expiry), renew while it runs, release at the end whatever
 * `fn` did.
 */
export async function withLeaseLock<T>(api: KubeApi, opts: LeaseLockOptions, fn: () => Promise<T>): Promise<T> {
  if (!(opts.durationSeconds >= 1)) throw new TsadmError('E_INTERNAL', `a Lease duration must be at least 1 s (got ${opts.durationSeconds})`);
  const now = opts.now ?? ((): Date => new Date());
  await acquireWaiting(api, opts, now, opts.observer ?? new LeaseObserver());

  let lost: TsadmError | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const interval = opts.renewIntervalMs ?? Math.max(200, Math.floor((opts.durationSeconds * 1000) / 3));
  const schedule = (): void => {
    if (stopped || lost) return;
    timer = setTimeout(() => {
      inFlight = renew(api, opts, now).then(
        () => schedule(),
        (err: unknown) => {
          if (err instanceof TsadmError && err.code === 'E_LOCKED') {
            lost = err;
            return;
          }
          // a blip (API restarting, as during a certificate renewal): try again at the next tick
          opts.onWarning?.(`could not renew the ${leaseRef(opts)}: ${(err as Error).message}${isTransient(err) ? ' (will retry)' : ''}`);
          schedule();
        },
      );
    }, interval);
    timer.unref();
  };
  schedule();

  let result: T;
  try {
    result = await fn();
  } finally {
    stopped = true;
    if (timer) clearTimeout(timer);
    await inFlight;
    if (!lost) {
      try {
        await release(api, opts, now);
      } catch (err) {
        opts.onWarning?.(`could not release the ${leaseRef(opts)} (it expires by itself in ${opts.durationSeconds}s): ${(err as Error).message}`);
      }
    }
  }
  if (lost) {
    if (opts.onLost) opts.onLost(lost);
    else throw lost;
  }
  return result;
}
