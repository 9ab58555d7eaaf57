import { loadYaml } from '../../yaml/read.js';
import { resolveInitConfig } from '../../config/load.js';
import type { JoinConfiguration, ResolvedInitConfig } from '../../config/types.js';
import { TsadmError, errorMessage, isTsadmError } from '../../errors.js';
import { isForbidden } from '../../kube/errors.js';
import type { ConfigMapObject, KubeApi } from '../../kube/types.js';
import { profileFor } from '../../versions/resolve.js';
import type { VersionProfile } from '../../versions/table.js';
import { KUBEADM_CONFIG_CM, KUBE_SYSTEM } from '../../constants.js';

/**
 * The cluster's configuration as a joining node reads it with its bootstrap credentials
 * (kubeadm's FetchInitConfigurationFromCluster + fetchInitConfigurationFromJoinConfiguration):
 * kubeadm-config's ClusterConfiguration and the kubelet ConfigMap of the cluster's minor, turned
 * into an init configuration for *this* node (its registration, its API endpoint), so the init
 * renderers (certs, kubeconfig, static pods, kubelet) serve join unchanged.
 */
export interface JoinClusterConfig {
  /** ClusterConfiguration exactly as stored (update-status writes it back untouched). */
  readonly clusterConfigurationYaml: string;
  readonly clusterStatusYaml: string | undefined;
  readonly kubeletConfigurationYaml: string;
  /** The cluster's controlPlaneEndpoint as stored ("" when none). */
  readonly controlPlaneEndpoint: string;
  readonly init: ResolvedInitConfig;
  readonly versions: VersionProfile;
}

export interface ClusterConfigTexts {
  readonly clusterConfigurationYaml: string;
  readonly clusterStatusYaml: string | undefined;
  readonly kubeletConfigurationYaml: string;
}

/** The cluster's Kubernetes version, read from the stored ClusterConfiguration. */
export function storedKubernetesVersion(clusterConfigurationYaml: string): string {
  const doc = parseDoc(clusterConfigurationYaml);
  const v = doc.kubernetesVersion;
  if (typeof v !== 'string' || v === '') {
    throw new TsadmError('E_PRECONDITION', 'the ClusterConfiguration in the kubeadm-config ConfigMap has no kubernetesVersion', {
      hint: 'the cluster\'s kubeadm-config ConfigMap is damaged; re-upload it with `tsadm init phase upload-config kubeadm` on a control-plane node',
    });
  }
  return v;
}

export interface NodeFacts {
  /** The join configuration with the CRI socket resolved. */
  readonly join: JoinConfiguration;
  /** Worker: the node's own address (only a placeholder for the shared renderers). */
  readonly nodeAddress: string;
  readonly now: Date;
}

/** Pure: the synthetic init configuration of this node. */
export function buildJoinClusterConfig(texts: ClusterConfigTexts, node: NodeFacts): JoinClusterConfig {
  const version = storedKubernetesVersion(texts.clusterConfigurationYaml);
  const versions = profileFor(version);
  const join = node.join;
  const cp = join.controlPlane;
  const localAPIEndpoint = cp?.localAPIEndpoint ?? { advertiseAddress: node.nodeAddress, bindPort: 6443 };
  let resolved: ResolvedInitConfig;
  try {
    resolved = resolveInitConfig({
      configText: `${texts.clusterConfigurationYaml.trimEnd()}\n---\n${texts.kubeletConfigurationYaml.trimEnd()}\n`,
      configPath: `ConfigMaps ${KUBE_SYSTEM}/${KUBEADM_CONFIG_CM} and ${KUBE_SYSTEM}/${versions.kubelet.configMapName}`,
      flags: {},
      env: { hostname: join.nodeRegistration.name, defaultAdvertiseAddress: localAPIEndpoint.advertiseAddress, now: node.now },
      // The cluster's own record, read whatever API version it was stored in (as kubeadm does).
      apiVersionCheck: 'any',
    });
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `the cluster's configuration could not be read: ${errorMessage(err)}`, {
      cause: err,
      ...(isTsadmError(err) && err.details.length > 0 ? { details: err.details } : {}),
      hint: 'tsadm reads the ClusterConfiguration and KubeletConfiguration stored by init; check them with `kubectl -n kube-system get cm kubeadm-config -o yaml`',
    });
  }
  const init: ResolvedInitConfig = {
    ...resolved,
    init: {
      ...resolved.init,
      bootstrapTokens: [],
      nodeRegistration: join.nodeRegistration,
      localAPIEndpoint,
      certificateKey: cp?.certificateKey ?? '',
      skipPhases: join.skipPhases,
      timeouts: join.timeouts,
      ...(join.patches ? { patches: join.patches } : {}),
    },
  };
  const stored = parseDoc(texts.clusterConfigurationYaml).controlPlaneEndpoint;
  return {
    ...texts,
    controlPlaneEndpoint: typeof stored === 'string' ? stored : '',
    init,
    versions,
  };
}

/** Reads kubeadm-config and the kubelet ConfigMap through the bootstrap client. */
export async function fetchClusterConfigTexts(api: KubeApi): Promise<ClusterConfigTexts> {
  const kubeadmConfig = await getConfigMap(api, KUBEADM_CONFIG_CM);
  const clusterConfigurationYaml = kubeadmConfig.data?.ClusterConfiguration;
  if (!clusterConfigurationYaml) {
    throw new TsadmError('E_PRECONDITION', `the ConfigMap ${KUBE_SYSTEM}/${KUBEADM_CONFIG_CM} has no ClusterConfiguration`, {
      hint: 'upload it with `tsadm init phase upload-config kubeadm` on a control-plane node',
    });
  }
  const versions = profileFor(storedKubernetesVersion(clusterConfigurationYaml));
  const kubelet = await getConfigMap(api, versions.kubelet.configMapName);
  const kubeletConfigurationYaml = kubelet.data?.kubelet;
  if (!kubeletConfigurationYaml) {
    throw new TsadmError('E_PRECONDITION', `the ConfigMap ${KUBE_SYSTEM}/${versions.kubelet.configMapName} has no "kubelet" key`, {
      hint: 'upload it with `tsadm init phase upload-config kubelet` on a control-plane node',
    });
  }
  return { clusterConfigurationYaml, clusterStatusYaml: kubeadmConfig.data?.ClusterStatus, kubeletConfigurationYaml };
}

async function getConfigMap(api: KubeApi, name: string): Promise<ConfigMapObject> {
  let cm: ConfigMapObject | undefined;
  try {
    cm = await api.get<ConfigMapObject>('ConfigMap', name, KUBE_SYSTEM);
  } catch (err) {
    if (isForbidden(err)) {
      throw new TsadmError('E_API', `the bootstrap credentials may not read the ConfigMap ${KUBE_SYSTEM}/${name} (forbidden)`, {
        cause: err,
        hint: 'the cluster lacks kubeadm\'s RBAC rules for joining nodes; run `tsadm init phase upload-config all` on a control-plane node',
      });
    }
    throw err;
  }
  if (!cm) {
    throw new TsadmError('E_PRECONDITION', `unable to fetch the ${name} ConfigMap: it does not exist in the ${KUBE_SYSTEM} Namespace`, {
      hint: 'was the cluster made by kubeadm or tsadm init? Upload it with `tsadm init phase upload-config all` on a control-plane node',
    });
  }
  return cm;
}

function parseDoc(text: string): Record<string, unknown> {
  try {
    const doc = loadYaml(text);
    return doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : {};
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `the stored ClusterConfiguration is not valid YAML: ${errorMessage(err)}`);
  }
}
