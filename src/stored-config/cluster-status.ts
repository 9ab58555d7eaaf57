import { loadYaml } from '../yaml/read.js';
import type { ConfigMapObject } from '../kube/types.js';
import { toKubeYaml } from '../yaml/write.js';
import { kubeadmConfigMap } from './render.js';

/**
 * ClusterStatus without one node (kubeadm's ResetClusterStatusForNode); undefined when the node
 * is not listed (nothing to write). Pure.
 */
export function clusterStatusWithout(clusterStatusYaml: string, nodeName: string): string | undefined {
  const doc = (loadYaml(clusterStatusYaml) ?? {}) as { apiEndpoints?: Record<string, unknown>; apiVersion?: string; kind?: string };
  const endpoints = { ...(doc.apiEndpoints ?? {}) };
  if (!(nodeName in endpoints)) return undefined;
  delete endpoints[nodeName];
  return toKubeYaml({ apiEndpoints: endpoints, apiVersion: doc.apiVersion ?? 'kubeadm.k8s.io/v1beta2', kind: doc.kind ?? 'ClusterStatus' });
}

/**
 * kubeadm-config without the node, computed from the live ConfigMap (`ensure`'s rebase: a
 * control plane joining or leaving at the same moment keeps its change); `fallback` when the live
 * object has no ClusterStatus. Pure.
 */
export function kubeadmConfigWithout(live: ConfigMapObject | undefined, fallback: ConfigMapObject, nodeName: string): ConfigMapObject {
  const cluster = live?.data?.ClusterConfiguration;
  const status = live?.data?.ClusterStatus;
  if (cluster === undefined || status === undefined) return fallback;
  return kubeadmConfigMap(cluster, clusterStatusWithout(status, nodeName) ?? status);
}
