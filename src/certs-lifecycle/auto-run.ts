/**
 * `tsadm certs renew --auto [--within 90d]`: renew, on this machine, every certificate and
 * kubeconfig of the inventory that expires within the window, and nothing else, then restart the
 * control-plane static pods that read them, one at a time, each until its liveness probe passes
 * (etcd with the machine's API server stopped around it: restart.ts's restartInOrder).
 *
 * Safety (docs/safety.md, "Certificate auto-renewal"):
 * - cluster-wide, the work runs under the Lease kube-system/tsadm-certs-renew
 *   (src/kube/lease-lock.ts), so no two control planes renew and restart at the same moment and
 *   only this machine's components restart while it holds the Lease; a run that finds it held
 *   waits for it (--wait), so runs started on every control plane at once take turns;
 * - a Lease still held when the wait is up ends the run with E_LOCKED, unless a due certificate
 *   has expired or expires within 7 days and the same holder has been seen holding it for longer
 *   than a run may (one Lease duration: four restarts of at most 3 minutes fit in it): a holder
 *   stuck while its renewals go on would otherwise keep every other control plane from renewing
 *   until its certificates ran out. Then this machine renews anyway, with a warning naming it;
 * - the API unreachable: no Lease can be taken, so nothing is done unless a due certificate has
 *   expired or expires within 7 days, or restarts of an interrupted run are pending (the renewed
 *   files are on disk but not in use) — then this machine's own files are renewed with a loud
 *   warning, since otherwise a cluster whose certificates ran out could never recover;
 * - kill-safe: private keys are kept (kubeadm's renewal re-signs the same key too, in effect),
 *   so each renewal is one atomic file replacement and no key/certificate pair can mismatch; the
 *   components still to restart are written to a journal before any certificate, and a re-run
 *   first puts back a manifest left out by an interrupted restart, then restarts what the journal
 *   names; the renewed certificates are not due any more, so they are not renewed twice.
 * - a CA is never renewed; one with less than a year left is a loud warning.
 */
import path from 'node:path';
import { TMP_DIR } from '../constants.js';
import { journalOf } from '../host/journal.js';
import { errorMessage, TsadmError } from '../errors.js';
import { heldError, LeaseObserver, withLeaseLock, type LeaseObject } from '../kube/lease-lock.js';
import type { RetryPolicy } from '../kube/retry.js';
import type { KubeApi } from '../kube/types.js';
import { DEFAULT_ADMIN_KUBECONFIG } from '../constants.js';
import { reportDryRun } from '../run/dry-run-report.js';
import type { Runtime } from '../run/runtime.js';
import { caWarnings, isEmergency, selectDue, EMERGENCY_SECONDS, type AutoSelection } from './auto-select.js';
import { buildLifecycleCtx, prefixed, type LifecycleCtx } from './context.js';
import { checkExpiration, type ExpirationItem } from './expiration.js';
import { kubeadmDate } from './expiration-format.js';
import { inventory, type Component } from './inventory.js';
import { runProbe, type HttpProbe, type ProbeState } from './probe.js';
import { applyRenewal, planRenewal } from './renew.js';
import { describeRestartStep, plannedRestarts, recoverInterruptedRestarts, restartInOrder, type RestartDeps } from './restart.js';
import { clusterConfigFor, humanList, type ClusterOptions, type PathOptions } from './run.js';

/** The Lease every control plane takes before renewing (kube-system). */
const RENEW_LEASE = 'tsadm-certs-renew';
/** Long enough for four restarts, each bounded by restart.ts's 3-minute wait, with renewals every 5 min. */
const LEASE_SECONDS = 900;
/**
 * --wait's default: one Lease duration and a minute. A holder that died without releasing is taken
 * over only after its record has been seen unchanged for a duration (src/kube/lease-lock.ts), so a
 * shorter wait could never get past it; and it covers the control planes ahead in the queue: one
 * renewal with its restarts took 35-59 s, up to ~110 s under load (docs/decisions.md 66), so four
 * others ahead take ~7 minutes.
 */
const DEFAULT_WAIT_SECONDS = LEASE_SECONDS + 60;
/** The components a killed run still has to restart: written before any certificate. */
const PENDING_FILE = `${TMP_DIR}/tsadm-renew-pending.json`;
const ORDER: readonly Component[] = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
/** Taking the Lease must not hang on a cluster that is down. */
const SHORT_RETRY: RetryPolicy = { initialDelayMs: 250, maxDelayMs: 1000, factor: 2, deadlineMs: 5000 };

export interface AutoRenewOptions extends PathOptions, ClusterOptions {
  readonly windowSeconds: number;
  /** Restart what reads the renewed certificates (default on; --no-restart turns it off). */
  readonly restart: boolean;
  /** --plan: record one renewal step for `tsadm apply` instead of the dry run's signed certificates. */
  readonly planning?: boolean;
  /** Applying a plan: the certificates it renews; another set due now is refused. */
  readonly expectDue?: readonly string[];
  /** --wait: how long to wait for a live holder of the Lease (default DEFAULT_WAIT_SECONDS; 0: fail at once). */
  readonly waitSeconds?: number;
}

export interface AutoRenewDeps {
  readonly probe?: (p: HttpProbe) => Promise<ProbeState>;
  readonly restartTiming?: Pick<RestartDeps, 'timeoutMs' | 'pollMs' | 'settleMs'>;
  /** How long to keep trying for the Lease through a failing API before renewing without it (default 2 min). */
  readonly leaseGraceMs?: number;
  /** The Lease's observer and its monotonic clock (tests). */
  readonly leaseObserver?: LeaseObserver;
  /** Interval of the Lease polls while waiting (tests; default the lock's 2 s). */
  readonly leasePollMs?: number;
}

/**
 * How long an API that fails (not one that answers "held") is tried again before the renewal goes
 * ahead without the Lease. On an HA control plane another machine's restart makes the API through
 * the load balancer fail for seconds (an API server whose etcd restarts hangs until the balancer's
 * health check drops it); renewing lockless then would restart two machines at once, the very
 * thing the Lease is for (seen on the harness: two control planes renewed together).
 */
const LEASE_GRACE_MS = 120_000;
const LEASE_RETRY_PAUSE_MS = 3000;

export interface AutoRenewResult {
  readonly renewed: readonly string[];
  readonly restarted: readonly Component[];
  readonly selection: AutoSelection;
  /** How the cluster-wide exclusion was had. */
  readonly lock: 'lease' | 'none-api-unreachable' | 'none-held-too-long' | 'dry-run' | 'not-needed';
}

const sortComponents = (cs: Iterable<Component>): Component[] => {
  const set = new Set(cs);
  return ORDER.filter((c) => set.has(c));
};

async function readPending(ctx: LifecycleCtx): Promise<Component[]> {
  const data = await ctx.host.readFile(PENDING_FILE);
  if (!data) return [];
  try {
    const parsed = JSON.parse(data.toString('utf8')) as { components?: unknown };
    return sortComponents(Array.isArray(parsed.components) ? parsed.components.filter((c): c is Component => ORDER.includes(c as Component)) : []);
  } catch {
    return [...ORDER]; // unreadable journal: restart everything rather than leave an old certificate in use
  }
}

async function writePending(ctx: LifecycleCtx, components: readonly Component[]): Promise<void> {
  if (components.length === 0) {
    await ctx.host.remove(PENDING_FILE);
    return;
  }
  await ctx.host.writeFile(PENDING_FILE, `${JSON.stringify({ components })}\n`, { mode: 0o600, kind: 'other', description: 'components still to restart after a certificate renewal' });
}

function describeItem(c: ExpirationItem): string {
  const when = c.expirationDate ? kubeadmDate(c.expirationDate) : 'unknown';
  return c.residualSeconds <= 0 ? `${c.name} (EXPIRED ${when})` : `${c.name} (expires ${when})`;
}

export async function runRenewAuto(rt: Runtime, o: AutoRenewOptions, deps: AutoRenewDeps = {}): Promise<AutoRenewResult> {
  const log = prefixed(rt.log, 'renew');
  const clusterConfigText = await clusterConfigFor(rt, o, 'renew', !rt.json);
  const base = await buildLifecycleCtx(rt, { ...o, needsAdvertiseAddress: false, ...(clusterConfigText !== undefined ? { clusterConfigText } : {}) });
  const ctx: LifecycleCtx = { ...base, log };
  const report = await checkExpiration({ host: ctx.host, certDir: ctx.certDir, kubeconfigDir: ctx.kubeconfigDir, externalEtcd: ctx.cfg.cluster.etcd.mode === 'external', now: rt.startTime });
  for (const w of caWarnings(report)) log.warn(`WARNING: ${w}`);
  const selection = selectDue(report, o.windowSeconds);
  for (const e of selection.external) log.warn(`${describeItem(e)} is due, but its CA key is not on this node (external CA): not renewed; issue it with your CA`);

  if (o.expectDue !== undefined) refuseOtherSelection(selection, o.expectDue);

  const interrupted = rt.dryRun ? [] : await recoverInterruptedRestarts({ host: ctx.host, log });
  const pending = sortComponents([...(await readPending(ctx)), ...interrupted]);
  const window = `${Math.round(o.windowSeconds / 3600)}h`;
  if (selection.due.length === 0 && pending.length === 0) {
    const next = [...selection.notDue].sort((a, b) => a.residualSeconds - b.residualSeconds)[0];
    log.info(`Nothing to renew: no certificate of this node expires within ${window}${next ? `; the next to expire is ${describeItem(next)}` : ''}.`);
    return { renewed: [], restarted: [], selection, lock: 'not-needed' };
  }
  log.info(`Due within ${window}: ${selection.due.map(describeItem).join(', ') || 'nothing'}${pending.length > 0 ? `; restarts left by an interrupted run: ${pending.join(', ')}` : ''}.`);

  const work = (): Promise<Omit<AutoRenewResult, 'selection' | 'lock'>> => renewAndRestart(rt, ctx, o, selection, pending, deps);
  if (rt.dryRun && o.planning === true) {
    // The certificates are signed when the plan is applied, under the Lease then: the plan holds
    // what is due (its files are preconditions, as the dry run read them) and no key material.
    await reportLeaseForDryRun(rt, ctx, o);
    journalOf(rt.host)?.record({
      type: 'certs-renew-auto', windowSeconds: o.windowSeconds, restart: o.restart, due: selection.due.map((c) => c.name), pending,
      ...(o.config !== undefined ? { config: path.resolve(o.config) } : {}), ...(o.certDir !== undefined ? { certDir: path.resolve(o.certDir) } : {}),
      ...(o.kubeconfigDir !== undefined ? { kubeconfigDir: path.resolve(o.kubeconfigDir) } : {}), kubeconfig: o.kubeconfig ?? DEFAULT_ADMIN_KUBECONFIG,
    });
    log.info(`Would renew ${selection.due.map((c) => c.name).join(', ') || 'nothing'}${o.restart ? ' and restart what reads them' : ''} when the plan is applied, holding the Lease kube-system/${RENEW_LEASE} then.`);
    return { renewed: [], restarted: [], selection, lock: 'dry-run' };
  }
  if (rt.dryRun) {
    await reportLeaseForDryRun(rt, ctx, o);
    const r = await work();
    reportDryRun(rt.host, rt.log);
    return { ...r, selection, lock: 'dry-run' };
  }

  const kubeconfig = o.kubeconfig ?? DEFAULT_ADMIN_KUBECONFIG;
  const holder = ctx.cfg.init.nodeRegistration.name;
  // One observer for the whole run: what it saw of the Lease survives the retries below.
  const observer = deps.leaseObserver ?? new LeaseObserver();
  const waitSeconds = o.waitSeconds ?? DEFAULT_WAIT_SECONDS;
  const waitUntil = observer.now() + waitSeconds * 1000;
  let unreachable: string | undefined;
  let graceUntil: number | undefined;
  for (let attempt = 0; ; attempt++) {
    let api: KubeApi | undefined;
    try {
      api = await rt.api.open({ path: kubeconfig }, { log: rt.log, retry: SHORT_RETRY, requestTimeoutMs: 5000 });
    } catch (err) {
      unreachable = errorMessage(err);
    }
    if (api) {
      let started = false;
      try {
        const r = await withLeaseLock(api, {
          name: RENEW_LEASE, holder, durationSeconds: LEASE_SECONDS, observer, onWarning: (m) => log.warn(m),
          waitMs: Math.max(0, waitUntil - observer.now()), ...(deps.leasePollMs !== undefined ? { pollMs: deps.leasePollMs } : {}),
          onWait: (who, until) => log.info(`The Lease kube-system/${RENEW_LEASE} is held by "${who}" (until ${until.toISOString()} at most, unless it renews it); waiting for it until ${new Date(Date.now() + Math.max(0, waitUntil - observer.now())).toISOString()} (--wait ${waitSeconds}s).`),
          heldHint: (until) => `another control plane is renewing now; run again after ${until}, or with a longer --wait (a holder that died releases nothing: a run that waits sees its Lease unchanged for ${LEASE_SECONDS}s and takes it over)`,
        }, () => {
          started = true;
          log.info(`Holding the Lease kube-system/${RENEW_LEASE} as "${holder}": no other control plane renews or restarts meanwhile.`);
          return work();
        });
        return { ...r, selection, lock: 'lease' };
      } catch (err) {
        if (started) throw err;
        if (err instanceof TsadmError && err.code === 'E_LOCKED') {
          const seen = observer.last();
          if (waitSeconds === 0 || !seen?.holder || seen.heldForMs < LEASE_SECONDS * 1000 || !isEmergency(selection.due)) throw err;
          log.warn(`WARNING: RENEWING WITHOUT THE CLUSTER-WIDE LOCK: "${seen.holder}" has held the Lease kube-system/${RENEW_LEASE} for ${Math.round(seen.heldForMs / 1000)}s, longer than a renewal may take (${LEASE_SECONDS}s), while certificates of this node have expired or expire within ${EMERGENCY_SECONDS / 86_400} days. Only this machine's files are renewed, and its components restart one at a time; check what "${seen.holder}" is doing.`);
          const r = await work();
          return { ...r, selection, lock: 'none-held-too-long' };
        }
        unreachable = errorMessage(err);
      }
    }
    graceUntil ??= Date.now() + (deps.leaseGraceMs ?? LEASE_GRACE_MS);
    const left = graceUntil - Date.now();
    if (left <= 0) break;
    if (attempt === 0) log.warn(`the Lease kube-system/${RENEW_LEASE} could not be taken (${unreachable ?? 'unknown error'}); trying again until ${new Date(graceUntil).toISOString()}`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(LEASE_RETRY_PAUSE_MS, left)));
  }

  // No Lease could be taken: the API is unreachable (or refuses this machine's credentials).
  if (!isEmergency(selection.due) && pending.length === 0) {
    throw new TsadmError('E_API', `not renewing: the Lease kube-system/${RENEW_LEASE} that keeps control planes from renewing at once could not be taken through ${kubeconfig} (${unreachable ?? 'unknown error'}), and nothing expires within ${EMERGENCY_SECONDS / 86_400} days`, {
      hint: `fix the API access (or --kubeconfig); the timer tries again at its next run; without the API, renewal goes ahead once a certificate is within ${EMERGENCY_SECONDS / 86_400} days of expiry`,
    });
  }
  log.warn(`WARNING: RENEWING WITHOUT THE CLUSTER-WIDE LOCK: the API could not be reached through ${kubeconfig} (${unreachable ?? 'unknown error'}), and ${pending.length > 0 ? 'an interrupted run left restarts to do' : 'certificates of this node have expired or expire within 7 days'}. Only this machine's files are renewed, and its components restart one at a time; make sure no other control plane is restarting now.`);
  const r = await work();
  return { ...r, selection, lock: 'none-api-unreachable' };
}

/** Applying a plan: the certificates due now must be the ones it was made for. */
function refuseOtherSelection(selection: AutoSelection, expected: readonly string[]): void {
  const now = selection.due.map((c) => c.name).sort();
  const planned = [...expected].sort();
  if (now.join(',') === planned.join(',')) return;
  throw new TsadmError('E_CONFLICT', `refusing to renew: due now ${now.length > 0 ? `are ${now.join(', ')}` : 'is nothing'}, the plan renews ${planned.join(', ') || 'nothing'}`, {
    hint: 'make a new plan (tsadm certs renew --auto --plan <file>) and review it',
  });
}

async function reportLeaseForDryRun(rt: Runtime, ctx: LifecycleCtx, o: AutoRenewOptions): Promise<void> {
  const holder = ctx.cfg.init.nodeRegistration.name;
  try {
    const api = await rt.api.open({ path: o.kubeconfig ?? DEFAULT_ADMIN_KUBECONFIG }, { log: rt.log, retry: SHORT_RETRY, dryRunRequestTimeoutMs: 5000 });
    const lease = await api.get<LeaseObject>('Lease', RENEW_LEASE, 'kube-system');
    // One look: a holder other than this machine is live to it (src/kube/lease-lock.ts).
    const seen = lease ? new LeaseObserver().observe(lease) : undefined;
    if (lease && seen?.holder !== undefined && seen.holder !== holder) {
      const waitSeconds = o.waitSeconds ?? DEFAULT_WAIT_SECONDS;
      const held = heldError({ name: RENEW_LEASE }, lease, new Date(Date.now() + seen.expiresInMs)).message;
      ctx.log.warn(waitSeconds > 0 ? `a real run would wait for it (up to ${waitSeconds}s): ${held}` : `a real run would stop here (--wait 0): ${held}`);
    } else ctx.log.info(`Would take the Lease kube-system/${RENEW_LEASE} as "${holder}" (free now).`);
  } catch (err) {
    ctx.log.warn(`the Lease kube-system/${RENEW_LEASE} could not be read (${errorMessage(err)}); a real run would renew only certificates within 7 days of expiry`);
  }
}

async function renewAndRestart(rt: Runtime, ctx: LifecycleCtx, o: AutoRenewOptions, selection: AutoSelection, pending: readonly Component[], deps: AutoRenewDeps): Promise<Omit<AutoRenewResult, 'selection' | 'lock'>> {
  const dueNames = new Set(selection.due.map((c) => c.name));
  const entries = inventory({ externalEtcd: ctx.cfg.cluster.etcd.mode === 'external' }).certificates.filter((e) => dueNames.has(e.name));
  // Everything is read, checked and signed before the first write (planRenewal), keys kept.
  const result = await planRenewal(ctx, entries, { newKey: false });
  const toRestart = o.restart ? sortComponents([...pending, ...result.restart]) : [];
  if (!rt.dryRun && toRestart.length > 0) await writePending(ctx, toRestart);
  await applyRenewal(ctx, result);
  for (const r of result.renewed) ctx.log.info(`${r.entry.longName} ${rt.dryRun ? 'would be renewed' : 'renewed'} (until ${kubeadmDate(r.renewed.notAfter)})`);
  if (result.renewed.some((r) => r.entry.name === 'admin.conf' || r.entry.name === 'super-admin.conf')) {
    ctx.log.info('Copies of admin.conf (such as $HOME/.kube/config) still hold the old client certificate; copy the file again.');
  }
  if (!o.restart) {
    if (result.restart.length > 0) ctx.log.info(`Not restarting (--no-restart): restart ${humanList(result.restart)} so that they use the new certificates.`);
    return { renewed: result.renewed.map((r) => r.entry.name), restarted: [] };
  }
  if (rt.dryRun) {
    for (const step of await plannedRestarts(ctx.host, toRestart)) rt.log.info(describeRestartStep(step), { prefix: 'dryrun' });
    return { renewed: result.renewed.map((r) => r.entry.name), restarted: [] };
  }
  const restartLog = prefixed(rt.log, 'restart');
  let left = [...toRestart];
  // One at a time, etcd first (with the API server stopped around it); each passes its liveness
  // probe before the next goes down, and the journal loses each as it is done.
  const restarted = await restartInOrder({ host: ctx.host, log: restartLog, probe: deps.probe ?? ((p) => runProbe(p)), ...deps.restartTiming }, toRestart, async (step) => {
    left = left.filter((c) => !step.includes(c));
    await writePending(ctx, left);
  });
  ctx.log.info(`Done: ${result.renewed.length} renewed${restarted.length > 0 ? `; restarted ${humanList(restarted)}` : ''}.`);
  return { renewed: result.renewed.map((r) => r.entry.name), restarted };
}
