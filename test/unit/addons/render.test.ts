import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { clusterDnsIp } from '../../../src/config/component-defaults.js';
import { configMapHash } from '../../../src/kube/configmap-hash.js';
import type { KubeObject } from '../../../src/kube/types.js';
import { corefile, corednsDeployment, corednsObjects, dnsService, isDefaultCorefile } from '../../../src/phases/addons/coredns-render.js';
import { corednsImage, kubeProxyImage } from '../../../src/phases/addons/images.js';
import {
  kubeProxyConfigMap, kubeProxyConfiguration, kubeProxyDaemonSet, kubeProxyRbac, kubeProxyServiceAccount, proxyEnvVars,
} from '../../../src/phases/addons/kube-proxy-render.js';
import { VERSION_TABLE, type SupportedMinor } from '../../../src/versions/table.js';
import { findObject, fixtureText, kubeadmObjects, normalize } from '../cluster/kubeadm-fixtures.js';

const v120 = VERSION_TABLE['1.20'];
const fixture = kubeadmObjects('addons/fixtures/kubeadm-1.20-addon-objects.yaml');
const input = (minor: SupportedMinor = '1.20') => ({ versions: VERSION_TABLE[minor], image: 'k8s.gcr.io/coredns:1.7.0', dnsDomain: 'cluster.local', dnsIp: '10.96.0.10', replicas: 2 });
// The fields of a rendered Deployment/DaemonSet these tests read.
interface TestContainer { env: { name: string }[]; ports: { name: string }[]; securityContext: { capabilities: { drop: string[] } }; livenessProbe: { httpGet: { port: number | string } }; readinessProbe: { httpGet: { port: number | string } } }
interface TestPodSpec { containers: TestContainer[]; tolerations: { key: string }[]; affinity?: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: unknown[] } } }
const podSpec = (d: KubeObject): TestPodSpec => (d as unknown as { spec: { template: { spec: TestPodSpec } } }).spec.template.spec;
const container = (d: KubeObject): TestContainer => podSpec(d).containers[0] as TestContainer;

describe('CoreDNS objects equal kubeadm v1.20.2\'s', () => {
  test('all six, in kubeadm\'s creation order', () => {
    const ours = corednsObjects(input());
    expect(ours.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ConfigMap/coredns', 'ClusterRole/system:coredns', 'ClusterRoleBinding/system:coredns', 'ServiceAccount/coredns', 'Deployment/coredns', 'Service/kube-dns']);
    for (const o of ours) expect(normalize(o)).toEqual(normalize(findObject(fixture, o.kind, o.metadata.name)));
  });

  test('Corefile: domain substituted; default variants recognised, edits not', () => {
    expect(corefile('example.internal', false)).toContain('    kubernetes example.internal in-addr.arpa ip6.arpa {\n');
    expect(isDefaultCorefile(corefile('example.internal', false))).toBe(true);
    expect(isDefaultCorefile(corefile('cluster.local', true))).toBe(true);
    expect(isDefaultCorefile(corefile('cluster.local', false).replace('cache 30', 'cache 60'))).toBe(false);
    expect(isDefaultCorefile('')).toBe(false);
  });
});

describe('CoreDNS per minor (version table facts)', () => {
  test('1.25: preferred anti-affinity; 1.26: no master toleration', () => {
    const d25 = podSpec(corednsDeployment(input('1.25')));
    expect(d25.affinity?.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]).toEqual({
      weight: 100,
      podAffinityTerm: { labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] }, topologyKey: 'kubernetes.io/hostname' },
    });
    expect(d25.tolerations.map((t) => t.key)).toEqual(['CriticalAddonsOnly', 'node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane']);
    expect(podSpec(corednsDeployment(input('1.26'))).tolerations.map((t) => t.key)).toEqual(['CriticalAddonsOnly', 'node-role.kubernetes.io/control-plane']);
    expect(podSpec(corednsDeployment(input('1.24'))).affinity).toBeUndefined();
  });

  test('1.29: drop ALL; 1.32: cluster domain not cached; 1.33: named probe ports', () => {
    expect(container(corednsDeployment(input('1.28'))).securityContext.capabilities.drop).toEqual(['all']);
    expect(container(corednsDeployment(input('1.29'))).securityContext.capabilities.drop).toEqual(['ALL']);
    expect(corefile('cluster.local', VERSION_TABLE['1.32'].addons.corednsCacheDisableClusterDomain)).toContain('    cache 30 {\n       disable success cluster.local\n       disable denial cluster.local\n    }\n    loop\n');
    expect(corefile('cluster.local', VERSION_TABLE['1.31'].addons.corednsCacheDisableClusterDomain)).toContain('    cache 30\n    loop\n');
    const c33 = container(corednsDeployment(input('1.33')));
    expect(c33.livenessProbe.httpGet.port).toBe('liveness-probe');
    expect(c33.readinessProbe.httpGet.port).toBe('readiness-probe');
    expect(c33.ports.map((p) => p.name)).toEqual(['dns', 'dns-tcp', 'metrics', 'liveness-probe', 'readiness-probe']);
    expect(container(corednsDeployment(input('1.32'))).livenessProbe.httpGet.port).toBe(8080);
  });

  test('1.21+: EndpointSlice RBAC and the CoreDNS service label', () => {
    const objs = corednsObjects(input('1.21'));
    expect((objs[1]?.rules as unknown[]).at(-1)).toEqual({ apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] });
    expect(dnsService(input('1.21')).metadata.labels?.['kubernetes.io/name']).toBe('CoreDNS');
  });

  test('every supported minor renders', () => {
    for (const minor of Object.keys(VERSION_TABLE) as SupportedMinor[]) expect(corednsObjects(input(minor))).toHaveLength(6);
  });
});

describe('images', () => {
  const cfg = (over: Record<string, unknown> = {}) => fixtureInitConfig({ cluster: over }).cluster;
  test.each([
    ['1.20 default repository', '1.20', {}, 'k8s.gcr.io/coredns:1.7.0'],
    ['1.22 default repository: coredns/coredns sub-path', '1.22', { imageRepository: 'k8s.gcr.io' }, 'k8s.gcr.io/coredns/coredns:v1.8.4'],
    ['1.26 default repository', '1.26', { imageRepository: 'registry.k8s.io' }, 'registry.k8s.io/coredns/coredns:v1.9.3'],
    ['custom repository: no sub-path', '1.26', { imageRepository: 'registry.local/k8s' }, 'registry.local/k8s/coredns:v1.9.3'],
    ['dns.imageRepository and imageTag win', '1.26', { dns: { disabled: false, imageRepository: 'mirror.local', imageTag: 'v9' } }, 'mirror.local/coredns:v9'],
  ])('CoreDNS: %s', (_n, minor, over, image) => {
    expect(corednsImage(cfg(over), VERSION_TABLE[minor as SupportedMinor])).toBe(image);
  });

  test('kube-proxy image: cluster repository, version tag with + → _', () => {
    expect(kubeProxyImage(cfg({ kubernetesVersion: 'v1.20.2+k3s1' }), v120)).toBe('k8s.gcr.io/kube-proxy:v1.20.2_k3s1');
  });

  test.each([['10.96.0.0/12', '10.96.0.10'], ['172.16.0.0/16', '172.16.0.10'], ['fd00:10:96::/112', 'fd00:10:96::a'], ['10.96.0.0/12,fd00::/108', '10.96.0.10']])('DNS IP of %s is %s', (cidr, ip) => {
    expect(clusterDnsIp(cidr)).toBe(ip);
  });
});

describe('kube-proxy objects equal kubeadm v1.20.2\'s', () => {
  const server = 'https://cp.example.com:6443';
  const base = { user: {}, podSubnet: '10.244.0.0/16', advertiseAddress: '192.168.10.11', featureGates: {}, versions: v120 };

  test('ServiceAccount, DaemonSet and RBAC', () => {
    expect(normalize(kubeProxyServiceAccount())).toEqual(normalize(findObject(fixture, 'ServiceAccount', 'kube-proxy')));
    const ds = kubeProxyDaemonSet('k8s.gcr.io/kube-proxy:v1.20.2', []);
    const theirs = normalize(findObject(fixture, 'DaemonSet', 'kube-proxy')) as { spec: { template: { spec: { containers: { resources?: unknown }[] } } } };
    delete theirs.spec.template.spec.containers[0]?.resources; // Go's empty struct, not sent by tsadm
    expect(normalize(ds)).toEqual(theirs);
    expect(kubeProxyRbac().map(normalize)).toEqual(['ClusterRoleBinding/kubeadm:node-proxier', 'Role/kube-proxy', 'RoleBinding/kube-proxy'].map((k) => {
      const [kind, name] = k.split('/') as [string, string];
      return normalize(findObject(fixture, kind, name));
    }));
  });

  test('ConfigMap: kubeconfig.conf byte-identical; config.conf carries kubeadm\'s values; hash over both', () => {
    const { config } = kubeProxyConfiguration(base);
    const cm = kubeProxyConfigMap(config, server, true);
    const theirs = findObject(fixture, 'ConfigMap', 'kube-proxy') as unknown as { data: Record<string, string>; metadata: { annotations: Record<string, string> } };
    expect(cm.data?.['kubeconfig.conf']).toBe(theirs.data['kubeconfig.conf']);
    expect(cm.data?.['config.conf']).toBe('apiVersion: kubeproxy.config.k8s.io/v1alpha1\nbindAddress: 0.0.0.0\nclientConnection:\n  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf\nclusterCIDR: 10.244.0.0/16\nkind: KubeProxyConfiguration');
    expect(cm.metadata.labels).toEqual({ app: 'kube-proxy' });
    expect(cm.metadata.annotations?.['kubeadm.kubernetes.io/component-config.hash']).toBe(configMapHash(cm.data ?? {}));
    // Same algorithm, kubeadm's own data → kubeadm's own hash.
    expect(configMapHash(theirs.data)).toBe(theirs.metadata.annotations['kubeadm.kubernetes.io/component-config.hash']);
    expect(kubeProxyConfigMap(config, server, false).metadata.annotations).toBeUndefined();
  });

  test('user KubeProxyConfiguration merged over kubeadm\'s defaults; overrides warned about', () => {
    const r = kubeProxyConfiguration({ ...base, user: { apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', conntrack: { maxPerCore: 0 }, mode: 'ipvs', bindAddress: '10.0.0.1' } });
    expect(r.config).toEqual({
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration',
      conntrack: { maxPerCore: 0 }, mode: 'ipvs', bindAddress: '10.0.0.1', clusterCIDR: '10.244.0.0/16', clientConnection: { kubeconfig: '/var/lib/kube-proxy/kubeconfig.conf' },
    });
    expect(r.warnings).toEqual(['The recommended value for "bindAddress" in "KubeProxyConfiguration" is: 0.0.0.0; the provided value is: 10.0.0.1']);
  });

  test('IPv6 advertise address → bindAddress ::; no pod subnet → no clusterCIDR; IPv6DualStack forwarded while it is a gate', () => {
    const r = kubeProxyConfiguration({ ...base, podSubnet: '', advertiseAddress: 'fd00::1', featureGates: { IPv6DualStack: true } });
    expect(r.config).toMatchObject({ bindAddress: '::', featureGates: { IPv6DualStack: true } });
    expect(r.config).not.toHaveProperty('clusterCIDR');
    expect(kubeProxyConfiguration({ ...base, featureGates: { IPv6DualStack: true }, versions: VERSION_TABLE['1.23'] }).config).not.toHaveProperty('featureGates');
  });

  test('proxy variables of the environment reach the DaemonSet, in order', () => {
    const env = proxyEnvVars({ HTTPS_PROXY: 'http://p:3128', PATH: '/bin', no_proxy: '10.0.0.0/8', FTP_PROXY: '' });
    expect(env).toEqual([{ name: 'HTTPS_PROXY', value: 'http://p:3128' }, { name: 'no_proxy', value: '10.0.0.0/8' }]);
    expect(container(kubeProxyDaemonSet('img', env)).env.map((e) => e.name)).toEqual(['NODE_NAME', 'HTTPS_PROXY', 'no_proxy']);
  });

  test('fixture sanity: kubeadm\'s config.conf is what its Go serializer wrote', () => {
    expect(fixtureText('addons/fixtures/kubeadm-1.20-addon-objects.yaml')).toContain('udpIdleTimeout: 0s');
  });
});
