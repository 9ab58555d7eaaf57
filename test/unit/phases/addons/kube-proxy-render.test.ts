import * as yaml from 'js-yaml';
import { configMapHash } from '../../../../src/kube/configmap-hash.js';
import type { KubeObject } from '../../../../src/kube/types.js';
import {
  kubeProxyConfigMap, kubeProxyConfigMapTemplate, kubeProxyConfiguration, kubeProxyDaemonSet, kubeProxyDaemonSetTemplate, kubeProxyRbac, kubeProxyServiceAccount, proxyEnvVars,
} from '../../../../src/phases/addons/kube-proxy-render.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { findObject, firstContainer as container, fixtureText, kubeadmObjects, normalize } from '../../../helpers/kubeadm-fixtures.js';

const v120 = VERSION_TABLE['1.20'];
const fixture = kubeadmObjects('kubeadm-1.20-addon-objects.yaml');

describe('kube-proxy objects equal kubeadm v1.20.2\'s', () => {
  const server = 'https://cp.example.com:6443';
  const base = { user: {}, podSubnet: '10.244.0.0/16', advertiseAddress: '192.168.10.11', featureGates: {}, versions: v120 };

  test('ServiceAccount, DaemonSet and RBAC', () => {
    expect(normalize(kubeProxyServiceAccount())).toEqual(normalize(findObject(fixture, 'ServiceAccount', 'kube-proxy')));
    const ds = kubeProxyDaemonSet('k8s.gcr.io/kube-proxy:v1.20.2', []);
    const theirs = normalize(findObject(fixture, 'DaemonSet', 'kube-proxy')) as { spec: { template: { spec: { containers: [{ resources?: unknown }] } } } };
    delete theirs.spec.template.spec.containers[0].resources; // Go's empty struct, not sent by tsadm
    expect(normalize(ds)).toEqual(theirs);
    expect(kubeProxyRbac().map(normalize)).toEqual(['ClusterRoleBinding/kubeadm:node-proxier', 'Role/kube-proxy', 'RoleBinding/kube-proxy'].map((k) => {
      const [kind, name] = k.split('/') as [string, string];
      return normalize(findObject(fixture, kind, name));
    }));
  });

  test('ConfigMap: kubeconfig.conf and config.conf byte-identical (the whole KubeProxyConfiguration); hash over both', () => {
    const { config } = kubeProxyConfiguration(base);
    const cm = kubeProxyConfigMap(config, server, true);
    const theirs = findObject(fixture, 'ConfigMap', 'kube-proxy') as KubeObject & { readonly data: Readonly<Record<string, string>>; readonly metadata: { readonly annotations: Readonly<Record<string, string>> } };
    expect(cm.data?.['kubeconfig.conf']).toBe(theirs.data['kubeconfig.conf']);
    expect(cm.data?.['config.conf']).toBe(theirs.data['config.conf']);
    expect(cm.metadata.labels).toEqual({ app: 'kube-proxy' });
    expect(cm.metadata.annotations?.['kubeadm.kubernetes.io/component-config.hash']).toBe(configMapHash(cm.data ?? {}));
    // Same algorithm, kubeadm's own data → kubeadm's own hash.
    expect(configMapHash(theirs.data)).toBe(theirs.metadata.annotations['kubeadm.kubernetes.io/component-config.hash']);
    expect(kubeProxyConfigMap(config, server, false).metadata.annotations).toBeUndefined();
  });

  test('user KubeProxyConfiguration merged over kubeadm\'s defaults; overrides warned about', () => {
    const r = kubeProxyConfiguration({ ...base, user: { apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', conntrack: { maxPerCore: 0 }, mode: 'ipvs', bindAddress: '10.0.0.1' } });
    expect(r.config).toMatchObject({
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration',
      conntrack: { maxPerCore: 0, min: null }, mode: 'ipvs', bindAddress: '10.0.0.1', clusterCIDR: '10.244.0.0/16', clientConnection: { kubeconfig: '/var/lib/kube-proxy/kubeconfig.conf', qps: 0 },
    });
    expect(r.warnings).toEqual(['The recommended value for "bindAddress" in "KubeProxyConfiguration" is: 0.0.0.0; the provided value is: 10.0.0.1']);
  });

  test('1.37 (kubeadm PR #139777): an empty or absent mode becomes "iptables"; a mode the user chose is kept; before 1.37 none is set', () => {
    const at = (minor: '1.36' | '1.37', user: Record<string, unknown>) => kubeProxyConfiguration({ ...base, user, versions: VERSION_TABLE[minor] });
    expect(at('1.37', {}).config.mode).toBe('iptables');
    expect(at('1.37', { mode: '' }).config.mode).toBe('iptables');
    expect(at('1.37', { mode: 'nftables' }).config.mode).toBe('nftables');
    expect(at('1.37', { mode: 'ipvs' }).config.mode).toBe('ipvs');
    expect(at('1.37', {}).warnings).toEqual([]);
    expect(at('1.36', {}).config.mode).toBe('');
    expect(at('1.36', { mode: '' }).config.mode).toBe('');
    const cm = kubeProxyConfigMap(at('1.37', {}).config, server, true);
    expect((cm.data?.['config.conf'] ?? '').split('\n')).toContain('mode: iptables');
  });

  test('IPv6 advertise address → bindAddress ::; no pod subnet → no clusterCIDR; IPv6DualStack forwarded while it is a gate', () => {
    const r = kubeProxyConfiguration({ ...base, podSubnet: '', advertiseAddress: 'fd00::1', featureGates: { IPv6DualStack: true } });
    expect(r.config).toMatchObject({ bindAddress: '::', featureGates: { IPv6DualStack: true } });
    expect(r.config.clusterCIDR).toBe('');
    expect(kubeProxyConfiguration({ ...base, featureGates: { IPv6DualStack: true }, versions: VERSION_TABLE['1.23'] }).config).not.toHaveProperty('featureGates');
  });

  test('proxy variables of the environment reach the DaemonSet, in order', () => {
    const env = proxyEnvVars({ HTTPS_PROXY: 'http://p:3128', PATH: '/bin', no_proxy: '10.0.0.0/8', FTP_PROXY: '' });
    expect(env).toEqual([{ name: 'HTTPS_PROXY', value: 'http://p:3128' }, { name: 'no_proxy', value: '10.0.0.0/8' }]);
    expect(container(kubeProxyDaemonSet('img', env)).env.map((e) => e.name)).toEqual(['NODE_NAME', 'HTTPS_PROXY', 'no_proxy']);
  });

  test('--print-manifest templates (KubeProxyConfigMap19, KubeProxyDaemonSet19): kubeadm\'s layout, the same objects as applied, unsigned and without proxy variables', () => {
    const { config } = kubeProxyConfiguration(base);
    const cmText = kubeProxyConfigMapTemplate(config, server);
    // The template's own layout: a leading newline, kind before apiVersion, kubeconfig.conf first,
    // the configuration indented by four spaces with a newline after every line, then the template's.
    expect(cmText.startsWith('\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: kube-proxy\n')).toBe(true);
    expect(cmText.indexOf('  kubeconfig.conf: |-\n    apiVersion: v1\n')).toBeLessThan(cmText.indexOf('  config.conf: |-\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n'));
    expect(cmText.endsWith('\n      sourceVip: ""\n\n')).toBe(true);
    expect(normalize(yaml.load(cmText))).toEqual(normalize(kubeProxyConfigMap(config, server, false)));
    const dsText = kubeProxyDaemonSetTemplate('registry.k8s.io/kube-proxy:v1.36.0');
    expect(dsText.startsWith('\napiVersion: apps/v1\nkind: DaemonSet\n')).toBe(true);
    expect(dsText).toContain('\n        env:\n          - name: NODE_NAME\n');
    const parsed = yaml.load(dsText) as { spec: { template: { spec: { containers: [{ volumeMounts: Array<{ readOnly?: boolean }> }] } } } };
    // `readOnly: false` is in the template text; Go's decoder drops it (omitempty) from the created object.
    for (const m of parsed.spec.template.spec.containers[0].volumeMounts) if (m.readOnly === false) delete m.readOnly;
    expect(normalize(parsed)).toEqual(normalize(kubeProxyDaemonSet('registry.k8s.io/kube-proxy:v1.36.0', [])));
  });

  test('fixture sanity: kubeadm\'s config.conf is what its Go serializer wrote', () => {
    expect(fixtureText('kubeadm-1.20-addon-objects.yaml')).toContain('udpIdleTimeout: 0s');
  });
});
