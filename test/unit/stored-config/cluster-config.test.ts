/** The cluster configuration a joining node builds from what the cluster stores (src/stored-config/cluster-config.ts). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TsadmError } from '../../../src/errors.js';
import { buildJoinClusterConfig, storedKubernetesVersion } from '../../../src/stored-config/cluster-config.js';
import { resolveJoinConfig } from '../../../src/config/load.js';

const FIXTURES = path.join(process.cwd(), 'test/fixtures/kubeadm-dry-run');
const KUBELET = readFileSync(path.join(FIXTURES, 'kubeadm-1.20-kubelet-config.yaml'), 'utf8');
const CLUSTER = `apiServer:\n  extraArgs:\n    authorization-mode: Node,RBAC\n  timeoutForControlPlane: 4m0s\napiVersion: kubeadm.k8s.io/v1beta2
certificatesDir: /etc/kubernetes/pki\nclusterName: kubernetes\ncontrolPlaneEndpoint: ""\ncontrollerManager: {}\ndns:\n  type: CoreDNS
etcd:\n  local:\n    dataDir: /var/lib/etcd\nimageRepository: k8s.gcr.io\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2
networking:\n  dnsDomain: cluster.local\n  serviceSubnet: 10.96.0.0/12\nscheduler: {}\n`;

const env = { hostname: 'node-a', now: new Date('2024-01-01T00:00:00Z') };

describe('the cluster configuration seen by a joining node', () => {
  test('worker: the cluster\'s settings with this node\'s registration; no controlPlaneEndpoint recorded as ""', () => {
    const join = resolveJoinConfig({ flags: { token: 'abcdef.0123456789abcdef', 'discovery-token-unsafe-skip-ca-verification': true, 'node-name': 'w1', 'cri-socket': '/run/containerd/containerd.sock' }, apiServerEndpoint: '10.0.0.1:6443', env }).join;
    const c = buildJoinClusterConfig({ clusterConfigurationYaml: CLUSTER, clusterStatusYaml: undefined, kubeletConfigurationYaml: KUBELET }, { join, nodeAddress: '10.0.0.9', now: env.now });
    expect(c.versions.minor).toBe('1.20');
    expect(c.controlPlaneEndpoint).toBe('');
    expect(c.init.init.nodeRegistration).toMatchObject({ name: 'w1', criSocket: '/run/containerd/containerd.sock' });
    expect(c.init.init.localAPIEndpoint).toEqual({ advertiseAddress: '10.0.0.9', bindPort: 6443 });
    expect(c.init.init.bootstrapTokens).toEqual([]);
    expect(c.init.componentConfigs.kubelet).toMatchObject({ clusterDNS: ['10.96.0.10'], staticPodPath: '/etc/kubernetes/manifests' });
    expect(c.init.cluster.networking.serviceSubnet).toBe('10.96.0.0/12');
  });

  test('control plane: its own advertise address and bind port', () => {
    const join = resolveJoinConfig({
      flags: { token: 'abcdef.0123456789abcdef', 'discovery-token-unsafe-skip-ca-verification': true, 'control-plane': true, 'apiserver-advertise-address': '10.0.0.7', 'apiserver-bind-port': 6444, 'certificate-key': 'a'.repeat(64) },
      apiServerEndpoint: '10.0.0.1:6443', env,
    }).join;
    const c = buildJoinClusterConfig({ clusterConfigurationYaml: CLUSTER.replace('controlPlaneEndpoint: ""', 'controlPlaneEndpoint: cp.example.com'), clusterStatusYaml: undefined, kubeletConfigurationYaml: KUBELET }, { join, nodeAddress: 'unused', now: env.now });
    expect(c.init.init.localAPIEndpoint).toEqual({ advertiseAddress: '10.0.0.7', bindPort: 6444 });
    expect(c.init.init.certificateKey).toBe('a'.repeat(64));
    expect(c.controlPlaneEndpoint).toBe('cp.example.com');
  });

  test('a damaged ClusterConfiguration is a clear precondition error', () => {
    expect(() => storedKubernetesVersion('kind: ClusterConfiguration\n')).toThrow('has no kubernetesVersion');
    const join = resolveJoinConfig({ flags: { token: 'abcdef.0123456789abcdef', 'discovery-token-unsafe-skip-ca-verification': true }, apiServerEndpoint: '10.0.0.1:6443', env }).join;
    const bad = CLUSTER.replace('serviceSubnet: 10.96.0.0/12', 'serviceSubnet: not-a-cidr');
    let err: unknown;
    try {
      buildJoinClusterConfig({ clusterConfigurationYaml: bad, clusterStatusYaml: undefined, kubeletConfigurationYaml: KUBELET }, { join, nodeAddress: '10.0.0.9', now: env.now });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TsadmError);
    expect((err as TsadmError).message).toMatch(/^the cluster's configuration could not be read: .*serviceSubnet/);
  });
});
