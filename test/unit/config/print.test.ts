import { expect } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { resolveInitConfig, resolveJoinConfig } from '../../../src/config/load.js';
import { printInitDefaults, printJoinDefaults, serializeClusterConfiguration } from '../../../src/config/print.js';
import { DEFAULT_PATCH, NEWEST_MINOR, SUPPORTED_MINORS } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { isReleasedMinor, prereleaseWarning } from '../../../src/versions/resolve.js';

/** Released minors are named by their minor; the preview minor (1.38) only by a named pre-release, with its warning. */
const PRINTED_VERSION = (minor: (typeof SUPPORTED_MINORS)[number]): string => (isReleasedMinor(minor) ? minor : DEFAULT_PATCH[minor]);
const PREVIEW_WARNINGS = (minor: (typeof SUPPORTED_MINORS)[number]): string[] => (isReleasedMinor(minor) ? [] : [prereleaseWarning(DEFAULT_PATCH[minor]) as string]);
import { referenceKubeadmPath } from '../../helpers/components.js';
import { describeWithOracles, oracles } from '../../helpers/oracle.js';
import { ENV, withConfig } from './support.js';

const BOTH = ['KubeletConfiguration', 'KubeProxyConfiguration'];
const apiVersions = (text: string): string[] => yaml.loadAll(text).map((d) => (d as { apiVersion: string }).apiVersion);

describe('print init-defaults', () => {
  // The default target is Kubernetes 1.37 (issue 26; its newest patch tsadm knows, v1.37.0),
  // whose kubeadm prints v1beta4 (1.37 reads only v1beta4, PR #136016).
  test('the newest version (v1.37.0) prints v1beta4, exactly kubeadm\'s layout', () => {
    expect(printInitDefaults({ componentConfigs: [] })).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
bootstrapTokens:
- groups:
  - system:bootstrappers:kubeadm:default-node-token
  token: abcdef.0123456789abcdef
  ttl: 24h0m0s
  usages:
  - signing
  - authentication
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 1.2.3.4
  bindPort: 6443
nodeRegistration:
  criSocket: unix:///var/run/containerd/containerd.sock
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
  name: node
  taints: null
timeouts:
  controlPlaneComponentHealthCheck: 4m0s
  discovery: 5m0s
  etcdAPICall: 2m0s
  kubeletHealthCheck: 4m0s
  kubernetesAPICall: 1m0s
  tlsBootstrap: 5m0s
  upgradeManifests: 5m0s
---
apiServer: {}
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controllerManager: {}
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: v1.37.0
networking:
  dnsDomain: cluster.local
  serviceSubnet: 10.96.0.0/12
proxy: {}
scheduler: {}
`);
  });

  test('1.20 prints the v1beta2 layout of kubeadm v1.20 (observed), with node name "node"', () => {
    expect(printInitDefaults({ componentConfigs: [], version: '1.20' })).toBe(`apiVersion: kubeadm.k8s.io/v1beta2
bootstrapTokens:
- groups:
  - system:bootstrappers:kubeadm:default-node-token
  token: abcdef.0123456789abcdef
  ttl: 24h0m0s
  usages:
  - signing
  - authentication
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 1.2.3.4
  bindPort: 6443
nodeRegistration:
  criSocket: /var/run/dockershim.sock
  name: node
  taints:
  - effect: NoSchedule
    key: node-role.kubernetes.io/master
---
apiServer:
  timeoutForControlPlane: 4m0s
apiVersion: kubeadm.k8s.io/v1beta2
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controllerManager: {}
dns:
  type: CoreDNS
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: k8s.gcr.io
kind: ClusterConfiguration
kubernetesVersion: v1.20.2
networking:
  dnsDomain: cluster.local
  serviceSubnet: 10.96.0.0/12
scheduler: {}
`);
  });

  test.each(SUPPORTED_MINORS.map((m) => [m]))('%s: layout of its config API version, accepted back by the loader with the same defaults', (minor) => {
    const text = printInitDefaults({ componentConfigs: BOTH, version: PRINTED_VERSION(minor) });
    const api = VERSION_TABLE[minor].configApiVersion;
    expect(apiVersions(text)).toEqual([api, api, 'kubelet.config.k8s.io/v1beta1', 'kubeproxy.config.k8s.io/v1alpha1']);
    const back = resolveInitConfig(withConfig(text));
    const direct = resolveInitConfig({ flags: { 'kubernetes-version': DEFAULT_PATCH[minor] }, env: { ...ENV, hostname: 'node', defaultAdvertiseAddress: '1.2.3.4' } });
    expect(back.cluster).toEqual(direct.cluster);
    expect(back.init.timeouts).toEqual(direct.init.timeouts);
    expect(back.init.localAPIEndpoint).toEqual({ advertiseAddress: '1.2.3.4', bindPort: 6443 });
    expect(back.init.nodeRegistration.name).toBe('node');
    expect(back.init.bootstrapTokens).toEqual([{ ...direct.init.bootstrapTokens[0], token: 'abcdef.0123456789abcdef', description: '' }]);
    expect(back.componentConfigs.userKubelet && back.componentConfigs.userKubeProxy).toBe(true);
    expect(back.warnings).toEqual(PREVIEW_WARNINGS(minor));
  });

  test('the default stays on the newest released minor (1.37); a named 1.38 pre-release prints it, v1.38.0 and 1.38 are refused', () => {
    expect(NEWEST_MINOR).toBe('1.37');
    expect(printInitDefaults({ componentConfigs: [] })).toMatch(/\nkubernetesVersion: v1\.37\.\d+\n/);
    expect(printInitDefaults({ componentConfigs: [], version: 'v1.38.0-rc.0' })).toContain('\nkubernetesVersion: v1.38.0-rc.0\n');
    expect(() => printInitDefaults({ componentConfigs: [], version: 'v1.38.0' })).toThrow('v1.38 is not released yet');
    expect(() => printInitDefaults({ componentConfigs: [], version: '1.38' })).toThrow('v1.38 is not released yet');
  });

  test('component config documents carry kubeadm\'s values', () => {
    const [, , kubelet, proxy] = yaml.loadAll(printInitDefaults({ componentConfigs: BOTH, version: '1.20' })) as Record<string, unknown>[];
    expect(kubelet).toMatchObject({ clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', staticPodPath: '/etc/kubernetes/manifests', rotateCertificates: true });
    expect(kubelet).not.toHaveProperty('cgroupDriver'); // systemd became the default in 1.22
    expect(proxy).toMatchObject({ bindAddress: '0.0.0.0', clientConnection: { kubeconfig: '/var/lib/kube-proxy/kubeconfig.conf' }, clusterCIDR: '' });
    expect(yaml.loadAll(printInitDefaults({ componentConfigs: BOTH }))[2]).toMatchObject({ cgroupDriver: 'systemd' });
    // The default target is 1.37, whose kubeadm sets kube-proxy's mode to iptables (PR #139777); 1.20 left it empty.
    expect(yaml.loadAll(printInitDefaults({ componentConfigs: BOTH, version: '1.37' }))[3]).toMatchObject({ mode: 'iptables' });
    expect(proxy).toMatchObject({ mode: '', udpIdleTimeout: '0s', conntrack: { maxPerCore: null } }); // the whole 1.20 struct, zero values included
  });

  test('unknown component config kinds are a usage error', () => {
    expect(() => printInitDefaults({ componentConfigs: ['KubeSchedulerConfiguration'] })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});

describe('print join-defaults', () => {
  test('1.20 layout (observed, node name "node")', () => {
    expect(printJoinDefaults({ version: '1.20' })).toBe(`apiVersion: kubeadm.k8s.io/v1beta2
caCertPath: /etc/kubernetes/pki/ca.crt
discovery:
  bootstrapToken:
    apiServerEndpoint: kube-apiserver:6443
    token: abcdef.0123456789abcdef
    unsafeSkipCAVerification: true
  timeout: 5m0s
  tlsBootstrapToken: abcdef.0123456789abcdef
kind: JoinConfiguration
nodeRegistration:
  criSocket: /var/run/dockershim.sock
  name: node
  taints: null
`);
  });

  test.each(SUPPORTED_MINORS.map((m) => [m]))('%s: accepted back by the loader', (minor) => {
    const text = printJoinDefaults({ version: PRINTED_VERSION(minor) });
    expect(apiVersions(text)).toEqual([VERSION_TABLE[minor].configApiVersion]);
    const back = resolveJoinConfig(withConfig(text));
    expect(back.join.discovery).toEqual({
      bootstrapToken: { token: 'abcdef.0123456789abcdef', apiServerEndpoint: 'kube-apiserver:6443', caCertHashes: [], unsafeSkipCAVerification: true },
      tlsBootstrapToken: 'abcdef.0123456789abcdef',
      timeoutMs: 300_000,
    });
    expect(back.join.nodeRegistration.name).toBe('node');
    // A JoinConfiguration names no version (join reads the cluster's), so nothing to warn about.
    expect(back.warnings).toEqual([]);
  });
});

describe('serializeClusterConfiguration (kubeadm-config ConfigMap)', () => {
  const cluster = (version: string) =>
    resolveInitConfig({ flags: { 'kubernetes-version': version, 'control-plane-endpoint': 'cp.example.com', 'pod-network-cidr': '10.244.0.0/16' }, env: ENV }).cluster;

  test('1.20: the v1beta2 document kubeadm v1.20 uploads (docs/kubeadm-reference.md §6.1)', () => {
    expect(serializeClusterConfiguration(cluster('v1.20.2'), 'kubeadm.k8s.io/v1beta2')).toBe(`apiServer:
  extraArgs:
    authorization-mode: Node,RBAC
  timeoutForControlPlane: 4m0s
apiVersion: kubeadm.k8s.io/v1beta2
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controlPlaneEndpoint: cp.example.com:6443
controllerManager: {}
dns:
  type: CoreDNS
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: k8s.gcr.io
kind: ClusterConfiguration
kubernetesVersion: v1.20.2
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
scheduler: {}
`);
  });

  test('v1beta4: lists for extraArgs, PKI fields, no injected authorization-mode', () => {
    const c = resolveInitConfig(withConfig(`apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.31.2
apiServer:
  extraArgs: [{name: v, value: "2"}, {name: v, value: "3"}]
  extraEnvs: [{name: HTTP_PROXY, value: "http://proxy:3128"}]
etcd:
  local:
    extraEnvs: [{name: GOMAXPROCS, value: "2"}]
proxy:
  disabled: true
`)).cluster;
    expect(serializeClusterConfiguration(c, 'kubeadm.k8s.io/v1beta4')).toBe(`apiServer:
  extraArgs:
  - name: v
    value: "2"
  - name: v
    value: "3"
  extraEnvs:
  - name: HTTP_PROXY
    value: http://proxy:3128
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controllerManager: {}
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
    extraEnvs:
    - name: GOMAXPROCS
      value: "2"
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: v1.31.2
networking:
  dnsDomain: cluster.local
  serviceSubnet: 10.96.0.0/12
proxy:
  disabled: true
scheduler: {}
`);
  });

  test.each([
    ['v1.20.2', 'kubeadm.k8s.io/v1beta2'],
    ['v1.26.3', 'kubeadm.k8s.io/v1beta3'],
    ['v1.33.1', 'kubeadm.k8s.io/v1beta4'],
  ] as const)('%s (%s) reads back to the same cluster configuration', (version, api) => {
    const c = cluster(version);
    const back = resolveInitConfig(withConfig(serializeClusterConfiguration(c, api))).cluster;
    const injected = api === 'kubeadm.k8s.io/v1beta4' ? [] : [{ name: 'authorization-mode', value: 'Node,RBAC' }];
    expect(back).toEqual({ ...c, apiServer: { ...c.apiServer, extraArgs: injected } });
  });
});

/** The reference kubeadm v1.20.2 (when provisioned) must accept tsadm's v1beta2 documents strictly. */
const kubeadm = referenceKubeadmPath();
describeWithOracles([oracles.kubeadm])('kubeadm v1.20.2 accepts tsadm\'s v1beta2 documents', () => {
  const migrate = (text: string): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-config-'));
    try {
      const file = path.join(dir, 'config.yaml');
      writeFileSync(file, text);
      const run = spawnSync(kubeadm as string, ['config', 'migrate', '--old-config', file], { encoding: 'utf8' });
      // kubeadm only warns about unknown fields (strict.go); a clean run has no such warning.
      expect({ status: run.status, strictWarnings: run.stderr.split('\n').filter((l) => l.includes('strict.go')) }).toEqual({ status: 0, strictWarnings: [] });
      return run.stdout;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test('init-defaults (with component configs)', () => {
    expect(migrate(printInitDefaults({ componentConfigs: BOTH, version: '1.20' }))).toContain('kind: ClusterConfiguration');
  });

  test('join-defaults', () => {
    expect(migrate(printJoinDefaults({ version: '1.20' }))).toContain('kind: JoinConfiguration');
  });

  test('the uploaded ClusterConfiguration', () => {
    const c = resolveInitConfig({ flags: { 'kubernetes-version': 'v1.20.2', 'pod-network-cidr': '10.244.0.0/16', 'apiserver-cert-extra-sans': ['lb.example.com'] }, env: ENV }).cluster;
    expect(migrate(serializeClusterConfiguration(c, 'kubeadm.k8s.io/v1beta2'))).toContain('podSubnet: 10.244.0.0/16');
  });
});
