import { refuseUnreadApiVersions } from '../../config/api-versions.js';
import { joinStoredFieldErrors } from '../../config/stored-fields.js';
import { configInvalid } from '../../config/validate.js';
import { KUBECONFIG_FILES, KUBERNETES_DIR } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import { detectCriSocket } from '../../host/cri.js';
import { bootstrapKubeconfig, type JoinDiscovery } from '../../discovery/discover.js';
import type { ApiOpenOptions } from '../../kube/seam.js';
import type { KubeApi } from '../../kube/types.js';
import { initShapedView } from '../../run/init-view.js';
import type { InitCtx } from '../../run/context.js';
import type { JoinCtx, JoinRunState } from './context.js';
import { prereleaseWarning, profileFor } from '../../versions/resolve.js';
import { newPatchCache } from '../../patches/run.js';
import { buildJoinClusterConfig, fetchClusterConfigTexts, storedKubernetesVersion, type JoinClusterConfig } from '../../stored-config/cluster-config.js';

export function newJoinRunState(): JoinRunState {
  return { views: new Map(), patches: newPatchCache() };
}

/**
 * How join opens its clients: read from files or discovery (never recorded in a --plan: join's
 * plan holds files only), a dry run tries the cluster for 5 s.
 */
export function joinApiOptions(ctx: JoinCtx): ApiOpenOptions {
  return { log: ctx.log, dryRunRequestTimeoutMs: 5000 };
}

export function discovery(ctx: JoinCtx): Promise<JoinDiscovery> {
  ctx.state.discovery ??= ctx.deps.discover(ctx.cfg.join.discovery, ctx.log);
  return ctx.state.discovery;
}

/** The API with the TLS bootstrap credentials, verified against the discovered CA. */
export function bootstrapApi(ctx: JoinCtx): Promise<KubeApi> {
  ctx.state.bootstrapApi ??= (async () => {
    const disc = await discovery(ctx);
    return ctx.api.open({ text: bootstrapKubeconfig(disc, 'kubernetes'), source: 'the TLS bootstrap credentials' }, joinApiOptions(ctx));
  })();
  return ctx.state.bootstrapApi;
}

export function clusterConfig(ctx: JoinCtx): Promise<JoinClusterConfig> {
  ctx.state.cluster ??= (async () => {
    const disc = await discovery(ctx);
    const api = await bootstrapApi(ctx);
    ctx.log.info('Reading configuration from the cluster...', { prefix: 'preflight' });
    ctx.log.info("FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'", { prefix: 'preflight' });
    const texts = await fetchClusterConfigTexts(api);
    // A cluster at a pre-release of the preview minor (src/versions/release.ts): its row may still
    // change. A damaged configuration is reported below, where it is read for the join.
    const preview = (() => {
      try {
        return prereleaseWarning(storedKubernetesVersion(texts.clusterConfigurationYaml));
      } catch {
        return undefined;
      }
    })();
    if (preview !== undefined) ctx.log.warn(preview, { prefix: 'config' });
    // The JoinConfiguration's API version against the cluster's minor, known only now (docs/config.md).
    if (ctx.cfg.apiVersions) {
      const kubernetesVersion = storedKubernetesVersion(texts.clusterConfigurationYaml);
      const config = typeof ctx.flags.config === 'string' ? { source: ctx.flags.config } : {};
      for (const w of refuseUnreadApiVersions(ctx.cfg.apiVersions, { kubernetesVersion, profile: profileFor(kubernetesVersion), ...config })) ctx.log.warn(w, { prefix: 'config' });
      // Fields the cluster's minor cannot carry (src/config/stored-fields.ts): a flag repeated in kubeletExtraArgs.
      const lost = joinStoredFieldErrors(ctx.cfg.join.nodeRegistration, { kubernetesVersion, profile: profileFor(kubernetesVersion) });
      if (lost.length > 0) throw configInvalid(lost, config.source);
    }
    const join = ctx.cfg.join;
    let criSocket = join.nodeRegistration.criSocket;
    if (criSocket === '') {
      const v = profileFor(storedKubernetesVersion(texts.clusterConfigurationYaml));
      criSocket = await detectCriSocket(ctx.host, { dockershimEra: v.kubelet.containerRuntimeRemoteFlag, asUrl: v.kubelet.criSocketUrl });
    }
    // A worker has no API endpoint; its node address only fills the shared renderers' slot
    // (never rendered for a worker), so an unusable one falls back to a documentation address.
    const local = await ctx.deps.localAddress(disc.server);
    const nodeAddress = join.controlPlane?.localAPIEndpoint.advertiseAddress
      ?? (local !== undefined && !isLoopback(local) ? local : '192.0.2.1');
    return buildJoinClusterConfig(texts, {
      join: { ...join, nodeRegistration: { ...join.nodeRegistration, criSocket } },
      nodeAddress,
      now: ctx.startTime,
    });
  })();
  return ctx.state.cluster;
}

/** admin.conf of this new control plane (written by control-plane-prepare/kubeconfig). */
export function adminApi(ctx: JoinCtx): Promise<KubeApi> {
  ctx.state.adminApi ??= (async () => {
    const file = `${KUBERNETES_DIR}/${KUBECONFIG_FILES.admin}`;
    const text = (await ctx.host.readFile(file))?.toString('utf8');
    if (text === undefined) {
      throw new TsadmError('E_PRECONDITION', `couldn't read ${file}: no such file`, {
        hint: 'it is written by `tsadm join phase control-plane-prepare kubeconfig`; run that phase first',
      });
    }
    return ctx.api.open({ text, source: file }, joinApiOptions(ctx));
  })();
  ctx.state.adminApi.catch(() => { ctx.state.adminApi = undefined; });
  return ctx.state.adminApi;
}

/**
 * This node seen as an init of its own (same host, same run), so the init phases' logic
 * (certs, kubeconfig, static pods) applies as is; its lines carry kubeadm's join prefixes.
 */
export async function initView(ctx: JoinCtx, prefix: string): Promise<InitCtx> {
  const existing = ctx.state.views.get(prefix);
  if (existing) return existing;
  const cluster = await clusterConfig(ctx);
  const view = initShapedView(ctx, {
    prefix, cfg: cluster.init, versions: cluster.versions, kubeconfigPath: `${KUBERNETES_DIR}/${KUBECONFIG_FILES.admin}`, flags: ctx.flags, patches: ctx.state.patches,
  });
  ctx.state.views.set(prefix, view);
  return view;
}


function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}
