/**
 * What the phases of one upgrade run share, computed on first use and kept (as join's state):
 * the admin client, the cluster as it was before this run changed anything, and this node at the
 * target version seen as an init of its own, so the init phases' renderers serve the upgrade.
 */
import { loadYamlAll } from '../../yaml/read.js';
import { TsadmError } from '../../errors.js';
import { DEFAULT_RETRY } from '../../kube/retry.js';
import type { KubeApi } from '../../kube/types.js';
import { initShapedView } from '../../run/init-view.js';
import { readUpgradeCluster, targetInitConfig, type UpgradeClusterView, type UpgradeTarget } from '../../upgrade-plan/cluster-view.js';
import { normalizeKubernetesVersion } from '../../versions/resolve.js';
import type { InitCtx } from '../../run/context.js';
import type { UpgradeCtx, UpgradeRunState } from './context.js';
import { newPatchCache } from '../../patches/run.js';

export function newUpgradeRunState(): UpgradeRunState {
  return { views: new Map(), patches: newPatchCache(), upgraded: [] };
}

/** The admin client (--kubeconfig), through the run's API seam. */
export function adminApi(ctx: UpgradeCtx): Promise<KubeApi> {
  ctx.state.adminApi ??= ctx.api.open({ path: ctx.options.kubeconfigPath }, {
    log: ctx.log,
    retry: { ...DEFAULT_RETRY, deadlineMs: ctx.cfg.upgrade.kubernetesAPICallMs },
  });
  return ctx.state.adminApi;
}

/** The cluster as this run found it (read once, before any phase changed it). */
export function clusterView(ctx: UpgradeCtx): Promise<UpgradeClusterView> {
  ctx.state.cluster ??= adminApi(ctx).then((api) => readUpgradeCluster(api, ctx.host, ctx.deps.hostname()));
  return ctx.state.cluster;
}

/**
 * The version this run upgrades to: for `upgrade apply` the [version] argument (or the
 * configuration's kubernetesVersion); for `upgrade node` the version `upgrade apply` stored in
 * the cluster.
 */
export async function targetVersion(ctx: UpgradeCtx): Promise<string> {
  if (ctx.command === 'node') return (await clusterView(ctx)).storedVersion;
  const given = ctx.cfg.upgrade.kubernetesVersion ?? overrideVersion(ctx);
  if (given === undefined || given.trim() === '') {
    throw new TsadmError('E_USAGE', 'upgrade apply needs the version to upgrade to', {
      hint: 'give it as the argument (tsadm upgrade apply v1.20.3); `tsadm upgrade plan` lists the versions this cluster can go to',
    });
  }
  return normalizeKubernetesVersion(given);
}

/** kubeadm 1.20's `--config` flow: the given ClusterConfiguration's kubernetesVersion. */
function overrideVersion(ctx: UpgradeCtx): string | undefined {
  const text = ctx.cfg.clusterOverride?.text;
  if (text === undefined) return undefined;
  for (const doc of loadYamlAll(text)) {
    const d = doc as { kind?: unknown; kubernetesVersion?: unknown } | null;
    if (d?.kind === 'ClusterConfiguration' && typeof d.kubernetesVersion === 'string') return d.kubernetesVersion;
  }
  return undefined;
}

/** This node's configuration at the target version. */
async function upgradeTarget(ctx: UpgradeCtx): Promise<UpgradeTarget> {
  const [view, version] = await Promise.all([clusterView(ctx), targetVersion(ctx)]);
  return targetInitConfig(view, {
    version,
    ...(ctx.cfg.clusterOverride ? { clusterOverride: ctx.cfg.clusterOverride } : {}),
    ...(ctx.cfg.upgrade.patches ? { patchesDir: ctx.cfg.upgrade.patches.directory } : {}),
    ignorePreflightErrors: ctx.cfg.upgrade.ignorePreflightErrors,
    now: ctx.startTime,
  });
}

/**
 * This node at the target version as an init of its own (same host, API seam and run), so the
 * init phases' logic applies as is; its lines carry the upgrade prefix given.
 */
export async function initView(ctx: UpgradeCtx, prefix: string): Promise<InitCtx> {
  const existing = ctx.state.views.get(prefix);
  if (existing) return existing;
  const target = await upgradeTarget(ctx);
  const view = initShapedView(ctx, {
    prefix, cfg: target.cfg, versions: target.versions, kubeconfigPath: ctx.options.kubeconfigPath, flags: ctx.flags, patches: ctx.state.patches,
  });
  ctx.state.views.set(prefix, view);
  return view;
}
