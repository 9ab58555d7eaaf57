/**
 * The "kubelet" golden scenario (test/fixtures/manifests/v1.20.2/kubelet): the configuration kubeadm
 * v1.20.2 ran with — custom registry, dual-stack networking, containerd socket and node-ip as
 * kubeletExtraArgs — and the user's KubeletConfiguration.
 */
import type { ClusterConfiguration, ResolvedInitConfig } from '../../src/config/types.js';
import { fixtureInitConfig } from './config-fixture.js';

export function kubeletScenario(): { cfg: ResolvedInitConfig; user: Record<string, unknown> } {
  const base = fixtureInitConfig();
  const cluster: ClusterConfiguration = {
    ...base.cluster,
    imageRepository: 'registry.local/k8s',
    featureGates: { IPv6DualStack: true },
    networking: { serviceSubnet: '10.112.0.0/12,fd00:96::/108', podSubnet: '10.244.0.0/16,fd00:244::/56', dnsDomain: 'corp.local' },
  };
  const nodeRegistration = {
    ...base.init.nodeRegistration,
    kubeletExtraArgs: [{ name: 'node-ip', value: '192.168.10.11' }, { name: 'container-runtime-endpoint', value: 'unix:///run/containerd/containerd.sock' }],
  };
  const user = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    cgroupDriver: 'cgroupfs',
    failSwapOn: false,
    syncFrequency: '1m',
    readOnlyPort: 10255,
    clusterDNS: ['10.112.0.53'],
    evictionHard: { 'memory.available': '200Mi', 'nodefs.available': '10%' },
    featureGates: { RotateKubeletServerCertificate: true },
  };
  return { cfg: { ...base, cluster, init: { ...base.init, nodeRegistration } }, user };
}
