import { loadYaml } from '../yaml/read.js';
import { toKubeYaml } from '../yaml/write.js';
import type { APIEndpoint } from '../config/types.js';
import { KUBEADM_CONFIG_CM, KUBE_SYSTEM, NODE_BOOTSTRAP_TOKEN_GROUP } from '../constants.js';
import { COMPONENT_CONFIG_HASH_ANNOTATION, configMapHash } from '../kube/configmap-hash.js';
import type { ConfigMapObject, KubeObject } from '../kube/types.js';
import type { VersionProfile } from '../versions/table-types.js';
import { getNamed, group, role, roleBinding } from '../kube/rbac.js';

/** Pure builders of what upload-config writes (docs/kubeadm-reference.md §6.1, §6.2). */
export const NODES_GROUP = 'system:nodes';
const NODES_KUBEADM_CONFIG = 'kubeadm:nodes-kubeadm-config';

export function kubeadmConfigMap(clusterConfigurationYaml: string, clusterStatusYaml: string | undefined): ConfigMapObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: KUBEADM_CONFIG_CM, namespace: KUBE_SYSTEM },
    data: {
      ClusterConfiguration: clusterConfigurationYaml,
      ...(clusterStatusYaml !== undefined ? { ClusterStatus: clusterStatusYaml } : {}),
    },
  };
}

/**
 * ClusterStatus (v1beta2 era): the API endpoints of every control-plane node. This node is
 * added to (or refreshed in) whatever the cluster already lists, as kubeadm does.
 */
export function clusterStatusYaml(existing: string | undefined, nodeName: string, endpoint: APIEndpoint, apiVersion: string): string {
  let endpoints: Record<string, APIEndpoint> = {};
  if (existing) {
    const doc = loadYaml(existing) as { apiEndpoints?: Record<string, APIEndpoint> } | undefined;
    endpoints = { ...(doc?.apiEndpoints ?? {}) };
  }
  endpoints[nodeName] = { advertiseAddress: endpoint.advertiseAddress, bindPort: endpoint.bindPort };
  return toKubeYaml({ apiEndpoints: endpoints, apiVersion, kind: 'ClusterStatus' });
}

/** Nodes and joining bootstrap tokens may read kubeadm-config. */
export function kubeadmConfigRbac(): KubeObject[] {
  return [
    role(NODES_KUBEADM_CONFIG, KUBE_SYSTEM, [getNamed('configmaps', [KUBEADM_CONFIG_CM])]),
    roleBinding(NODES_KUBEADM_CONFIG, KUBE_SYSTEM, NODES_KUBEADM_CONFIG, [group(NODE_BOOTSTRAP_TOKEN_GROUP), group(NODES_GROUP)]),
  ];
}

/**
 * The cluster-wide KubeletConfiguration. kubeadm signs it (component-config hash) only when it
 * generated the config, not when the user supplied one.
 */
export function kubeletConfigMap(versions: VersionProfile, kubeletYaml: string, sign: boolean): ConfigMapObject {
  const data = { kubelet: kubeletYaml };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: versions.kubelet.configMapName,
      namespace: KUBE_SYSTEM,
      ...(sign ? { annotations: { [COMPONENT_CONFIG_HASH_ANNOTATION]: configMapHash(data) } } : {}),
    },
    data,
  };
}

export function kubeletConfigRbac(versions: VersionProfile): KubeObject[] {
  const name = versions.kubelet.configRbacName;
  return [
    role(name, KUBE_SYSTEM, [getNamed('configmaps', [versions.kubelet.configMapName])]),
    roleBinding(name, KUBE_SYSTEM, name, [group(NODES_GROUP), group(NODE_BOOTSTRAP_TOKEN_GROUP)]),
  ];
}
