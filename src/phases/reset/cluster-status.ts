import * as yaml from 'js-yaml';
import { toKubeYaml } from '../../yaml/write.js';

/**
 * ClusterStatus without one node (kubeadm's ResetClusterStatusForNode); undefined when the node
 * is not listed (nothing to write). Pure.
 */
export function clusterStatusWithout(clusterStatusYaml: string, nodeName: string): string | undefined {
  const doc = (yaml.load(clusterStatusYaml) ?? {}) as { apiEndpoints?: Record<string, unknown>; apiVersion?: string; kind?: string };
  const endpoints = { ...(doc.apiEndpoints ?? {}) };
  if (!(nodeName in endpoints)) return undefined;
  delete endpoints[nodeName];
  return toKubeYaml({ apiEndpoints: endpoints, apiVersion: doc.apiVersion ?? 'kubeadm.k8s.io/v1beta2', kind: doc.kind ?? 'ClusterStatus' });
}
