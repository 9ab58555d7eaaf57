/**
 * A cluster-wide mutual exclusion on a coordination.k8s.io/v1 Lease (kube-system by default), so
 * that no two machines of a cluster do the same risky thing at once (renewing certificates and
 * restarting their control plane, for one). It follows client-go's leader election record:
 * `holderIdentity`, `leaseDurationSeconds`, `acquireTime`, `renewTime`, `leaseTransitions`.
 *
 * - acquire: create the Lease, or take it over when it is free (no holder), expired
 *   (`renewTime + leaseDurationSeconds` is past by this machine's clock) or already ours (a run of
 *   the same holder that was killed); every write carries the resourceVersion that was read
 *   (KubeApi.ensure with a rebase), so of two machines racing, exactly one write succeeds and
 *   the other re-reads, sees a live holder and fails with E_LOCKED naming it and its expiry;
 * - renew: while `fn` runs, `renewTime` is moved forward every third of the duration;
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
  /** The clock (tests). */
  readonly now?: () => Date;
  /** Called when the Lease was lost while `fn` ran (instead of failing after `fn`). */
  readonly onLost?: (err: TsadmError) => void;
  /** Warnings that do not stop the run (a renewal or release that failed). */
  readonly onWarning?: (message: string) => void;
}

const DEFAULT_NAMESPACE = 'kube-system';

/** Go's metav1.MicroTime format: 2006-01-02T15:04:05.000000Z07:00 (UTC here). */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** When the Lease stops protecting its holder, or undefined when it has no holder or no times. */
function leaseExpiry(lease: LeaseObject): Date | undefined {
  const spec = lease.spec ?? {};
  if (!spec.holderIdentity) return undefined;
  const base = spec.renewTime ?? spec.acquireTime;
  if (base === undefined) return undefined;
  const t = Date.parse(base);
  if (Number.isNaN(t)) return undefined;
  return new Date(t + (spec.leaseDurationSeconds ?? 0) * 1000);
}

/** The holder that keeps others out at `now` (undefined when the Lease is free or expired). */
export function liveHolder(lease: LeaseObject | undefined, now: Date): string | undefined {
  if (!lease?.spec?.holderIdentity) return undefined;
  const expiry = leaseExpiry(lease);
  return expiry && expiry.getTime() > now.getTime() ? lease.spec.holderIdentity : undefined;
}

function leaseRef(o: LeaseLockOptions): string {
  return `Lease ${o.namespace ?? DEFAULT_NAMESPACE}/${o.name}`;
}

export function heldError(o: Pick<LeaseLockOptions, 'name' | 'namespace'>, lease: LeaseObject): TsadmError {
  const holder = lease.spec?.holderIdentity ?? '';
  const expiry = leaseExpiry(lease);
  const until = expiry ? expiry.toISOString() : 'an unknown time';
  return new TsadmError('E_LOCKED', `the ${leaseRef({ ...o, holder: '', durationSeconds: 0 })} is held by "${holder}" until ${until}`, {
    hint: `another machine is doing this now; run again after ${until} (a holder that died releases nothing: its Lease expires by itself then)`,
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

/** Takes the Lease or throws E_LOCKED; optimistic concurrency through the resourceVersion read. */
async function acquire(api: KubeApi, o: LeaseLockOptions, now: () => Date): Promise<void> {
  const rebase = (live: LeaseObject | undefined): LeaseObject => {
    const t = now();
    const at = microTime(t);
    if (!live) return leaseObject(o, { holderIdentity: o.holder, leaseDurationSeconds: o.durationSeconds, acquireTime: at, renewTime: at, leaseTransitions: 0 });
    const holder = liveHolder(live, t);
    if (holder !== undefined && holder !== o.holder) throw heldError(o, live);
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
 * Runs `fn` while holding the Lease: acquire (or E_LOCKED naming the holder and its expiry),
 * renew while it runs, release at the end whatever `fn` did.
 */
export async function withLeaseLock<T>(api: KubeApi, opts: LeaseLockOptions, fn: () => Promise<T>): Promise<T> {
  if (!(opts.durationSeconds >= 1)) throw new TsadmError('E_INTERNAL', `a Lease duration must be at least 1 s (got ${opts.durationSeconds})`);
  const now = opts.now ?? ((): Date => new Date());
  await acquire(api, opts, now);

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
