/**
 * The images a control-plane node uses, in kubeadm's order (`kubeadm config images list`,
 * images.GetControlPlaneImages): the four Kubernetes images, then pause, etcd (local etcd only)
 * and CoreDNS (1.20–1.28), or CoreDNS, pause, etcd (1.29+); from 1.31 (PR #114534) without the
 * image of a disabled addon. Per-image overrides (etcd.local.imageRepository/imageTag,
 * dns.imageRepository/imageTag) come from the same helpers the manifests and addons use.
 */
import type { ClusterConfiguration } from '../../config/types.js';
import { imageRepository } from '../../manifest/inputs.js';
import { imageRef, kubernetesImageTag } from '../../manifest/static-pod.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { corednsImage } from '../addons/images.js';

/** The addons an init skips with skipPhases (addon/coredns, addon/kube-proxy, or addon/all). */
export interface SkippedAddons {
  readonly coredns: boolean;
  readonly kubeProxy: boolean;
}

/** kubeadm's manageSkippedAddons (1.31+): skipPhases addon/… count as a disabled addon. */
export function skippedAddons(skipPhases: readonly string[]): SkippedAddons {
  const has = (p: string): boolean => skipPhases.includes(p) || skipPhases.includes('addon/all') || skipPhases.includes('addon');
  return { coredns: has('addon/coredns'), kubeProxy: has('addon/kube-proxy') };
}

export function controlPlaneImages(cluster: ClusterConfiguration, versions: VersionProfile, skipped: SkippedAddons = { coredns: false, kubeProxy: false }): string[] {
  const repo = imageRepository(cluster, versions);
  const tag = kubernetesImageTag(cluster.kubernetesVersion);
  const kube = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((n) => imageRef(repo, n, tag));
  const pause = imageRef(repo, 'pause', versions.images.pauseTag);
  const etcd = cluster.etcd.mode === 'local'
    ? [imageRef(cluster.etcd.imageRepository || repo, 'etcd', cluster.etcd.imageTag || versions.images.etcdTag)]
    : [];
  if (versions.images.listOrder === 'pause-etcd-dns') {
    return [...kube, imageRef(repo, 'kube-proxy', tag), pause, ...etcd, corednsImage(cluster, versions)];
  }
  const skip = versions.images.skipDisabledAddons;
  const proxy = skip && (cluster.proxy.disabled || skipped.kubeProxy) ? [] : [imageRef(repo, 'kube-proxy', tag)];
  const dns = skip && (cluster.dns.disabled || skipped.coredns) ? [] : [corednsImage(cluster, versions)];
  return [...kube, ...proxy, ...dns, pause, ...etcd];
}
