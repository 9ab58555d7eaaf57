import { apiServerAltNames, apiServerServiceIP, etcdAltNames } from '../../../src/certs/alt-names.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import type { ClusterConfiguration, InitConfiguration } from '../../../src/config/types.js';

const cfg = (cluster: Partial<ClusterConfiguration> = {}, init: Partial<InitConfiguration> = {}) => fixtureInitConfig({
  cluster,
  init: { localAPIEndpoint: { advertiseAddress: '10.0.0.5', bindPort: 6443 }, ...init },
});

describe('apiserver SANs (kubeadm GetAPIServerAltNames + RemoveDuplicateAltNames)', () => {
  test('defaults: node name and kubernetes.* sorted; service IP then advertise address', () => {
    expect(apiServerAltNames(cfg())).toEqual({
      dnsNames: ['cp1', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
      ipAddresses: ['10.96.0.1', '10.0.0.5'],
      warnings: [],
    });
  });

  test('observed kubeadm order with a DNS endpoint, wildcard and extra IP SANs', () => {
    const names = apiServerAltNames(cfg({
      controlPlaneEndpoint: 'vm:6443',
      apiServer: { extraArgs: [], extraVolumes: [], extraEnvs: [], timeoutForControlPlaneMs: 0, certSANs: ['foo.example.com', '*.wild.example.com', '10.1.1.1', '10.0.0.5'] },
    }, { nodeRegistration: { ...fixtureInitConfig().init.nodeRegistration, name: 'vm' } }));
    expect(names.dnsNames).toEqual(['*.wild.example.com', 'foo.example.com', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'vm']);
    expect(names.ipAddresses).toEqual(['10.96.0.1', '10.0.0.5', '10.1.1.1']);
  });

  test.each([
    ['cp.example.com', ['cp.example.com'], []],
    ['cp.example.com:8443', ['cp.example.com'], []],
    ['192.168.0.100:6443', [], ['192.168.0.100']],
    ['[fd00::100]:6443', [], ['fd00::100']],
    ['fd00::100', [], ['fd00::100']],
  ])('controlPlaneEndpoint %s adds DNS %j / IP %j (port stripped)', (cpe, dns, ips) => {
    const names = apiServerAltNames(cfg({ controlPlaneEndpoint: cpe }));
    for (const d of dns) expect(names.dnsNames).toContain(d);
    expect(names.ipAddresses.slice(2)).toEqual(ips);
  });

  test('custom DNS domain and service CIDR (dual-stack: first CIDR wins)', () => {
    const names = apiServerAltNames(cfg({ networking: { serviceSubnet: 'fd00:10:96::/112,10.96.0.0/12', podSubnet: '', dnsDomain: 'corp.internal' } }));
    expect(names.dnsNames).toContain('kubernetes.default.svc.corp.internal');
    expect(names.ipAddresses[0]).toBe('fd00:10:96::1');
  });

  test('invalid extra SANs are dropped with kubeadm\'s warning; duplicates removed', () => {
    const names = apiServerAltNames(cfg({
      apiServer: { extraArgs: [], extraVolumes: [], extraEnvs: [], timeoutForControlPlaneMs: 0, certSANs: ['Bad_Name', 'kubernetes', '10.96.0.1', '::ffff:10.0.0.5'] },
    }));
    expect(names.warnings).toEqual(["'Bad_Name' was not added to the 'apiserver' SAN, because it is not a valid IP or RFC-1123 compliant DNS entry"]);
    expect(names.dnsNames.filter((d) => d === 'kubernetes')).toHaveLength(1);
    expect(names.ipAddresses).toEqual(['10.96.0.1', '10.0.0.5']);
  });

  test('a bad advertise address or service CIDR is a config error', () => {
    expect(() => apiServerAltNames(cfg({}, { localAPIEndpoint: { advertiseAddress: 'nope', bindPort: 6443 } }))).toThrow(/AdvertiseAddress nope: is not a valid textual representation of an IP address/);
    expect(() => apiServerServiceIP('10.96.0.0/33')).toThrow(/unable to get first IP address from the given CIDR: 10.96.0.0\/33/);
    expect(() => apiServerAltNames(cfg({ controlPlaneEndpoint: 'cp.example.com:99999' }))).toThrow(/port 99999 must be a valid number/);
  });
});

describe('etcd SANs', () => {
  test('server and peer: node name, localhost; advertise address, 127.0.0.1, ::1; plus their own extra SANs', () => {
    const c = cfg({ etcd: { mode: 'local', imageRepository: '', imageTag: '', dataDir: '/var/lib/etcd', extraArgs: [], extraEnvs: [], serverCertSANs: ['etcd.example.com'], peerCertSANs: ['10.9.9.9'] } });
    expect(etcdAltNames(c, 'server')).toEqual({ dnsNames: ['cp1', 'etcd.example.com', 'localhost'], ipAddresses: ['10.0.0.5', '127.0.0.1', '::1'], warnings: [] });
    expect(etcdAltNames(c, 'peer')).toEqual({ dnsNames: ['cp1', 'localhost'], ipAddresses: ['10.0.0.5', '127.0.0.1', '::1', '10.9.9.9'], warnings: [] });
  });
});
