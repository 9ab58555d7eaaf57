/**
 * `config migrate` (kubeadm 1.31+ MigrateOldConfig, util/config/common.go, and its test
 * TestMigrateOldConfig in common_test.go): which kinds come out for which input, the v1beta4
 * documents written, the conversions kubeadm makes (extraArgs maps → sorted {name, value} lists;
 * defaultMigrateMutators: apiServer.timeoutForControlPlane → timeouts.controlPlaneComponentHealthCheck,
 * discovery.timeout → timeouts.discovery), the defaults it fills (static and dynamic: the
 * bootstrap token, node name, advertise address, tlsBootstrapToken from the discovery token, and
 * SetNodeRegistrationDynamicDefaults' control-plane taint of an InitConfiguration whose taints are
 * unset: node-role.kubernetes.io/control-plane:NoSchedule in kubeadm 1.31+) and
 * what it leaves out (component configs: "Only kubeadm kinds are migrated"; v1beta2's dns.type
 * and ClusterStatus, gone in v1beta3). The expected documents are written from those rules, in
 * the key order and omission rules of kubeadm's v1beta4 types.go.
 */
import { expect } from '@jest/globals';
import * as yaml from 'js-yaml';
import { resolveInitConfig, resolveJoinConfig, resolveResetConfig } from '../../../src/config/load.js';
import { migrateConfig } from '../../../src/config/migrate.js';
import { ENV, configError, withConfig } from './support.js';

const kindsOf = (text: string): string[] => yaml.loadAll(text).filter((d) => d !== null && d !== undefined).map((d) => `${(d as { apiVersion: string }).apiVersion} ${(d as { kind: string }).kind}`);
const migrate = (text: string) => migrateConfig(text, 'old.yaml', ENV);
const TOKEN = /^ {2}token: [a-z0-9]{6}\.[a-z0-9]{16}$/m;

const TIMEOUTS = (controlPlane: string, discovery: string): string => `timeouts:
  controlPlaneComponentHealthCheck: ${controlPlane}
  discovery: ${discovery}
  etcdAPICall: 2m0s
  kubeletHealthCheck: 4m0s
  kubernetesAPICall: 1m0s
  tlsBootstrap: 5m0s
  upgradeManifests: 5m0s
`;

const V1BETA3_INIT = `apiVersion: kubeadm.k8s.io/v1beta3
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 10.0.0.5
nodeRegistration:
  name: cp-a
  criSocket: unix:///run/containerd/containerd.sock
  kubeletExtraArgs:
    v: "4"
    node-labels: a=b
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
kubernetesVersion: v1.30.2
controlPlaneEndpoint: cp.example:6443
apiServer:
  timeoutForControlPlane: 7m0s
  certSANs: [cp.example]
  extraArgs:
    profiling: "false"
    audit-log-maxage: "3"
etcd:
  local:
    extraArgs:
      quota-backend-bytes: "8589934592"
networking:
  podSubnet: 10.244.0.0/16
`;

describe('config migrate: the documents kubeadm writes', () => {
  test('v1beta3 Init + Cluster → v1beta4: maps become sorted lists, timeoutForControlPlane moves to timeouts', () => {
    const out = migrate(V1BETA3_INIT);
    expect(out.warnings).toEqual([]);
    expect(out.text).toMatch(TOKEN);
    expect(out.text.replace(TOKEN, '  token: <generated>')).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
bootstrapTokens:
- groups:
  - system:bootstrappers:kubeadm:default-node-token
  token: <generated>
  ttl: 24h0m0s
  usages:
  - signing
  - authentication
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 10.0.0.5
  bindPort: 6443
nodeRegistration:
  criSocket: unix:///run/containerd/containerd.sock
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
  kubeletExtraArgs:
  - name: node-labels
    value: a=b
  - name: v
    value: "4"
  name: cp-a
  taints:
  - effect: NoSchedule
    key: node-role.kubernetes.io/control-plane
${TIMEOUTS('7m0s', '5m0s')}---
apiServer:
  certSANs:
  - cp.example
  extraArgs:
  - name: audit-log-maxage
    value: "3"
  - name: profiling
    value: "false"
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controlPlaneEndpoint: cp.example:6443
controllerManager: {}
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
    extraArgs:
    - name: quota-backend-bytes
      value: "8589934592"
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: v1.30.2
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
proxy: {}
scheduler: {}
`);
  });

  test('without timeoutForControlPlane the v1beta3 default (4m0s) is what moves', () => {
    const out = migrate('apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n');
    expect(out.text).toContain(TIMEOUTS('4m0s', '5m0s'));
  });

  test('a ClusterConfiguration alone gives Init + Cluster; the dynamic defaults are the node\'s', () => {
    const out = migrate('apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n');
    expect(kindsOf(out.text)).toEqual(['kubeadm.k8s.io/v1beta4 InitConfiguration', 'kubeadm.k8s.io/v1beta4 ClusterConfiguration']);
    const init = yaml.loadAll(out.text)[0] as { localAPIEndpoint: { advertiseAddress: string }; nodeRegistration: { name: string } };
    expect(init.localAPIEndpoint.advertiseAddress).toBe('192.168.10.11');
    expect(init.nodeRegistration.name).toBe('cp1');
  });

  test('an InitConfiguration alone gives Init + Cluster', () => {
    expect(kindsOf(migrate('apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n').text)).toEqual([
      'kubeadm.k8s.io/v1beta4 InitConfiguration',
      'kubeadm.k8s.io/v1beta4 ClusterConfiguration',
    ]);
  });

  test('v1beta3 JoinConfiguration: discovery.timeout moves to timeouts.discovery, tlsBootstrapToken is defaulted', () => {
    const out = migrate(`apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
discovery:
  timeout: 2m30s
  bootstrapToken:
    token: abcdef.0123456789abcdef
    apiServerEndpoint: kube-apiserver:6443
    unsafeSkipCAVerification: true
nodeRegistration:
  name: worker-1
  kubeletExtraArgs:
    v: "2"
`);
    expect(out.text).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
caCertPath: /etc/kubernetes/pki/ca.crt
discovery:
  bootstrapToken:
    apiServerEndpoint: kube-apiserver:6443
    token: abcdef.0123456789abcdef
    unsafeSkipCAVerification: true
  tlsBootstrapToken: abcdef.0123456789abcdef
kind: JoinConfiguration
nodeRegistration:
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
  kubeletExtraArgs:
  - name: v
    value: "2"
  name: worker-1
  taints: null
${TIMEOUTS('4m0s', '2m30s')}`);
  });

  test('v1beta2: dns.type and ClusterStatus are dropped, a control-plane join keeps its endpoint', () => {
    const out = migrate(`apiVersion: kubeadm.k8s.io/v1beta2
kind: ClusterConfiguration
kubernetesVersion: v1.21.1
dns:
  type: CoreDNS
---
apiVersion: kubeadm.k8s.io/v1beta2
kind: ClusterStatus
apiEndpoints:
  cp-a:
    advertiseAddress: 10.0.0.5
    bindPort: 6443
---
apiVersion: kubeadm.k8s.io/v1beta2
kind: JoinConfiguration
discovery:
  file:
    kubeConfigPath: /etc/kubernetes/discovery.conf
controlPlane:
  localAPIEndpoint:
    advertiseAddress: 10.0.0.6
  certificateKey: ${'e'.repeat(64)}
`);
    expect(kindsOf(out.text)).toEqual(['kubeadm.k8s.io/v1beta4 InitConfiguration', 'kubeadm.k8s.io/v1beta4 ClusterConfiguration', 'kubeadm.k8s.io/v1beta4 JoinConfiguration']);
    const [, cluster, join] = yaml.loadAll(out.text) as [unknown, { dns: unknown }, { controlPlane: unknown; discovery: unknown; timeouts: { discovery: string } }];
    expect(cluster.dns).toEqual({});
    expect(join.controlPlane).toEqual({ certificateKey: 'e'.repeat(64), localAPIEndpoint: { advertiseAddress: '10.0.0.6', bindPort: 6443 } });
    expect(join.discovery).toEqual({ file: { kubeConfigPath: '/etc/kubernetes/discovery.conf' } });
    expect(join.timeouts.discovery).toBe('5m0s');
    expect(out.warnings).toEqual([expect.stringMatching(/^ClusterStatus is dropped/)]);
  });

  test('component configs are not migrated ("Only kubeadm kinds are migrated"), with a warning each', () => {
    const out = migrate(`apiVersion: kubeadm.k8s.io/v1beta3
kind: InitConfiguration
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
`);
    expect(kindsOf(out.text)).toEqual(['kubeadm.k8s.io/v1beta4 InitConfiguration', 'kubeadm.k8s.io/v1beta4 ClusterConfiguration']);
    expect(out.warnings).toEqual([
      expect.stringMatching(/^KubeProxyConfiguration is not migrated/),
      expect.stringMatching(/^KubeletConfiguration is not migrated/),
    ]);
  });

  test('v1beta4 ResetConfiguration is written back with kubeadm\'s defaults and its own timeouts', () => {
    const out = migrate(`apiVersion: kubeadm.k8s.io/v1beta4
kind: ResetConfiguration
force: true
cleanupTmpDir: true
criSocket: unix:///var/run/containerd/containerd.sock
unmountFlags: [MNT_DETACH]
timeouts:
  etcdAPICall: 30s
`);
    expect(out.text).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
certificatesDir: /etc/kubernetes/pki
cleanupTmpDir: true
criSocket: unix:///var/run/containerd/containerd.sock
force: true
kind: ResetConfiguration
timeouts:
  controlPlaneComponentHealthCheck: 4m0s
  discovery: 5m0s
  etcdAPICall: 30s
  kubeletHealthCheck: 4m0s
  kubernetesAPICall: 1m0s
  tlsBootstrap: 5m0s
  upgradeManifests: 5m0s
unmountFlags:
- MNT_DETACH
`);
  });

  test('v1beta1 (read by kubeadm 1.20/1.21) is migrated as the v1beta2 it equals', () => {
    const v1 = `apiVersion: kubeadm.k8s.io/v1beta1
kind: ClusterConfiguration
kubernetesVersion: v1.20.2
apiServer:
  extraArgs: {profiling: "false"}
---
apiVersion: kubeadm.k8s.io/v1beta1
kind: JoinConfiguration
discovery:
  file:
    kubeConfigPath: /etc/kubernetes/discovery.conf
`;
    const out = migrate(v1);
    expect(out.text).toBe(migrate(v1.replaceAll('v1beta1', 'v1beta2')).text);
    expect(kindsOf(out.text)).toEqual(['kubeadm.k8s.io/v1beta4 InitConfiguration', 'kubeadm.k8s.io/v1beta4 ClusterConfiguration', 'kubeadm.k8s.io/v1beta4 JoinConfiguration']);
    expect(out.text).toContain('  extraArgs:\n  - name: profiling\n    value: "false"\n');
  });

  test('v1beta4 UpgradeConfiguration (kubeadm 1.36+, PR #135148): written back with SetDefaults_UpgradeConfiguration\'s values where unset', () => {
    const out = migrate(`apiVersion: kubeadm.k8s.io/v1beta4
kind: UpgradeConfiguration
apply:
  kubernetesVersion: v1.37.0
  etcdUpgrade: false
  ignorePreflightErrors: [CoreDNSUnsupportedPlugins]
plan:
  allowRCUpgrades: true
diff:
  contextLines: 5
timeouts:
  upgradeManifests: 10m
`);
    expect(out.warnings).toEqual([]);
    expect(out.text).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
apply:
  certificateRenewal: true
  etcdUpgrade: false
  ignorePreflightErrors:
  - CoreDNSUnsupportedPlugins
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
  kubernetesVersion: v1.37.0
diff:
  contextLines: 5
kind: UpgradeConfiguration
node:
  certificateRenewal: true
  etcdUpgrade: true
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
plan:
  allowRCUpgrades: true
  etcdUpgrade: true
timeouts:
  controlPlaneComponentHealthCheck: 4m0s
  discovery: 5m0s
  etcdAPICall: 2m0s
  kubeletHealthCheck: 4m0s
  kubernetesAPICall: 1m0s
  tlsBootstrap: 5m0s
  upgradeManifests: 10m0s
`);
  });

  test('an UpgradeConfiguration comes after the other kinds', () => {
    const out = migrate('apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n');
    expect(kindsOf(out.text)).toEqual(['kubeadm.k8s.io/v1beta4 InitConfiguration', 'kubeadm.k8s.io/v1beta4 ClusterConfiguration', 'kubeadm.k8s.io/v1beta4 UpgradeConfiguration']);
  });

  test('a v1beta3 file whose target (the default, v1.37.0) no longer reads it migrates, and init reads the result', () => {
    const old = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n';
    expect(() => resolveInitConfig(withConfig(old))).toThrow(/kubeadm\.k8s\.io\/v1beta3 is not supported for Kubernetes v1\.37\.0/);
    const out = migrate(old);
    expect(out.warnings).toEqual([]);
    const cfg = resolveInitConfig(withConfig(out.text));
    expect(cfg.cluster.kubernetesVersion).toBe('v1.37.0');
    expect(cfg.warnings).toEqual([]);
  });

  test('etcd.external.httpEndpoints (v1beta4, 1.35+) is kept', () => {
    const out = migrate('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.35.0\netcd:\n  external:\n    endpoints: [http://10.0.0.1:2379]\n    httpEndpoints: [http://10.0.0.1:2381]\n');
    expect(out.text).toContain('etcd:\n  external:\n    caFile: ""\n    certFile: ""\n    endpoints:\n    - http://10.0.0.1:2379\n    httpEndpoints:\n    - http://10.0.0.1:2381\n    keyFile: ""\n');
  });

  test('an empty file migrates to nothing (kubeadm: "empty file produces empty result")', () => {
    const out = migrate('');
    expect(out.text).toBe('');
    expect(out.warnings).toEqual([expect.stringMatching(/nothing to migrate/)]);
  });
});

describe('config migrate: refused inputs (kubeadm: "bad config" and "unknown API" produce errors)', () => {
  test.each([
    ['a document without kind', 'apiVersion: kubeadm.k8s.io/v1beta3\n', /kind and apiVersion are mandatory/],
    ['an unknown kind', 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: Foo\n', /unknown kind "Foo"/],
    ['an old API version', 'apiVersion: kubeadm.k8s.io/v1alpha3\nkind: InitConfiguration\n', /old API version/],
    ['a v1beta2-only field in a v1beta1 document', 'apiVersion: kubeadm.k8s.io/v1beta1\nkind: InitConfiguration\ncertificateKey: abc\n', /certificateKey: unknown field \(InitConfiguration kubeadm.k8s.io\/v1beta1/],
    ['an unknown field', 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\nfoo: bar\n', /foo/],
    ['an invalid value', 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nnetworking:\n  serviceSubnet: 10.96.0.0/33\n', /networking.serviceSubnet/],
    ['an invalid UpgradeConfiguration value', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\nnode:\n  imagePullPolicy: Sometimes\n', /^node\.imagePullPolicy: Unsupported value: "Sometimes"/m],
    ['an unknown UpgradeConfiguration field', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\napply:\n  bogus: true\n', /apply\.bogus: unknown field/],
    ['kubeadm.k8s.io/v1 (disabled in kubeadm 1.37)', 'apiVersion: kubeadm.k8s.io/v1\nkind: InitConfiguration\n', /kubeadm\.k8s\.io\/v1 is not usable yet/],
  ])('%s', (_name, text, message) => {
    const err = configError(() => migrate(text));
    expect(err.code).toBe('E_CONFIG_INVALID');
    expect([err.message, ...err.details].join('\n')).toMatch(message);
  });
});

describe('config migrate: the output means what the input meant', () => {
  // Resolved by tsadm's loader, the old file and the migrated one give the same configuration
  // (the generated token too: ENV's randomness is fixed).
  // The warnings differ (deprecated fields are gone), and so does the recorded API version of a
  // JoinConfiguration (join checks it against the cluster's minor): the configuration is the same.
  const strip = <T extends { warnings: unknown; apiVersions?: unknown }>(r: T): Omit<T, 'warnings' | 'apiVersions'> => {
    const { warnings: _w, apiVersions: _a, ...rest } = r;
    return rest;
  };

  test.each([
    ['v1beta3 Init + Cluster', V1BETA3_INIT],
    ['v1beta2 Init + Cluster', `apiVersion: kubeadm.k8s.io/v1beta2
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
  ttl: 2h0m0s
nodeRegistration:
  taints: []
  kubeletExtraArgs: {cgroup-driver: systemd}
---
apiVersion: kubeadm.k8s.io/v1beta2
kind: ClusterConfiguration
kubernetesVersion: v1.20.2
apiServer:
  timeoutForControlPlane: 3m0s
  extraVolumes:
  - name: audit
    hostPath: /var/log/audit
    mountPath: /var/log/audit
    pathType: DirectoryOrCreate
featureGates: {PublicKeysECDSA: true}
`],
  ])('%s: init resolves the same', (_name, text) => {
    const migrated = resolveInitConfig(withConfig(migrate(text).text));
    const original = resolveInitConfig(withConfig(text));
    // Unset taints ("the version's default") are written as that default, as kubeadm does.
    const taints = original.init.nodeRegistration.taints ?? [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }];
    expect(migrated.init.nodeRegistration.taints).toEqual(taints);
    const withTaints = { ...original, init: { ...original.init, nodeRegistration: { ...original.init.nodeRegistration, taints } } };
    expect(strip(migrated)).toEqual(strip(withTaints));
  });

  test('the taint written for unset taints is the default of the file\'s version: 1.20 had the master taint', () => {
    const out = migrate('apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\n');
    // kubeadm 1.20's SetNodeRegistrationDynamicDefaults: kubeadmconstants.MasterTaint.
    expect(out.text).toContain('  taints:\n  - effect: NoSchedule\n    key: node-role.kubernetes.io/master\n');
  });

  test('v1beta2 JoinConfiguration: join resolves the same', () => {
    const text = `apiVersion: kubeadm.k8s.io/v1beta2
kind: JoinConfiguration
discovery:
  timeout: 1m0s
  bootstrapToken:
    token: abcdef.0123456789abcdef
    apiServerEndpoint: 10.0.0.5:6443
    caCertHashes: [sha256:${'a'.repeat(64)}]
nodeRegistration:
  ignorePreflightErrors: [Swap]
`;
    expect(strip(resolveJoinConfig(withConfig(migrate(text).text)))).toEqual(strip(resolveJoinConfig(withConfig(text))));
  });

  test('ResetConfiguration: reset resolves the same', () => {
    const text = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nskipPhases: [cleanup-node]\nignorePreflightErrors: [all]\n';
    // The migrated file spells kubeadm's default timeouts out, as kubeadm's migrate does; reset
    // reads them as given (without a timeouts field it keeps its own shorter API deadline, README).
    const migrated = strip(resolveResetConfig(withConfig(migrate(text).text)));
    expect(migrated).toEqual({ ...strip(resolveResetConfig(withConfig(text))), reset: { ...strip(resolveResetConfig(withConfig(text))).reset, timeouts: { kubernetesAPICallMs: 60_000, etcdAPICallMs: 120_000 } } });
  });
});
