/**
 * kubeadm's own tests as the oracle (issue 36): the table-driven cases of
 * kubernetes/kubernetes cmd/kubeadm/app/phases/controlplane/manifests_test.go at revision
 * 898b9f800267a757615ecfb71fc377d04d996c6b (a 1.36-cycle revision), compared with tsadm's pure
 * renderers (src/manifest/apiserver.ts, controller-manager.ts, scheduler.ts) on the 1.36 row. The expected lists are copied literally
 * from that file; Go expressions are resolved as written: testCertsDir = "/var/lib/certs",
 * filepath.Join(kubeadmconstants.KubernetesDir, x) = "/etc/kubernetes/" + x,
 * kubeadmconstants.EtcdListenClientPort = 2379. The ledger (./ledger.ts) lists every case of the
 * file with its outcome; docs/kubeadm-test-port.md reports them.
 */
import type { ClusterConfiguration, Etcd } from '../../../src/config/types.js';
import { NO_HOST_FACTS, type HostFacts, type StaticPodConfig } from '../../../src/manifest/inputs.js';
import type { Container, Pod } from '../../../src/manifest/pod.js';
import { authorizationModes } from '../../../src/manifest/apiserver.js';
import { renderStaticPod, type StaticPodComponent } from '../../../src/manifest/render.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { goSorted, ledgerFile, portCases, caseKey } from './support.js';

const SOURCE = 'cmd/kubeadm/app/phases/controlplane/manifests_test.go';
const versions = VERSION_TABLE[ledgerFile(SOURCE).minor];
const testCertsDir = '/var/lib/certs';

/** kubeadm's zero ClusterConfiguration{} with the case's fields: tsadm's fixture, emptied where Go leaves zero values. */
function cluster(fields: Partial<ClusterConfiguration>): ClusterConfiguration {
  const base = fixtureInitConfig().cluster;
  return {
    ...base,
    clusterName: '',
    certificatesDir: '',
    networking: { serviceSubnet: '', podSubnet: '', dnsDomain: '' },
    ...fields,
  };
}

const localEtcd = fixtureInitConfig().cluster.etcd;

function command(component: StaticPodComponent, c: ClusterConfiguration, endpoint = { advertiseAddress: '', bindPort: 0 }, facts: HostFacts = NO_HOST_FACTS): string[] {
  const cfg: StaticPodConfig = { cluster: c, endpoint, nodeName: '' };
  return (renderStaticPod(component, cfg, versions, facts).spec.containers[0] as Container).command;
}

function apiServerCase(c: Partial<ClusterConfiguration>, endpoint: { bindPort: number; advertiseAddress: string }, expected: string[]): () => void {
  return () => {
    const actual = command('kube-apiserver', cluster({ networking: { serviceSubnet: 'bar', podSubnet: '', dnsDomain: 'cluster.local' }, certificatesDir: testCertsDir, ...c }), endpoint);
    expect(goSorted(actual)).toEqual(goSorted(expected));
  };
}

/** The flags every TestGetAPIServerCommand case expects before its etcd and advertise flags. */
const apiServerCommon = (serviceClusterIpRange: string): string[] => [
  'kube-apiserver',
  '--enable-admission-plugins=NodeRestriction',
  `--service-cluster-ip-range=${serviceClusterIpRange}`,
  `--service-account-key-file=${testCertsDir}/sa.pub`,
  `--service-account-signing-key-file=${testCertsDir}/sa.key`,
  '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
  `--client-ca-file=${testCertsDir}/ca.crt`,
  `--tls-cert-file=${testCertsDir}/apiserver.crt`,
  `--tls-private-key-file=${testCertsDir}/apiserver.key`,
  `--kubelet-client-certificate=${testCertsDir}/apiserver-kubelet-client.crt`,
  `--kubelet-client-key=${testCertsDir}/apiserver-kubelet-client.key`,
  '--enable-bootstrap-token-auth=true',
  '--secure-port=123',
  '--allow-privileged=true',
  '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
  '--proxy-client-cert-file=/var/lib/certs/front-proxy-client.crt',
  '--proxy-client-key-file=/var/lib/certs/front-proxy-client.key',
  '--requestheader-username-headers=X-Remote-User',
  '--requestheader-group-headers=X-Remote-Group',
  '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  `--requestheader-client-ca-file=${testCertsDir}/front-proxy-ca.crt`,
  '--requestheader-allowed-names=front-proxy-client',
];

const localEtcdFlags = (servers: string): string[] => [
  `--etcd-servers=${servers}`,
  `--etcd-cafile=${testCertsDir}/etcd/ca.crt`,
  `--etcd-certfile=${testCertsDir}/apiserver-etcd-client.crt`,
  `--etcd-keyfile=${testCertsDir}/apiserver-etcd-client.key`,
];

const external = (e: Partial<Etcd & { mode: 'external' }>): Etcd => ({ mode: 'external', endpoints: [], caFile: '', certFile: '', keyFile: '', ...e });

/** The flags every TestGetControllerManagerCommand case expects (certs dir given). */
const controllerManagerCommon = (dir: string, signing = true): string[] => [
  'kube-controller-manager',
  '--bind-address=127.0.0.1',
  '--leader-elect=true',
  '--kubeconfig=/etc/kubernetes/controller-manager.conf',
  `--root-ca-file=${dir}/ca.crt`,
  `--service-account-private-key-file=${dir}/sa.key`,
  signing ? `--cluster-signing-cert-file=${dir}/ca.crt` : '--cluster-signing-cert-file=',
  signing ? `--cluster-signing-key-file=${dir}/ca.key` : '--cluster-signing-key-file=',
  '--use-service-account-credentials=true',
  '--controllers=*,bootstrapsigner,tokencleaner',
  '--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf',
  '--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf',
  `--client-ca-file=${dir}/ca.crt`,
  `--requestheader-client-ca-file=${dir}/front-proxy-ca.crt`,
];

function controllerManagerCase(c: Partial<ClusterConfiguration>, extra: string[]): () => void {
  return () => {
    const actual = command('kube-controller-manager', cluster({ certificatesDir: testCertsDir, ...c }));
    expect(goSorted(actual)).toEqual(goSorted([...controllerManagerCommon(testCertsDir), ...extra]));
  };
}

const net = (podSubnet: string, serviceSubnet = ''): ClusterConfiguration['networking'] => ({ podSubnet, serviceSubnet, dnsDomain: 'cluster.local' });
const arg = (name: string, value: string): { name: string; value: string } => ({ name, value });
const component = (extraArgs: Array<{ name: string; value: string }>): ClusterConfiguration['controllerManager'] => ({ extraArgs, extraVolumes: [], extraEnvs: [] });

/**
 * TestGetStaticPodSpecs: probes present or not, the probe port named kubeadmconstants.ProbePort
 * ("probe-port") and the container port (KubeAPIServerPort 6443, KubeControllerManagerPort 10257,
 * KubeSchedulerPort 10259), the scheduler's extra env.
 */
function staticPodSpecCase(name: StaticPodComponent, expectReadinessProbe: boolean, containerPort: number, env?: Array<{ name: string; value: string }>): () => void {
  return () => {
    const c = cluster({ kubernetesVersion: 'v1.9.0', scheduler: { extraArgs: [], extraVolumes: [], extraEnvs: [{ name: 'Foo', value: 'Bar' }] } });
    const pod: Pod = renderStaticPod(name, { cluster: c, endpoint: { advertiseAddress: '', bindPort: 6443 }, nodeName: '' }, versions, NO_HOST_FACTS);
    const c0 = pod.spec.containers[0] as Container;
    expect(c0.name).toBe(name);
    if (env) expect(c0.env).toEqual(env);
    expect([c0.livenessProbe !== undefined, c0.readinessProbe !== undefined, c0.startupProbe !== undefined]).toEqual([true, expectReadinessProbe, true]);
    for (const probe of [c0.livenessProbe, c0.readinessProbe, c0.startupProbe]) if (probe) expect(probe.httpGet.port).toBe('probe-port');
    expect(c0.ports).toEqual([{ name: 'probe-port', containerPort, protocol: 'TCP' }]);
  };
}

const authz = (name: string, authMode: string[], expected: string): [string, () => void] =>
  [caseKey('TestGetAuthzModes', name), () => expect(authorizationModes(authMode.join(',')).modes).toBe(expected)];

/** kubeadm's isValidAuthzMode, asked through the public function: a valid mode alone is kept as given, an invalid one falls back to the default. */
const validMode = (mode: string, valid: boolean): [string, () => void] =>
  [caseKey('TestIsValidAuthzMode', mode), () => expect(authorizationModes(mode).modes === mode).toBe(valid)];

const cpv = '<cpVersion>';

portCases(SOURCE, {
  [caseKey('TestGetStaticPodSpecs', 'KubeAPIServer')]: staticPodSpecCase('kube-apiserver', true, 6443),
  [caseKey('TestGetStaticPodSpecs', 'KubeControllerManager')]: staticPodSpecCase('kube-controller-manager', false, 10257),
  [caseKey('TestGetStaticPodSpecs', 'KubeScheduler')]: staticPodSpecCase('kube-scheduler', true, 10259, [{ name: 'Foo', value: 'Bar' }]),

  [caseKey('TestGetAPIServerCommand', 'testing defaults')]: apiServerCase({}, { bindPort: 123, advertiseAddress: '1.2.3.4' }, [
    ...apiServerCommon('bar'), '--authorization-mode=Node,RBAC', '--advertise-address=1.2.3.4', ...localEtcdFlags('https://127.0.0.1:2379'),
  ]),
  [caseKey('TestGetAPIServerCommand', 'ipv6 advertise address')]: apiServerCase({}, { bindPort: 123, advertiseAddress: '2001:db8::1' }, [
    ...apiServerCommon('bar'), '--authorization-mode=Node,RBAC', '--advertise-address=2001:db8::1', ...localEtcdFlags('https://[::1]:2379'),
  ]),
  [caseKey('TestGetAPIServerCommand', 'an external etcd with custom ca, certs and keys')]: apiServerCase(
    { etcd: external({ endpoints: ['https://[2001:abcd:bcda::1]:2379', 'https://[2001:abcd:bcda::2]:2379'], caFile: 'fuz', certFile: 'fiz', keyFile: 'faz' }) },
    { bindPort: 123, advertiseAddress: '2001:db8::1' },
    [
      ...apiServerCommon('bar'), '--authorization-mode=Node,RBAC', '--advertise-address=2001:db8::1',
      '--etcd-servers=https://[2001:abcd:bcda::1]:2379,https://[2001:abcd:bcda::2]:2379', '--etcd-cafile=fuz', '--etcd-certfile=fiz', '--etcd-keyfile=faz',
    ],
  ),
  [caseKey('TestGetAPIServerCommand', 'an insecure etcd')]: apiServerCase(
    { etcd: external({ endpoints: ['http://[::1]:2379', 'http://[::1]:2380'] }) },
    { bindPort: 123, advertiseAddress: '2001:db8::1' },
    [...apiServerCommon('bar'), '--authorization-mode=Node,RBAC', '--advertise-address=2001:db8::1', '--etcd-servers=http://[::1]:2379,http://[::1]:2380'],
  ),
  [caseKey('TestGetAPIServerCommand', 'test APIServer.ExtraArgs works as expected')]: apiServerCase(
    {
      etcd: localEtcd,
      apiServer: {
        ...fixtureInitConfig().cluster.apiServer,
        extraArgs: [arg('service-cluster-ip-range', 'baz'), arg('advertise-address', '9.9.9.9'), arg('audit-policy-file', '/etc/config/audit.yaml'), arg('audit-log-path', '/var/log/kubernetes')],
      },
    },
    { bindPort: 123, advertiseAddress: '1.2.3.4' },
    [
      ...apiServerCommon('baz'), '--authorization-mode=Node,RBAC', '--advertise-address=9.9.9.9', ...localEtcdFlags('https://127.0.0.1:2379'),
      '--audit-policy-file=/etc/config/audit.yaml', '--audit-log-path=/var/log/kubernetes',
    ],
  ),
  [caseKey('TestGetAPIServerCommand', 'authorization-mode extra-args ABAC')]: apiServerCase(
    { apiServer: { ...fixtureInitConfig().cluster.apiServer, extraArgs: [arg('authorization-mode', 'ABAC')] } },
    { bindPort: 123, advertiseAddress: '1.2.3.4' },
    [...apiServerCommon('bar'), '--authorization-mode=ABAC', '--advertise-address=1.2.3.4', ...localEtcdFlags('https://127.0.0.1:2379')],
  ),
  [caseKey('TestGetAPIServerCommand', 'authorization-mode extra-args Webhook')]: apiServerCase(
    { apiServer: { ...fixtureInitConfig().cluster.apiServer, extraArgs: [arg('authorization-mode', 'Node,RBAC,Webhook')] } },
    { bindPort: 123, advertiseAddress: '1.2.3.4' },
    [...apiServerCommon('bar'), '--authorization-mode=Node,RBAC,Webhook', '--advertise-address=1.2.3.4', ...localEtcdFlags('https://127.0.0.1:2379')],
  ),
  [caseKey('TestGetAPIServerCommand', 'authorization-config extra-args')]: apiServerCase(
    { apiServer: { ...fixtureInitConfig().cluster.apiServer, extraArgs: [arg('authorization-config', '/path/to/authorization/config/file')] } },
    { bindPort: 123, advertiseAddress: '1.2.3.4' },
    [...apiServerCommon('bar'), '--authorization-config=/path/to/authorization/config/file', '--advertise-address=1.2.3.4', ...localEtcdFlags('https://127.0.0.1:2379')],
  ),
  [caseKey('TestGetAPIServerCommand', 'authorization-config and authorization-mode extra-args')]: apiServerCase(
    { apiServer: { ...fixtureInitConfig().cluster.apiServer, extraArgs: [arg('authorization-config', '/path/to/authorization/config/file'), arg('authorization-mode', 'Node,RBAC,Webhook')] } },
    { bindPort: 123, advertiseAddress: '1.2.3.4' },
    [
      ...apiServerCommon('bar'), '--authorization-config=/path/to/authorization/config/file', '--authorization-mode=Node,RBAC,Webhook',
      '--advertise-address=1.2.3.4', ...localEtcdFlags('https://127.0.0.1:2379'),
    ],
  ),

  [caseKey('TestGetControllerManagerCommand', `custom cluster name for ${cpv}`)]: controllerManagerCase({ clusterName: 'some-other-cluster-name' }, ['--cluster-name=some-other-cluster-name']),
  [caseKey('TestGetControllerManagerCommand', `custom certs dir for ${cpv}`)]: controllerManagerCase({}, []),
  [caseKey('TestGetControllerManagerCommand', `custom cluster-cidr for ${cpv}`)]: controllerManagerCase({ networking: net('10.0.1.15/16') }, ['--allocate-node-cidrs=true', '--cluster-cidr=10.0.1.15/16']),
  [caseKey('TestGetControllerManagerCommand', `custom service-cluster-ip-range for ${cpv}`)]: controllerManagerCase(
    { networking: net('10.0.1.15/16', '172.20.0.0/24') },
    ['--allocate-node-cidrs=true', '--cluster-cidr=10.0.1.15/16', '--service-cluster-ip-range=172.20.0.0/24'],
  ),
  [caseKey('TestGetControllerManagerCommand', `custom extra-args for ${cpv}`)]: controllerManagerCase(
    { networking: net('10.0.1.15/16'), controllerManager: component([arg('node-cidr-mask-size', '20')]) },
    ['--allocate-node-cidrs=true', '--cluster-cidr=10.0.1.15/16', '--node-cidr-mask-size=20'],
  ),
  [caseKey('TestGetControllerManagerCommand', `custom IPv6 networking for ${cpv}`)]: controllerManagerCase(
    { networking: net('2001:db8::/64', 'fd03::/112') },
    ['--allocate-node-cidrs=true', '--cluster-cidr=2001:db8::/64', '--service-cluster-ip-range=fd03::/112'],
  ),
  [caseKey('TestGetControllerManagerCommand', `IPv6 networking custom extra-args for ${cpv}`)]: controllerManagerCase(
    { networking: net('2001:db8::/64', 'fd03::/112'), controllerManager: component([arg('allocate-node-cidrs', 'false')]) },
    ['--allocate-node-cidrs=false', '--cluster-cidr=2001:db8::/64', '--service-cluster-ip-range=fd03::/112'],
  ),
  [caseKey('TestGetControllerManagerCommand', `dual-stack networking for ${cpv}`)]: controllerManagerCase(
    { networking: net('2001:db8::/64,10.1.0.0/16', 'fd03::/112,192.168.0.0/16') },
    ['--allocate-node-cidrs=true', '--cluster-cidr=2001:db8::/64,10.1.0.0/16', '--service-cluster-ip-range=fd03::/112,192.168.0.0/16'],
  ),
  [caseKey('TestGetControllerManagerCommand', `dual-stack networking custom extra-args for ${cpv}`)]: controllerManagerCase(
    { networking: net('10.0.1.15/16,2001:db8::/64'), controllerManager: component([arg('node-cidr-mask-size-ipv4', '20'), arg('node-cidr-mask-size-ipv6', '80')]) },
    ['--allocate-node-cidrs=true', '--cluster-cidr=10.0.1.15/16,2001:db8::/64', '--node-cidr-mask-size-ipv4=20', '--node-cidr-mask-size-ipv6=80'],
  ),

  // kubeadm creates the PKI in t.TempDir() and removes ca.key (and front-proxy-ca.key) when
  // caKeyPresent is false; tsadm's renderer gets that as HostFacts.externalCA.
  [caseKey('TestGetControllerManagerCommandExternalCA', `caKeyPresent-false for ${cpv}`)]: () => {
    const tmpdir = '/tmp/TestGetControllerManagerCommandExternalCA';
    const c = cluster({ certificatesDir: tmpdir, networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '', dnsDomain: 'cluster.local' } });
    expect(goSorted(command('kube-controller-manager', c, undefined, { ...NO_HOST_FACTS, externalCA: true }))).toEqual(goSorted(controllerManagerCommon(tmpdir, false)));
  },
  [caseKey('TestGetControllerManagerCommandExternalCA', `caKeyPresent true for ${cpv}`)]: () => {
    const tmpdir = '/tmp/TestGetControllerManagerCommandExternalCA';
    const c = cluster({ certificatesDir: tmpdir, networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '', dnsDomain: 'cluster.local' } });
    expect(goSorted(command('kube-controller-manager', c, undefined, { ...NO_HOST_FACTS, externalCA: false }))).toEqual(goSorted(controllerManagerCommon(tmpdir, true)));
  },

  [caseKey('TestGetSchedulerCommand', 'scheduler defaults')]: () => {
    expect(goSorted(command('kube-scheduler', cluster({})))).toEqual(goSorted([
      'kube-scheduler',
      '--bind-address=127.0.0.1',
      '--leader-elect=true',
      '--kubeconfig=/etc/kubernetes/scheduler.conf',
      '--authentication-kubeconfig=/etc/kubernetes/scheduler.conf',
      '--authorization-kubeconfig=/etc/kubernetes/scheduler.conf',
    ]));
  },

  ...Object.fromEntries([
    authz('default if empty', [], 'Node,RBAC'),
    authz('default non empty', ['Node', 'RBAC'], 'Node,RBAC'),
    authz('single unspecified returning default', ['FooAuthzMode'], 'Node,RBAC'),
    authz('multiple ignored', ['Node', 'foo', 'RBAC', 'bar'], 'Node,RBAC'),
    authz('single mode', ['AlwaysDeny'], 'AlwaysDeny'),
    authz('multiple special order', ['Node', 'Webhook', 'RBAC', 'ABAC'], 'Node,Webhook,RBAC,ABAC'),
    validMode('Node', true),
    validMode('RBAC', true),
    validMode('ABAC', true),
    validMode('AlwaysAllow', true),
    validMode('Webhook', true),
    validMode('AlwaysDeny', true),
    validMode('Foo', false),
  ]),
});
