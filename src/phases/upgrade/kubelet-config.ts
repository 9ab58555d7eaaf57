/**
 * The cluster's kubelet configuration at the target version, as init of that version renders it
 * (src/phases/kubelet/settings.ts): uploaded by `upload-config kubelet`, written to this node's
 * /var/lib/kubelet/config.yaml by `kubelet-config` (kubeadm's WriteConfigToDisk, for `upgrade
 * apply` and `upgrade node` alike). The kubelet is not restarted: kubeadm leaves that to the
 * operator, who swaps the kubelet binary and restarts it.
 */
import type { Phase } from '../../engine/phase.js';
import { COMPONENT_CONFIG_HASH_ANNOTATION, configMapHash } from '../../kube/configmap-hash.js';
import type { ConfigMapObject } from '../../kube/types.js';
import { toKubeYaml } from '../../yaml/write.js';
import { profileFor } from '../../versions/resolve.js';
import type { InitCtx } from '../../run/context.js';
import type { UpgradeCtx } from './context.js';
import { prepareKubeletFiles, type PreparedKubelet } from '../kubelet/settings.js';
import { adminApi, clusterView, initView } from './state.js';
import { KUBE_SYSTEM } from '../../constants.js';

/**
 * Renders this node's kubelet settings from the cluster's stored KubeletConfiguration at the
 * target version. `patches`: apply --patches (kubeletconfiguration target, where the minor has
 * it); the uploaded configuration is never patched, only this node's file.
 */
export function renderUpgradeKubelet(ctx: UpgradeCtx, view: InitCtx, patches: boolean): Promise<PreparedKubelet> {
  return prepareKubeletFiles(view, {
    cluster: view.cfg.cluster,
    kubeletConfig: view.cfg.componentConfigs.kubelet,
    nodeRegistration: view.cfg.init.nodeRegistration,
    hostname: ctx.deps.hostname(),
    registerTaints: false,
    versions: view.versions,
    patchesDir: patches ? view.cfg.init.patches?.directory : undefined,
    // The stored configuration already holds the cgroup driver the first control plane chose.
    probeDockerCgroupDriver: false,
  });
}

/** The cluster-wide document: without this node's CRI endpoint (NodeLocalCRISocket merges it into the file only). */
export function clusterKubeletYaml(prepared: PreparedKubelet): string {
  const { containerRuntimeEndpoint: _node, ...cluster } = prepared.settings.config;
  return toKubeYaml(prepared.settings.nodeLocalCriSocket ? cluster : prepared.settings.config);
}

/**
 * Whether the stored kubelet ConfigMap carries kubeadm's valid signature: kubeadm treats an
 * unsigned or edited one as the user's, and uploads it again without a signature.
 */
export async function storedKubeletSigned(ctx: UpgradeCtx): Promise<boolean> {
  const [api, view] = await Promise.all([adminApi(ctx), clusterView(ctx)]);
  const cm = await api.get<ConfigMapObject>('ConfigMap', profileFor(view.storedVersion).kubelet.configMapName, KUBE_SYSTEM);
  const hash = cm?.metadata.annotations?.[COMPONENT_CONFIG_HASH_ANNOTATION];
  return hash !== undefined && hash === configMapHash(cm?.data ?? {}, cm?.binaryData ?? {});
}

async function runKubeletConfig(ctx: UpgradeCtx): Promise<void> {
  // kubeadm's WriteConfigToDisk prints under "[kubelet-start]" in upgrades too.
  const view = await initView(ctx, 'kubelet-start');
  const { files } = await renderUpgradeKubelet(ctx, view, true);
  const f = files.config;
  await ctx.host.assertWritable(f.path);
  view.log.info(f.announce);
  // Through the host seam: a dry run records (and lists) the file instead of writing it.
  await ctx.host.writeFile(f.path, f.content, { mode: f.mode, kind: 'config', description: f.description });
}

export const upgradeKubeletConfigPhase: Phase<UpgradeCtx> = {
  name: 'kubelet-config',
  summary: 'Upgrade the kubelet configuration for this node',
  description: 'Write /var/lib/kubelet/config.yaml from the cluster\'s kubelet configuration at the target version, with the '
    + 'kubeletconfiguration --patches where the version supports them. The kubelet is not restarted: upgrade the kubelet package and restart it.',
  flags: ['kubeconfig', 'patches'],
  run: runKubeletConfig,
};
