import type { ClusterConfiguration, InitConfiguration, ResolvedInitConfig } from '../../src/config/types.js';

/**
 * A resolved init configuration as kubeadm v1.20.2 defaults would give it for node "cp1" at
 * 192.168.10.11 — hand-written so phase tests do not depend on the config loader.
 */
export function fixtureInitConfig(overrides: {
  cluster?: Partial<ClusterConfiguration>;
  init?: Partial<InitConfiguration>;
} = {}): ResolvedInitConfig {
  const cluster: ClusterConfiguration = {
    kubernetesVersion: 'v1.20.2',
    controlPlaneEndpoint: '',
    clusterName: 'kubernetes',
    certificatesDir: '/etc/kubernetes/pki',
    imageRepository: 'k8s.gcr.io',
    networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '', dnsDomain: 'cluster.local' },
    etcd: { mode: 'local', imageRepository: '', imageTag: '', dataDir: '/var/lib/etcd', extraArgs: [], extraEnvs: [], serverCertSANs: [], peerCertSANs: [] },
    apiServer: { extraArgs: [], extraVolumes: [], extraEnvs: [], certSANs: [], timeoutForControlPlaneMs: 240000 },
    controllerManager: { extraArgs: [], extraVolumes: [], extraEnvs: [] },
    scheduler: { extraArgs: [], extraVolumes: [], extraEnvs: [] },
    dns: { disabled: false, imageRepository: '', imageTag: '' },
    proxy: { disabled: false },
    featureGates: {},
    encryptionAlgorithm: 'RSA-2048',
    certificateValidityMs: 365 * 24 * 3600 * 1000,
    caCertificateValidityMs: 3650 * 24 * 3600 * 1000,
    ...overrides.cluster,
  };
  const init: InitConfiguration = {
    bootstrapTokens: [{
      token: 'abcdef.0123456789abcdef',
      description: '',
      ttlMs: 24 * 3600 * 1000,
      usages: ['signing', 'authentication'],
      groups: ['system:bootstrappers:kubeadm:default-node-token'],
    }],
    nodeRegistration: {
      name: 'cp1',
      criSocket: '/run/containerd/containerd.sock',
      taints: undefined,
      kubeletExtraArgs: [],
      ignorePreflightErrors: [],
      imagePullPolicy: 'IfNotPresent',
    },
    localAPIEndpoint: { advertiseAddress: '192.168.10.11', bindPort: 6443 },
    certificateKey: '',
    skipPhases: [],
    timeouts: {
      controlPlaneComponentHealthCheckMs: 240000,
      kubeletHealthCheckMs: 240000,
      kubernetesAPICallMs: 60000,
      etcdAPICallMs: 120000,
      tlsBootstrapMs: 300000,
      discoveryMs: 300000,
    },
    ...overrides.init,
  };
  return { kind: 'init', init, cluster, componentConfigs: { kubelet: {}, kubeProxy: {}, userKubelet: false, userKubeProxy: false }, warnings: [] };
}
