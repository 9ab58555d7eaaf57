/** The same configuration written in v1beta2, v1beta3 and v1beta4 resolves to the same internal config. */
import { resolveInitConfig, resolveJoinConfig } from '../../../src/config/load.js';
import { argsFromMap } from '../../../src/config/upconvert.js';
import type { ResolvedJoinConfig } from '../../../src/config/types.js';
import { withConfig } from './support.js';

const KEY = 'c'.repeat(64);

const INIT_V1BETA2_3 = (v: string): string => `apiVersion: kubeadm.k8s.io/${v}
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
  description: bootstrap
  ttl: 2h0m0s
  usages: [signing, authentication]
  groups: [system:bootstrappers:kubeadm:default-node-token]
nodeRegistration:
  name: cp1
  criSocket: /run/containerd/containerd.sock
  taints: []
  kubeletExtraArgs:
    v: "4"
    cgroup-driver: systemd
  ignorePreflightErrors: [Swap]
localAPIEndpoint:
  advertiseAddress: 192.168.10.11
  bindPort: 6443
certificateKey: ${KEY}
`;

const CLUSTER_V1BETA2_3 = (v: string): string => `apiVersion: kubeadm.k8s.io/${v}
kind: ClusterConfiguration
kubernetesVersion: v1.22.4
controlPlaneEndpoint: lb.example.com:6443
clusterName: prod
imageRepository: registry.example.com/k8s
networking: {serviceSubnet: 10.96.0.0/12, podSubnet: 10.244.0.0/16, dnsDomain: cluster.local}
etcd:
  local:
    dataDir: /var/lib/etcd
    extraArgs: {listen-metrics-urls: "http://0.0.0.0:2381", auto-compaction-retention: "8"}
    serverCertSANs: [etcd.example.com]
    peerCertSANs: [10.0.0.1]
apiServer:
  extraArgs: {audit-log-path: /var/log/audit.log, authorization-mode: "Node,RBAC"}
  extraVolumes:
  - name: audit
    hostPath: /var/log/kubernetes
    mountPath: /var/log
    pathType: DirectoryOrCreate
  certSANs: [lb.example.com]
  timeoutForControlPlane: 5m0s
controllerManager:
  extraArgs: {bind-address: 0.0.0.0}
scheduler:
  extraArgs: {bind-address: 0.0.0.0}
dns:
${v === 'v1beta2' ? '  type: CoreDNS\n' : ''}  imageRepository: registry.example.com/coredns
  imageTag: v1.8.4
featureGates: {PublicKeysECDSA: true}
`;

const INIT_V1BETA4 = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
  description: bootstrap
  ttl: 2h0m0s
  usages: [signing, authentication]
  groups: [system:bootstrappers:kubeadm:default-node-token]
nodeRegistration:
  name: cp1
  criSocket: /run/containerd/containerd.sock
  taints: []
  kubeletExtraArgs:
  - {name: cgroup-driver, value: systemd}
  - {name: v, value: "4"}
  ignorePreflightErrors: [Swap]
localAPIEndpoint:
  advertiseAddress: 192.168.10.11
  bindPort: 6443
certificateKey: ${KEY}
timeouts:
  controlPlaneComponentHealthCheck: 5m0s
`;

const CLUSTER_V1BETA4 = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.22.4
controlPlaneEndpoint: lb.example.com:6443
clusterName: prod
imageRepository: registry.example.com/k8s
networking: {serviceSubnet: 10.96.0.0/12, podSubnet: 10.244.0.0/16, dnsDomain: cluster.local}
etcd:
  local:
    dataDir: /var/lib/etcd
    extraArgs:
    - {name: auto-compaction-retention, value: "8"}
    - {name: listen-metrics-urls, value: "http://0.0.0.0:2381"}
    serverCertSANs: [etcd.example.com]
    peerCertSANs: [10.0.0.1]
apiServer:
  extraArgs:
  - {name: audit-log-path, value: /var/log/audit.log}
  - {name: authorization-mode, value: "Node,RBAC"}
  extraVolumes:
  - name: audit
    hostPath: /var/log/kubernetes
    mountPath: /var/log
    pathType: DirectoryOrCreate
  certSANs: [lb.example.com]
controllerManager:
  extraArgs: [{name: bind-address, value: 0.0.0.0}]
scheduler:
  extraArgs: [{name: bind-address, value: 0.0.0.0}]
dns:
  imageRepository: registry.example.com/coredns
  imageTag: v1.8.4
featureGates: {PublicKeysECDSA: true}
`;

test('init + cluster documents: v1beta2, v1beta3 and v1beta4 resolve identically', () => {
  const v2 = resolveInitConfig(withConfig(`${INIT_V1BETA2_3('v1beta2')}---\n${CLUSTER_V1BETA2_3('v1beta2')}`));
  const v3 = resolveInitConfig(withConfig(`${INIT_V1BETA2_3('v1beta3')}---\n${CLUSTER_V1BETA2_3('v1beta3')}`));
  const v4 = resolveInitConfig(withConfig(`${INIT_V1BETA4}---\n${CLUSTER_V1BETA4}`));
  expect(v3).toEqual(v2);
  expect(v4).toEqual(v2);
  // Spot-check the conversions themselves.
  expect(v2.cluster.apiServer.extraArgs).toEqual([{ name: 'audit-log-path', value: '/var/log/audit.log' }, { name: 'authorization-mode', value: 'Node,RBAC' }]);
  expect(v2.init.nodeRegistration.kubeletExtraArgs).toEqual([{ name: 'cgroup-driver', value: 'systemd' }, { name: 'v', value: '4' }]);
  expect(v2.init.timeouts.controlPlaneComponentHealthCheckMs).toBe(300_000);
  expect(v2.cluster.encryptionAlgorithm).toBe('ECDSA-P256');
  expect(v2.init.nodeRegistration.taints).toEqual([]);
  expect(v2.warnings).toEqual([]);
});

test('join documents: discovery.timeout (v1beta2/3) equals timeouts.discovery (v1beta4)', () => {
  const old = (v: string): string => `apiVersion: kubeadm.k8s.io/${v}
kind: JoinConfiguration
caCertPath: /etc/kubernetes/pki/ca.crt
nodeRegistration:
  name: worker-1
  kubeletExtraArgs: {node-labels: "role=worker"}
discovery:
  bootstrapToken:
    token: abcdef.0123456789abcdef
    apiServerEndpoint: lb.example.com:6443
    caCertHashes: [sha256:${'ab'.repeat(32)}]
  timeout: 2m0s
controlPlane:
  localAPIEndpoint: {advertiseAddress: 192.168.10.12, bindPort: 6443}
  certificateKey: ${KEY}
`;
  const v4 = `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
caCertPath: /etc/kubernetes/pki/ca.crt
nodeRegistration:
  name: worker-1
  kubeletExtraArgs: [{name: node-labels, value: "role=worker"}]
discovery:
  bootstrapToken:
    token: abcdef.0123456789abcdef
    apiServerEndpoint: lb.example.com:6443
    caCertHashes: [sha256:${'ab'.repeat(32)}]
controlPlane:
  localAPIEndpoint: {advertiseAddress: 192.168.10.12, bindPort: 6443}
  certificateKey: ${KEY}
timeouts:
  discovery: 2m0s
`;
  // Equal but for the recorded API version (join checks it against the cluster's minor after discovery).
  const resolve = (text: string): { config: Omit<ResolvedJoinConfig, 'apiVersions'>; apiVersions: ResolvedJoinConfig['apiVersions'] } => {
    const { apiVersions, ...config } = resolveJoinConfig(withConfig(text));
    return { config, apiVersions };
  };
  const { config: a, apiVersions } = resolve(old('v1beta2'));
  expect(apiVersions).toEqual([{ kind: 'JoinConfiguration', version: 'v1beta2' }]);
  expect(resolve(old('v1beta3'))).toEqual({ config: a, apiVersions: [{ kind: 'JoinConfiguration', version: 'v1beta3' }] });
  expect(resolve(v4)).toEqual({ config: a, apiVersions: [{ kind: 'JoinConfiguration', version: 'v1beta4' }] });
  expect(a.join.discovery.timeoutMs).toBe(120_000);
  expect(a.join.timeouts.discoveryMs).toBe(120_000);
});

test('extraArgs maps become lists sorted by name, bytewise like Go', () => {
  expect(argsFromMap({ v: '2', 'Z-upper': 'x', 'a-b': '1', 'a': '0' })).toEqual([
    { name: 'Z-upper', value: 'x' },
    { name: 'a', value: '0' },
    { name: 'a-b', value: '1' },
    { name: 'v', value: '2' },
  ]);
});
