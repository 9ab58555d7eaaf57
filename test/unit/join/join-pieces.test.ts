/** The pure and file-level pieces of join: cluster config for this node, the TLS bootstrap wait, etcd endpoints, kubeadm-certs. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tempRoot } from '../../helpers/temp-root.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { TsadmError } from '../../../src/errors.js';
import { buildJoinClusterConfig, storedKubernetesVersion } from '../../../src/phases/join/cluster-config.js';
import { waitForTlsBootstrap, kubeletConfProblem, clientCertificateFile } from '../../../src/phases/join/tls-bootstrap.js';
import { endpointsFromClusterStatus, endpointsFromPods } from '../../../src/phases/join/etcd-endpoints.js';
import { decryptKubeadmCerts } from '../../../src/phases/join/download-certs.js';
import { kubeadmCertsSecret } from '../../../src/phases/cluster/upload-certs-render.js';
import { resolveJoinConfig } from '../../../src/config/load.js';
import { joinDoneText } from '../../../src/phases/join/closing.js';

const FIXTURES = path.join(process.cwd(), 'test/unit/cluster/fixtures');
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

describe('waiting for the TLS bootstrap', () => {
  const kubeletConf = (certFile: string) => [
    'apiVersion: v1', 'clusters:', '- cluster:', '    certificate-authority-data: Zm9v', '    server: https://10.0.0.1:6443', '  name: default-cluster',
    'contexts:', '- context:', '    cluster: default-cluster', '    namespace: default', '    user: default-auth', '  name: default-context',
    'current-context: default-context', 'kind: Config', 'preferences: {}', 'users:', '- name: default-auth', '  user:',
    `    client-certificate: ${certFile}`, `    client-key: ${certFile}`, '',
  ].join('\n');

  test('kubelet.conf counts only once the certificate it names exists', async () => {
    const root = tempRoot({ '/etc/kubernetes/kubelet.conf': kubeletConf('/var/lib/kubelet/pki/kubelet-client-current.pem') });
    try {
      const host = new RootedHost(root.dir);
      expect(clientCertificateFile(kubeletConf('/x.pem'))).toBe('/x.pem');
      expect(await kubeletConfProblem(host, '/etc/kubernetes/kubelet.conf')).toContain('kubelet-client-current.pem, which does not exist yet');
      const r2 = tempRoot({ '/etc/kubernetes/kubelet.conf': kubeletConf('/var/lib/kubelet/pki/kubelet-client-current.pem'), '/var/lib/kubelet/pki/kubelet-client-current.pem': 'pem' });
      expect(await kubeletConfProblem(new RootedHost(r2.dir), '/etc/kubernetes/kubelet.conf')).toBeUndefined();
      r2.cleanup();
    } finally {
      root.cleanup();
    }
  });

  test('gives up after the timeout with the kubelet\'s health and kubeadm\'s troubleshooting hint', async () => {
    const root = tempRoot();
    try {
      const started = Date.now();
      const err = await waitForTlsBootstrap({
        host: new RootedHost(root.dir), file: '/etc/kubernetes/kubelet.conf', timeoutMs: 300, pollMs: 50, sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        healthCheck: () => Promise.resolve({ ok: false, detail: 'ECONNREFUSED' }),
      }).catch((e: unknown) => e) as TsadmError;
      expect(err.code).toBe('E_TIMEOUT');
      expect(err.message).toBe('timed out waiting for the kubelet to perform the TLS Bootstrap after 300ms: /etc/kubernetes/kubelet.conf does not exist yet (kubelet http://127.0.0.1:10248/healthz: ECONNREFUSED)');
      expect(err.hint).toContain('journalctl -xeu kubelet');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      root.cleanup();
    }
  });
});

describe('etcd endpoints of the cluster', () => {
  test('from the etcd pods\' annotation, else from ClusterStatus', () => {
    expect(endpointsFromPods({ items: [
      { metadata: { annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': 'https://10.0.0.1:2379' } } },
      { metadata: { annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': 'https://10.0.0.2:2379' } } },
      { metadata: {} },
    ] })).toEqual(['https://10.0.0.1:2379', 'https://10.0.0.2:2379']);
    expect(endpointsFromClusterStatus('apiEndpoints:\n  cp1:\n    advertiseAddress: 10.0.0.1\n    bindPort: 6443\n  cp2:\n    advertiseAddress: fd00::2\n    bindPort: 6443\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n'))
      .toEqual(['https://10.0.0.1:2379', 'https://[fd00::2]:2379']);
    expect(endpointsFromClusterStatus(undefined)).toEqual([]);
  });
});

describe('kubeadm-certs', () => {
  test('decrypts to the paths and modes init uses; empty entries are files the cluster does not have', () => {
    const key = Buffer.from('b'.repeat(64), 'hex');
    const files = new Map<string, Buffer | undefined>([
      ['ca.crt', Buffer.from('CA CERT')], ['ca.key', Buffer.from('CA KEY')], ['sa.pub', Buffer.from('SA PUB')], ['sa.key', Buffer.from('SA KEY')],
      ['front-proxy-ca.crt', undefined], ['etcd-ca.crt', Buffer.from('ETCD CA')], ['etcd-ca.key', Buffer.from('ETCD KEY')],
    ]);
    const secret = kubeadmCertsSecret(files, key, { apiVersion: 'v1', kind: 'Secret', name: 'bootstrap-token-abcdef', uid: 'u' });
    const out = decryptKubeadmCerts(secret, 'b'.repeat(64), '/etc/kubernetes/pki', { mode: 'local' } as never);
    expect(out.map((f) => [f.path, f.mode.toString(8), f.content.toString()])).toEqual([
      ['/etc/kubernetes/pki/ca.crt', '644', 'CA CERT'], ['/etc/kubernetes/pki/ca.key', '600', 'CA KEY'],
      ['/etc/kubernetes/pki/sa.pub', '600', 'SA PUB'], ['/etc/kubernetes/pki/sa.key', '600', 'SA KEY'],
      ['/etc/kubernetes/pki/etcd/ca.crt', '644', 'ETCD CA'], ['/etc/kubernetes/pki/etcd/ca.key', '600', 'ETCD KEY'],
    ]);
    expect(() => decryptKubeadmCerts(secret, 'c'.repeat(64), '/etc/kubernetes/pki', { mode: 'local' } as never)).toThrow('wrong certificate key');
    expect(() => decryptKubeadmCerts(secret, 'xyz', '/etc/kubernetes/pki', { mode: 'local' } as never)).toThrow('64 hexadecimal characters');
  });
});

test('the closing text names the etcd member only for stacked etcd', () => {
  expect(joinDoneText(false, false)).toContain('This node has joined the cluster:\n* Certificate signing request was sent to apiserver and a response was received.');
  expect(joinDoneText(true, true)).toContain('* A new etcd member was added to the local/stacked etcd cluster.');
  expect(joinDoneText(true, false)).not.toContain('etcd member');
});
