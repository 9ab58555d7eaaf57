/**
 * The images a control-plane node uses, in kubeadm's order (`kubeadm config images list`,
 * images.GetControlPlaneImages): the four Kubernetes images, pause, etcd, CoreDNS.
 */
import { imageRef, kubernetesImageTag } from '../../manifest/static-pod.js';
import type { VersionProfile } from '../../versions/table.js';

export function imageList(kubernetesVersion: string, versions: VersionProfile, repository: string): string[] {
  const tag = kubernetesImageTag(kubernetesVersion);
  // Under the default registry CoreDNS has its own sub-path (coredns/coredns from 1.21); a
  // custom registry is expected to hold it flat, as <repo>/coredns.
  const corednsPath = repository === versions.defaultImageRepository ? versions.images.corednsDefaultPath : 'coredns';
  return [
    imageRef(repository, 'kube-apiserver', tag),
    imageRef(repository, 'kube-controller-manager', tag),
    imageRef(repository, 'kube-scheduler', tag),
    imageRef(repository, 'kube-proxy', tag),
    imageRef(repository, 'pause', versions.images.pauseTag),
    imageRef(repository, 'etcd', versions.images.etcdTag),
    imageRef(repository, corednsPath, versions.images.corednsTag),
  ];
}
