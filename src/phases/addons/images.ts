import type { ClusterConfiguration } from '../../config/types.js';
import type { VersionProfile } from '../../versions/table-types.js';

/** Image references of the addons (kubeadm images.GetDNSImage / GetKubernetesImage). */
function repository(cluster: ClusterConfiguration, versions: VersionProfile): string {
  return cluster.imageRepository || versions.defaultImageRepository;
}

/**
 * CoreDNS lives at "<repo>/coredns/coredns" only under the default repository (1.21+); a custom
 * repository (cluster-wide or dns.imageRepository) gets "<repo>/coredns".
 */
export function corednsImage(cluster: ClusterConfiguration, versions: VersionProfile): string {
  const repo = cluster.dns.imageRepository || repository(cluster, versions);
  const name = repo === versions.defaultImageRepository ? versions.images.corednsDefaultPath : 'coredns';
  const tag = cluster.dns.imageTag || versions.images.corednsTag;
  return `${repo}/${name}:${tag}`;
}

/** "<repo>/kube-proxy:<version>", "+" in the version replaced by "_" (image tags cannot hold "+"). */
export function kubeProxyImage(cluster: ClusterConfiguration, versions: VersionProfile): string {
  return `${repository(cluster, versions)}/kube-proxy:${cluster.kubernetesVersion.replaceAll('+', '_')}`;
}
