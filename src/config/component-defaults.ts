/**
 * The KubeletConfiguration and KubeProxyConfiguration documents `config print init-defaults
 * --component-configs` shows: the fields kubeadm sets (componentconfigs/kubelet.go, kubeproxy.go);
 * the zero-value fields kubeadm's Go serializer adds are left out (the components default them).
 */
import { MANIFESTS_DIR, PORTS } from '../constants.js';
import { formatIp, indexedIp, parseCidr } from '../net/ip.js';
import type { VersionProfile } from '../versions/table-types.js';
import { fullKubeProxyFields, kubeProxyTypesOf } from '../versions/kube-proxy-config.js';
import { KUBE_PROXY_API_VERSION, KUBELET_API_VERSION } from './schema-kubeadm.js';
import type { ClusterConfiguration } from './types.js';

export const COMPONENT_CONFIG_KINDS = ['KubeletConfiguration', 'KubeProxyConfiguration'] as const;
export type ComponentConfigKind = (typeof COMPONENT_CONFIG_KINDS)[number];

/** The 10th address of the first service subnet (kubeadm's GetDNSIP); undefined when the subnet is too small. */
export function clusterDnsIp(serviceSubnet: string): string | undefined {
  const first = parseCidr(serviceSubnet.split(',')[0]?.trim() ?? '');
  const ip = first && indexedIp(first, 10);
  return ip && formatIp(ip);
}

export function kubeletDefaults(c: ClusterConfiguration, profile: VersionProfile): Record<string, unknown> {
  const dns = clusterDnsIp(c.networking.serviceSubnet);
  return {
    apiVersion: KUBELET_API_VERSION,
    kind: 'KubeletConfiguration',
    authentication: {
      anonymous: { enabled: false },
      webhook: { cacheTTL: '0s', enabled: true },
      x509: { clientCAFile: `${c.certificatesDir}/ca.crt` },
    },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '0s', cacheUnauthorizedTTL: '0s' } },
    ...(profile.kubelet.defaultCgroupDriverSystemd ? { cgroupDriver: 'systemd' } : {}),
    ...(dns ? { clusterDNS: [dns] } : {}),
    clusterDomain: c.networking.dnsDomain,
    healthzBindAddress: '127.0.0.1',
    healthzPort: PORTS.kubeletHealthz,
    rotateCertificates: true,
    staticPodPath: MANIFESTS_DIR,
  };
}

export function kubeProxyDefaults(c: ClusterConfiguration, profile: VersionProfile): Record<string, unknown> {
  const ipv6 = c.networking.serviceSubnet.split(',')[0]?.includes(':') ?? false;
  // kubeadm prints the marshalled versioned struct: every field of the minor's types, zero values included.
  return {
    apiVersion: KUBE_PROXY_API_VERSION,
    kind: 'KubeProxyConfiguration',
    ...fullKubeProxyFields(kubeProxyTypesOf(profile), {
      bindAddress: ipv6 ? '::' : '0.0.0.0',
      clientConnection: { kubeconfig: '/var/lib/kube-proxy/kubeconfig.conf' },
      clusterCIDR: c.networking.podSubnet,
      // 1.37 (PR #139777): kubeadm's default sets the mode it used to leave empty.
      ...(profile.addons.kubeProxyDefaultModeIptables ? { mode: 'iptables' } : {}),
    }),
  };
}
