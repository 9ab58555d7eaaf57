/**
 * The lifecycle commands end to end over a Runtime (host, logger): build the context, run the
 * logic, say what happened. src/commands/{certs,kubeconfig}.ts only turn argv into these options.
 */
import { formatDuration } from '../duration.js';
import { DEFAULT_ADMIN_KUBECONFIG } from '../constants.js';
import { readClusterConfiguration } from './cluster-config.js';
import { TsadmError } from '../errors.js';
import { reportDryRun } from '../run/dry-run-report.js';
import type { Runtime } from '../run/runtime.js';
import { buildLifecycleCtx, prefixed, type LifecycleCtx, type LifecycleOptions } from './context.js';
import { caWarnings } from './auto-select.js';
import { checkExpiration, expiringItems } from './expiration.js';
import { formatExpiration, kubeadmDate, type ExpirationFormat } from './expiration-format.js';
import { generateCsrs } from './generate-csr.js';
import type { Component } from './inventory.js';
import { kubeconfigForUser, type KubeconfigUserOptions } from './kubeconfig-user.js';
import { applyRenewal, planRenewal, selectEntries, type RenewResult } from './renew.js';
import { runProbe } from './probe.js';
import { describeRestartStep, plannedRestarts, restartInOrder } from './restart.js';
import { ExpiringError } from './threshold.js';

export type PathOptions = Omit<LifecycleOptions, 'needsAdvertiseAddress' | 'clusterConfigText'>;

/** --kubeconfig of renew and check-expiration (kubeadm's default: /etc/kubernetes/admin.conf). */
export interface ClusterOptions {
  readonly kubeconfig?: string;
}

/**
 * Without --config, the cluster's ClusterConfiguration through --kubeconfig (kubeadm's
 * getInternalCfg); its "[prefix] Reading configuration…" lines are printed for text output only
 * (kubeadm's structured printers are silent there), followed by an empty line.
 */
export async function clusterConfigFor(rt: Runtime, o: PathOptions & ClusterOptions, prefix: string, print: boolean): Promise<string | undefined> {
  if (o.config !== undefined) return undefined;
  const read = await readClusterConfiguration(rt, o.kubeconfig ?? DEFAULT_ADMIN_KUBECONFIG);
  if (print && read.lines.length > 0) {
    for (const line of read.lines) rt.log.info(line, { prefix });
    rt.log.output('');
  }
  return read.text;
}

export async function runCheckExpiration(rt: Runtime, o: PathOptions & ClusterOptions & { format: ExpirationFormat; thresholdSeconds?: number }): Promise<void> {
  const clusterConfigText = await clusterConfigFor(rt, o, 'check-expiration', o.format === 'table');
  const ctx = await buildLifecycleCtx(rt, { ...o, needsAdvertiseAddress: false, ...(clusterConfigText !== undefined ? { clusterConfigText } : {}) });
  const report = await checkExpiration({
    host: ctx.host,
    certDir: ctx.certDir,
    kubeconfigDir: ctx.kubeconfigDir,
    externalEtcd: ctx.cfg.cluster.etcd.mode === 'external',
    now: rt.startTime,
    ...(o.thresholdSeconds !== undefined ? { thresholdSeconds: o.thresholdSeconds } : {}),
  });
  rt.log.output(formatExpiration(report, o.format));
  // A CA is never renewed by tsadm (nor kubeadm): say loudly, on stderr, when one has less than a year left.
  for (const w of caWarnings(report)) rt.log.warn(`WARNING: ${w}`, { prefix: 'check-expiration' });
  const expiring = expiringItems(report);
  if (expiring.length > 0) {
    const cas = new Set(report.certificateAuthorities.map((c) => c.name));
    const caExpiring = expiring.some((e) => cas.has(e.name));
    throw new ExpiringError(
      `${expiring.length} certificate(s) expire within ${formatDuration((o.thresholdSeconds ?? 0) * 1000)} or have expired: ${expiring.map((e) => e.name).join(', ')}`,
      `renew them with "tsadm certs renew <name>" (or "all")${caExpiring ? '; a certificate authority cannot be renewed: replace it and every certificate it signed' : ''}`,
    );
  }
}

export interface RenewCommandOptions extends PathOptions, ClusterOptions {
  readonly name: string;
  readonly newKey: boolean;
  /** Restart the static pods that read renewed certificates. */
  readonly restart: boolean;
}

export async function runRenew(rt: Runtime, o: RenewCommandOptions): Promise<RenewResult> {
  const clusterConfigText = await clusterConfigFor(rt, o, 'renew', true);
  const ctx = await buildLifecycleCtx(rt, { ...o, needsAdvertiseAddress: false, ...(clusterConfigText !== undefined ? { clusterConfigText } : {}) });
  const log = prefixed(rt.log, 'renew');
  const result = await planRenewal({ ...ctx, log }, selectEntries(ctx, o.name), { newKey: o.newKey });
  await applyRenewal(ctx, result);
  for (const e of result.missing) log.warn(`MISSING! ${e.longName}`);
  for (const e of result.external) log.warn(`Detected external ${e.caBaseName}, ${e.longName} can't be renewed`);
  for (const r of result.renewed) {
    log.info(`${r.entry.longName} ${rt.dryRun ? 'would be renewed' : 'renewed'}`);
    rt.log.debug(`${r.path}: serial ${r.renewed.serial.toString(16)}, expires ${kubeadmDate(r.renewed.notAfter)}${r.newKey ? ', new key' : ', same key'}`, { prefix: 'renew' });
  }
  if (result.renewed.length > 0) await afterRenewal(ctx, rt, result, o);
  if (rt.dryRun) reportDryRun(rt.host, rt.log);
  if (result.external.length > 0) {
    throw new TsadmError('E_PRECONDITION', `${result.external.length} certificate(s) not renewed: their CA key is not on this node (external CA): ${result.external.map((e) => e.name).join(', ')}`, {
      hint: 'issue new certificates with your CA ("tsadm certs generate-csr" writes keys and CSRs), or provide the CA key',
    });
  }
  return result;
}

async function afterRenewal(ctx: LifecycleCtx, rt: Runtime, result: RenewResult, o: RenewCommandOptions): Promise<void> {
  const log = (m: string): void => rt.log.info(m, { prefix: 'renew' });
  const done = rt.dryRun ? 'Dry run: nothing was renewed.' : 'Done renewing certificates.';
  if (result.renewed.some((r) => r.entry.name === 'admin.conf' || r.entry.name === 'super-admin.conf')) {
    log('Copies of admin.conf (such as $HOME/.kube/config) still hold the old client certificate; copy the file again.');
  }
  if (result.restart.length === 0) {
    log(`${done} No control-plane component needs a restart for them.`);
    return;
  }
  if (!o.restart) {
    log(`${done} You must restart ${humanList(result.restart)}, so that they can use the new certificates (or run again with --restart).`);
    return;
  }
  log(`${done} Restarting ${humanList(result.restart)}.`);
  await restartComponents(ctx, rt, result.restart);
}

async function restartComponents(ctx: LifecycleCtx, rt: Runtime, components: readonly Component[]): Promise<void> {
  // A dry run plans file writes on its overlay; restarting processes has no overlay, so it is only announced.
  if (rt.dryRun) {
    for (const step of await plannedRestarts(ctx.host, components)) rt.log.info(describeRestartStep(step), { prefix: 'dryrun' });
    return;
  }
  const log = prefixed(rt.log, 'restart');
  // One at a time, etcd first (with the API server stopped around it): each waits for the previous to be healthy.
  await restartInOrder({ host: ctx.host, log, probe: (p) => runProbe(p) }, components);
}

export function humanList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export async function runGenerateCsr(rt: Runtime, o: PathOptions): Promise<void> {
  const ctx = await buildLifecycleCtx(rt, { ...o, needsAdvertiseAddress: true });
  await generateCsrs(ctx);
  if (rt.dryRun) reportDryRun(rt.host, rt.log);
}

export async function runKubeconfigUser(rt: Runtime, o: PathOptions & KubeconfigUserOptions): Promise<void> {
  const ctx = await buildLifecycleCtx(rt, { ...o, needsAdvertiseAddress: true });
  // The user asked for this kubeconfig, private key included, on stdout (as kubeadm prints it).
  rt.log.output(await kubeconfigForUser(ctx, o));
}
