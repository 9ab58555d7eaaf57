/**
 * `upgrade apply phase upload-config`: kubeadm-config with the target kubernetesVersion, in the
 * API version the target minor stores (ClusterStatus kept where that minor still has it), and
 * the target minor's kubelet ConfigMap with its RBAC: init's upload-config logic, run for this
 * cluster at the target version (kubeadm's UploadConfiguration and kubeletphase.CreateConfigMap).
 * The CRI socket annotation is post-upgrade's (kubeadm does it after the kubelet files).
 */
import type { Phase } from '../../engine/phase.js';
import type { UpgradeCtx } from './context.js';
import { clusterApi } from '../cluster/api.js';
import { clusterConfigurationYaml } from '../cluster/sources.js';
import { uploadKubeadmConfig, uploadKubeletConfig } from '../cluster/upload-config.js';
import { clusterKubeletYaml, renderUpgradeKubelet, storedKubeletSigned } from './kubelet-config.js';
import { initView } from './state.js';

async function runUploadKubeadm(ctx: UpgradeCtx): Promise<void> {
  const view = await initView(ctx, 'upload-config');
  const { nodeRegistration, localAPIEndpoint } = view.cfg.init;
  await uploadKubeadmConfig(await clusterApi(view), {
    clusterConfigurationYaml: clusterConfigurationYaml(view),
    ...(view.versions.controlPlane.clusterStatus
      ? { clusterStatus: { nodeName: nodeRegistration.name, endpoint: localAPIEndpoint, apiVersion: view.versions.configApiVersion } }
      : {}),
  }, view.log);
}

async function runUploadKubelet(ctx: UpgradeCtx): Promise<void> {
  const view = await initView(ctx, 'upload-config');
  const prepared = await renderUpgradeKubelet(ctx, view, false);
  await uploadKubeletConfig(await clusterApi(view), {
    versions: view.versions,
    kubeletConfigurationYaml: clusterKubeletYaml(prepared),
    sign: await storedKubeletSigned(ctx),
    nodeName: view.cfg.init.nodeRegistration.name,
    criSocket: undefined,
  }, view.log);
}

export const upgradeUploadConfigPhase: Phase<UpgradeCtx> = {
  name: 'upload-config',
  summary: 'Upload the kubeadm and kubelet configurations to ConfigMaps',
  children: [
    {
      name: 'kubeadm',
      summary: 'Upload the kubeadm ClusterConfiguration to a ConfigMap',
      description: 'Store the ClusterConfiguration with the target kubernetesVersion in the kubeadm-config ConfigMap, as init of that version does.',
      flags: ['kubeconfig'],
      run: runUploadKubeadm,
    },
    {
      name: 'kubelet',
      summary: 'Upload the kubelet configuration to a ConfigMap',
      description: 'Store the cluster\'s kubelet configuration in the target version\'s kubelet ConfigMap, with the RBAC rules that let nodes read it.',
      flags: ['kubeconfig'],
      run: runUploadKubelet,
    },
  ],
};
