import type { APIEndpoint } from '../../config/types.js';
import { CRI_SOCKET_ANNOTATION, KUBEADM_CONFIG_CM, KUBE_SYSTEM } from '../../constants.js';
import type { Logger } from '../../log/events.js';
import type { ConfigMapObject, KubeApi, PatchNodeOptions } from '../../kube/types.js';
import type { VersionProfile } from '../../versions/table-types.js';
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { clusterKubeletConfigYaml } from '../kubelet/config.js';
import { usesNodeLocalCriSocket } from '../kubelet/settings.js';
import { clusterApi } from './api.js';
import { PATCH_NODE_OPTIONS } from './node-patch.js';
import { clusterConfigurationYaml, kubeletConfigurationYaml, nodeCriSocket } from './sources.js';
import {
  clusterStatusYaml, kubeadmConfigMap, kubeadmConfigRbac, kubeletConfigMap, kubeletConfigRbac,
} from '../../stored-config/render.js';

/**
 * upload-config: kubeadm-config (ClusterConfiguration [+ ClusterStatus]) and the kubelet
 * component config, each readable by joining nodes. Idempotent: objects are compared with the
 * live ones and written only when they differ. Dry-run: writes are listed, not sent.
 */
export interface UploadKubeadmConfigInput {
  readonly clusterConfigurationYaml: string;
  /** Set when this minor keeps ClusterStatus (v1beta2): the node and its API endpoint. */
  readonly clusterStatus?: { readonly nodeName: string; readonly endpoint: APIEndpoint; readonly apiVersion: string };
}

export async function uploadKubeadmConfig(api: KubeApi, input: UploadKubeadmConfigInput, log: Pick<Logger, 'info'>): Promise<void> {
  log.info(`Storing the configuration used in ConfigMap "${KUBEADM_CONFIG_CM}" in the "${KUBE_SYSTEM}" Namespace`, { prefix: 'upload-config' });
  const s = input.clusterStatus;
  // ClusterStatus lists every control plane: control planes joining at once each add their own
  // entry to the live list, again after a conflict (kubeadm's MutateConfigMap retries the same way).
  const desired = (live: ConfigMapObject | undefined): ConfigMapObject =>
    kubeadmConfigMap(input.clusterConfigurationYaml, s ? clusterStatusYaml(live?.data?.ClusterStatus, s.nodeName, s.endpoint, s.apiVersion) : undefined);
  await api.ensure(desired(undefined), 'update', s ? desired : undefined);
  for (const obj of kubeadmConfigRbac()) await api.ensure(obj);
}

export interface UploadKubeletConfigInput {
  readonly versions: VersionProfile;
  readonly kubeletConfigurationYaml: string;
  /** kubeadm signs only a kubelet config it generated itself. */
  readonly sign: boolean;
  readonly nodeName: string;
  /** Undefined when the socket is not recorded on the Node (NodeLocalCRISocket). */
  readonly criSocket: string | undefined;
  readonly patchNode?: PatchNodeOptions;
}

export async function uploadKubeletConfig(api: KubeApi, input: UploadKubeletConfigInput, log: Pick<Logger, 'info'>): Promise<void> {
  const cm = kubeletConfigMap(input.versions, input.kubeletConfigurationYaml, input.sign);
  log.info(`Creating a ConfigMap "${cm.metadata.name}" in namespace ${KUBE_SYSTEM} with the configuration for the kubelets in the cluster`, { prefix: 'kubelet' });
  await api.ensure(cm);
  for (const obj of kubeletConfigRbac(input.versions)) await api.ensure(obj);
  const socket = input.criSocket;
  if (socket !== undefined) {
    await api.patchNode(input.nodeName, (n) => {
      n.metadata.annotations[CRI_SOCKET_ANNOTATION] = socket;
    }, input.patchNode ?? PATCH_NODE_OPTIONS);
  }
}

export const uploadConfigPhase: Phase<InitCtx> = {
  name: 'upload-config',
  aliases: ['uploadconfig'],
  summary: 'Upload the kubeadm and kubelet configuration to a ConfigMap',
  description: 'Upload the ClusterConfiguration to the kubeadm-config ConfigMap and the KubeletConfiguration to the kubelet-config ConfigMap '
    + 'in kube-system, with the RBAC rules that let nodes read them, so that join and upgrade find them.',
  example: '  # Uploads both configurations, functionally equivalent to what tsadm init does.\n  tsadm init phase upload-config all --config config.yaml',
  children: [
    {
      name: 'kubeadm',
      summary: 'Upload the kubeadm ClusterConfiguration to a ConfigMap',
      description: 'Upload the kubeadm ClusterConfiguration to a ConfigMap called kubeadm-config in the kube-system namespace. '
        + 'This enables correct configuration of system components and a seamless user experience when upgrading.',
      example: '  # Uploads the configuration of your cluster\n  tsadm init phase upload-config kubeadm --config=myConfig.yaml',
      flags: ['config', 'kubeconfig'],
      async run(ctx) {
        const api = await clusterApi(ctx);
        const { nodeRegistration, localAPIEndpoint } = ctx.cfg.init;
        await uploadKubeadmConfig(api, {
          clusterConfigurationYaml: clusterConfigurationYaml(ctx),
          ...(ctx.versions.controlPlane.clusterStatus
            ? { clusterStatus: { nodeName: nodeRegistration.name, endpoint: localAPIEndpoint, apiVersion: ctx.versions.configApiVersion } }
            : {}),
        }, ctx.log);
      },
    },
    {
      name: 'kubelet',
      summary: 'Upload the kubelet component config to a ConfigMap',
      description: 'Upload the kubelet configuration extracted from the kubeadm InitConfiguration object to a kubelet-config ConfigMap '
        + 'in the cluster, and annotate the Node with its CRI socket.',
      example: '  # Upload the kubelet configuration from the kubeadm Config file to a ConfigMap in the cluster.\n  tsadm init phase upload-config kubelet --config kubeadm.yaml',
      flags: ['config', 'kubeconfig', 'cri-socket', 'node-name'],
      async run(ctx) {
        const api = await clusterApi(ctx);
        await uploadKubeletConfig(api, {
          versions: ctx.versions,
          kubeletConfigurationYaml: clusterKubeletConfigYaml(await kubeletConfigurationYaml(ctx), ctx.cfg.componentConfigs.kubelet, ctx.versions),
          sign: !ctx.cfg.componentConfigs.userKubelet,
          nodeName: ctx.cfg.init.nodeRegistration.name,
          // NodeLocalCRISocket keeps the socket off the Node object.
          criSocket: usesNodeLocalCriSocket(ctx.cfg.cluster, ctx.versions) ? undefined : nodeCriSocket(ctx),
        }, ctx.log);
      },
    },
  ],
};
