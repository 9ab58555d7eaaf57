/**
 * The cluster's feature gates as join sees them: kubeadm reads them from the ClusterConfiguration
 * stored in the cluster (kubeadm-config), at the cluster's Kubernetes minor.
 */
import { featureEnabled } from '../../config/feature-gates.js';
import type { JoinCtx } from './context.js';
import { clusterConfig } from './state.js';

export async function clusterFeatureEnabled(ctx: JoinCtx, name: string): Promise<boolean> {
  const cluster = await clusterConfig(ctx);
  return featureEnabled(cluster.init.cluster.featureGates, cluster.versions, name);
}

/** ControlPlaneKubeletLocalMode: join's reordered flow (etcd-join, kubelet-wait-bootstrap), kubelet talking to the local kube-apiserver. */
export function kubeletLocalMode(ctx: JoinCtx): Promise<boolean> {
  return clusterFeatureEnabled(ctx, 'ControlPlaneKubeletLocalMode');
}
