/**
 * One static Pod component through kubeadm 1.20's upgradeComponent: compare the rendered manifest
 * with the one on disk (the same Pod once decoded, as kubeadm 1.28+ compares: nothing to do, no
 * certificate renewed either, as in kubeadm, which compares first), renew the component's certificates, back up the old manifest,
 * write the new one atomically, wait until the kubelet runs it (a new mirror Pod hash, the Pods
 * Running, the health endpoint answering) and, when any of that fails, put back every manifest
 * this run changed (kubeadm's rollbackOldManifests: etcd's only when etcd is the one failing)
 * and wait for the old component to answer again.
 *
 * Everything goes through the host seam (atomic writes, --rootfs, the dry-run overlay) and the
 * API seam; in a dry run the new manifest is written to the overlay (the closing listing prints
 * it, as kubeadm's DryRunStaticPodUpgrade prints the manifests) and nothing is waited for.
 */
import path from 'node:path';
import { formatDuration } from '../../duration.js';
import { MODES, PORTS, TMP_DIR } from '../../constants.js';
import { TsadmError, errorMessage } from '../../errors.js';
import { NO_RETRY } from '../../kube/retry.js';
import type { KubeApi } from '../../kube/types.js';
import type { PhaseLogger } from '../../log/logger.js';
import { sameStaticPod } from '../../manifest/equal.js';
import { manifestPath } from '../../manifest/write.js';
import { journalOf } from '../../host/journal.js';
import type { InitCtx } from '../../run/context.js';
import type { UpgradeCtx } from './context.js';
import { httpHealthCheck, type HealthCheck } from '../../health/http-check.js';
import { controlPlaneHealthTargets } from '../kubelet/targets.js';
import { waitForHealthy, type HealthTarget } from '../../health/wait-loop.js';
import { waitForMirrorPodHash, waitForRunningPods, type PollOptions } from '../../health/mirror-pod.js';
import { renewCertificates } from './renew-certs.js';
import { backupDirName, certsToRenew, type UpgradedComponent } from './static-pod-plan.js';

/** What the components of one control-plane upgrade share. */
export interface StaticPodRun {
  readonly ctx: UpgradeCtx;
  /** This node at the target version (the init renderers' input). */
  readonly view: InitCtx;
  /** Lines prefixed [upgrade/staticpods]. */
  readonly log: PhaseLogger;
  readonly check: HealthCheck;
  readonly timeoutMs: number;
  /** Components this run changed and the backup of each (kubeadm's recoverManifests), in order. */
  readonly changed: Map<UpgradedComponent, { readonly backup: string; readonly old: Buffer; readonly beforeHash: string }>;
  /** The mirror Pod poller: one request per poll, no retries of its own (the poll loop is the retry). */
  poller?: Promise<KubeApi>;
}

export function newStaticPodRun(ctx: UpgradeCtx, view: InitCtx, log: PhaseLogger): StaticPodRun {
  return { ctx, view, log, check: ctx.deps.healthCheck ?? httpHealthCheck, timeoutMs: ctx.cfg.upgrade.upgradeManifestsTimeoutMs, changed: new Map() };
}

/** What differs for etcd: its data backup before the change, and its data restore when even the old manifest does not bring it back. */
export interface ComponentHooks {
  readonly beforeChange?: () => Promise<void>;
  readonly restoreData?: () => Promise<void>;
}

/** The health endpoint the component answers on once the kubelet runs it. */
export function componentHealthTarget(view: InitCtx, component: UpgradedComponent): HealthTarget {
  // etcd's /health on its metrics listener (plain HTTP on loopback), as the etcd phase's exit check.
  if (component === 'etcd') return { component, url: `http://127.0.0.1:${PORTS.etcdMetrics}/health` };
  return controlPlaneHealthTargets(view.cfg, view.versions).find((t) => t.component === component)!;
}

function poller(run: StaticPodRun): Promise<KubeApi> {
  run.poller ??= run.ctx.api.open({ path: run.ctx.options.kubeconfigPath }, { log: run.ctx.log, retry: NO_RETRY, requestTimeoutMs: 10_000 });
  return run.poller;
}

function pollOptions(run: StaticPodRun, deadline: number, prefix: string): PollOptions {
  return { timeoutMs: Math.max(0, deadline - Date.now()), log: (m) => run.ctx.log.info(m, { prefix }) };
}

/** The run's backup folder, created on the first change (a run that changes nothing leaves no trace). */
async function manifestBackupDir(run: StaticPodRun): Promise<string> {
  const existing = run.ctx.state.backups?.manifestsDir;
  if (existing) return existing;
  const dir = backupDirName('kubeadm-backup-manifests', run.ctx.clock());
  await run.ctx.host.mkdir(TMP_DIR, MODES.manifestsDir);
  await run.ctx.host.mkdir(dir, MODES.manifestsDir);
  run.ctx.state.backups = { ...run.ctx.state.backups, manifestsDir: dir };
  return dir;
}

/** The mirror Pod's hash before the change (kubeadm's WaitForStaticPodSingleHash). Nothing has changed yet if it cannot be read. */
async function hashBefore(run: StaticPodRun, component: UpgradedComponent): Promise<string> {
  const node = run.view.cfg.init.nodeRegistration.name;
  const r = await waitForMirrorPodHash(await poller(run), node, component, () => true, pollOptions(run, Date.now() + run.timeoutMs, ''));
  if (!r.ok) {
    throw new TsadmError('E_TIMEOUT', `could not read the hash of the mirror Pod kube-system/${component}-${node} within ${formatDuration(run.timeoutMs)} (${r.lastProblem}); nothing was changed for ${component}`, {
      hint: 'check that the kubelet runs this node\'s static Pods and reports them to the API server (kubectl -n kube-system get pods -o wide)',
    });
  }
  return r.value;
}

/** Waits until the kubelet runs the manifest with hash `wanted` (or any hash but `before`) and the component answers. Returns the problem, if any. */
async function waitForComponent(run: StaticPodRun, component: UpgradedComponent, accept: (hash: string) => boolean): Promise<string | undefined> {
  const deadline = Date.now() + run.timeoutMs;
  const api = await poller(run);
  const node = run.view.cfg.init.nodeRegistration.name;
  const hash = await waitForMirrorPodHash(api, node, component, accept, pollOptions(run, deadline, ''));
  const within = formatDuration(run.timeoutMs);
  if (!hash.ok) return `the kubelet did not run the manifest within ${within} (${hash.lastProblem})`;
  const pods = await waitForRunningPods(api, component, pollOptions(run, deadline, 'apiclient'));
  if (!pods.ok) return `its Pods were not Running within ${within} (${pods.lastProblem})`;
  const target = componentHealthTarget(run.view, component);
  const health = await waitForHealthy([target], { timeoutMs: Math.max(0, deadline - Date.now()), check: run.check, maxIntervalMs: 500 });
  if (!health.ok) return `${target.url} did not answer within ${within} (${health.states[0]?.lastDetail ?? 'not checked'})`;
  return undefined;
}

/**
 * Upgrades one component to `manifest`. Returns false when its manifest already is the target.
 * Throws a TsadmError after rolling back when the component does not come back.
 */
export async function upgradeComponent(run: StaticPodRun, component: UpgradedComponent, manifest: string, hooks: ComponentHooks = {}): Promise<boolean> {
  const { ctx, log } = run;
  const file = manifestPath(component);
  log.info(`Preparing for "${component}" upgrade`);
  const old = await ctx.host.readFile(file);
  if (old === undefined) {
    throw new TsadmError('E_PRECONDITION', `${file} does not exist, so ${component} cannot be upgraded`, { hint: 'is this a control-plane node made by tsadm or kubeadm? `tsadm init phase control-plane` writes the manifests' });
  }
  // kubeadm 1.28+ compares the decoded Pods, not the bytes (src/manifest/equal.ts).
  if (sameStaticPod(old, manifest)) {
    log.info(`Current and new manifests of ${component} are equal, skipping upgrade`);
    return false;
  }
  if (ctx.dryRun) {
    // The dry-run host keeps every write in its overlay and lists it (and --plan records it), so
    // the dry run does what the real run would write: the backup, the renewed certificates and
    // the new manifest; what it cannot do, wait for the kubelet, becomes a plan step of its own.
    const backup = path.posix.join(await manifestBackupDir(run), `${component}.yaml`);
    if (ctx.cfg.upgrade.certificateRenewal) await renewCertificates(run.view, certsToRenew(component, run.view.cfg.cluster.etcd.mode === 'local'), log, true);
    await ctx.host.writeFile(backup, old, { mode: MODES.manifest, kind: 'manifest', description: `backup of the static Pod manifest for "${component}"` });
    await ctx.host.writeFile(file, manifest, { mode: MODES.manifest, kind: 'manifest', description: `static Pod manifest for "${component}"` });
    journalOf(ctx.host)?.record({
      type: 'wait-static-pod', component, node: run.view.cfg.init.nodeRegistration.name, kubeconfig: ctx.options.kubeconfigPath,
      manifest: file, backup, healthUrl: componentHealthTarget(run.view, component).url, timeoutSeconds: Math.round(run.timeoutMs / 1000),
    });
    log.info(`Would move the new manifest to "${file}" and back up the old one to "${backup}" (the manifest is printed at the end)`);
    log.info(`Would wait for the kubelet to restart ${component}`);
    ctx.state.upgraded.push(component);
    return true;
  }
  const beforeHash = await hashBefore(run, component);
  // etcd's data backup comes first, as in kubeadm: if it fails, nothing has changed yet.
  await hooks.beforeChange?.();
  const backupDir = await manifestBackupDir(run);
  const backup = path.posix.join(backupDir, `${component}.yaml`);
  if (ctx.cfg.upgrade.certificateRenewal) {
    try {
      await renewCertificates(run.view, certsToRenew(component, run.view.cfg.cluster.etcd.mode === 'local'), log, true);
    } catch (err) {
      return rollback(run, component, `failed to renew certificates for component "${component}": ${errorMessage(err)}`, err);
    }
  }
  try {
    await ctx.host.writeFile(backup, old, { mode: MODES.manifest, kind: 'manifest', description: `backup of the static Pod manifest for "${component}"` });
    run.changed.set(component, { backup, old, beforeHash });
    await ctx.host.writeFile(file, manifest, { mode: MODES.manifest, kind: 'manifest', description: `static Pod manifest for "${component}"` });
  } catch (err) {
    // The writes are atomic: this component's manifest is the old one; the earlier ones go back.
    run.changed.delete(component);
    return rollback(run, component, `could not write its manifest: ${errorMessage(err)}`, err);
  }
  log.info(`Moved new manifest to "${file}" and backed up old manifest to "${backup}"`);
  log.info('Waiting for the kubelet to restart the component');
  log.info(`This might take a minute or longer depending on the component/version gap (timeout ${formatDuration(run.timeoutMs)})`);
  const problem = await waitForComponent(run, component, (h) => h !== beforeHash);
  if (problem !== undefined) return rollback(run, component, problem, undefined, hooks);
  log.info(`Component "${component}" upgraded successfully!`);
  ctx.state.upgraded.push(component);
  return true;
}

/**
 * kubeadm's rollbackOldManifests: every manifest this run changed goes back (etcd's only when
 * etcd failed: the others may already depend on the new etcd), then the failing component must
 * come back on its old manifest; for etcd, when it does not, its data is restored from the backup
 * too (kubeadm's rollbackEtcdData). Always throws.
 */
export async function rollback(run: StaticPodRun, failed: UpgradedComponent | 'admin.conf', problem: string, cause?: unknown, hooks: ComponentHooks = {}): Promise<never> {
  const { ctx, log } = run;
  const restored = new Map<UpgradedComponent, string>();
  const errors: string[] = [];
  for (const [component, b] of run.changed) {
    if (component === 'etcd' && failed !== 'etcd') continue;
    try {
      await ctx.host.writeFile(manifestPath(component), b.old, { mode: MODES.manifest, kind: 'manifest', description: `static Pod manifest for "${component}" (restored)` });
      restored.set(component, b.beforeHash);
    } catch (err) {
      errors.push(`${manifestPath(component)}: ${errorMessage(err)}`);
    }
  }
  for (const c of restored.keys()) {
    run.changed.delete(c);
    const i = ctx.state.upgraded.indexOf(c);
    if (i >= 0) ctx.state.upgraded.splice(i, 1);
  }
  const names = [...restored.keys()].join(', ');
  const dir = ctx.state.backups?.manifestsDir ?? '(no backup was made)';
  if (restored.size > 0) log.info(`Rolled back ${names} to the manifests backed up in "${dir}"`);
  const before = failed === 'admin.conf' ? undefined : restored.get(failed);
  let still: string | undefined;
  if (failed !== 'admin.conf' && before !== undefined) {
    // The restored bytes are the old ones, so the kubelet's hash returns to the old hash.
    log.info(`Waiting for the previous ${failed} to come back`);
    still = await waitForComponent(run, failed, (h) => h === before);
    if (still !== undefined && hooks.restoreData) {
      ctx.log.info(`Failed to healthcheck previous etcd: ${still}`, { prefix: 'upgrade/etcd' });
      await hooks.restoreData();
      still = await waitForComponent(run, failed, (h) => h === before);
    }
    if (still === undefined && failed === 'etcd') ctx.log.info('Etcd was rolled back and is now available', { prefix: 'upgrade/etcd' });
  }
  const what = failed === 'admin.conf' ? 'the control plane (admin.conf)' : failed;
  const rolled = restored.size > 0 ? `rolled back ${names} to the manifests in ${dir}` : 'no manifest had been changed';
  const notBack = still !== undefined ? `; the previous ${failed} is not healthy either (${still})` : '';
  const notRestored = errors.length > 0 ? `; could not restore ${errors.join(', ')}` : '';
  throw new TsadmError(cause === undefined ? 'E_TIMEOUT' : 'E_PRECONDITION', `upgrading ${what} failed: ${problem}; ${rolled}${notBack}${notRestored}`, {
    ...(cause !== undefined ? { cause } : {}),
    hint: `check the kubelet log (journalctl -xeu kubelet) and the containers (crictl ps -a | grep ${failed === 'admin.conf' ? 'kube' : failed}, then crictl logs CONTAINERID); the old manifests stay in ${dir}`,
  });
}
