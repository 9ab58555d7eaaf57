import { resolveInitConfig } from '../config/load.js';
import type { JoinConfiguration, ResolvedInitConfig } from '../config/types.js';
import { TsadmError, errorMessage, isTsadmError } from '../errors.js';
import { STORED_CONFIG_API_VERSION_CHECK, getKubeSystemConfigMap, parseClusterConfiguration, readKubeadmConfig } from '../kube/kubeadm-config.js';
import type { KubeApi } from '../kube/types.js';
import { profileFor } from '../versions/resolve.js';
import type { VersionProfile } from '../versions/table-types.js';
import { KUBEADM_CONFIG_CM, KUBE_SYSTEM } from '../constants.js';

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
  return kubernetesVersionIn(parseClusterConfiguration(clusterConfigurationYaml));
}

function kubernetesVersionIn(doc: Readonly<Record<string, unknown>>): string {
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
      apiVersionCheck: STORED_CONFIG_API_VERSION_CHECK,
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
  const stored = parseClusterConfiguration(texts.clusterConfigurationYaml).controlPlaneEndpoint;
  return {
    ...texts,
    controlPlaneEndpoint: typeof stored === 'string' ? stored : '',
    init,
    versions,
  };
}

const BOOTSTRAP = { credentials: 'the bootstrap credentials' } as const;

/** Reads kubeadm-config and the kubelet ConfigMap through the bootstrap client. */
export async function fetchClusterConfigTexts(api: KubeApi): Promise<ClusterConfigTexts> {
  const kubeadmConfig = await readKubeadmConfig(api, BOOTSTRAP);
  const versions = profileFor(kubernetesVersionIn(kubeadmConfig.clusterConfiguration));
  const kubelet = await getKubeSystemConfigMap(api, versions.kubelet.configMapName, BOOTSTRAP);
  const kubeletConfigurationYaml = kubelet.data?.kubelet;
  if (!kubeletConfigurationYaml) {
    throw new TsadmError('E_PRECONDITION', `the ConfigMap ${KUBE_SYSTEM}/${versions.kubelet.configMapName} has no "kubelet" key`, {
      hint: 'upload it with `tsadm init phase upload-config kubelet` on a control-plane node',
    });
  }
  return { clusterConfigurationYaml: kubeadmConfig.clusterConfigurationYaml, clusterStatusYaml: kubeadmConfig.clusterStatusYaml, kubeletConfigurationYaml };
}
