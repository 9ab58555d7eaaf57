import { clusterDnsIp, kubeProxyDefaults } from '../../../src/config/component-defaults.js';
import { kubeProxyConfiguration } from '../../../src/phases/addons/kube-proxy-render.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

describe('clusterDnsIp: kubeadm GetDNSIP (10th address of the first service subnet)', () => {
  test.each([
    ['10.96.0.0/12', '10.96.0.10'],
    ['fd00::/108,10.96.0.0/12', 'fd00::a'],
    // A mapped subnet is an IPv4 network to Go (IPNet.Contains uses To4): its 10th address prints dotted.
    ['::ffff:10.96.0.0/108', '10.96.0.10'],
    // Too small for a 10th address: Go's GetIndexedIP fails instead of leaving the subnet.
    ['192.168.0.0/29', undefined],
    ['10.96.0.0/33', undefined],
    ['', undefined],
  ])('%j → %s', (subnet, ip) => {
    expect(clusterDnsIp(subnet)).toBe(ip);
  });
});

describe('kubeProxyDefaults (config print init-defaults --component-configs KubeProxyConfiguration)', () => {
  const cluster = fixtureInitConfig().cluster;
  test('1.37 prints mode: iptables, the value kubeadm 1.37 sets when the mode is empty (PR #139777); 1.36 prints the empty mode', () => {
    expect(kubeProxyDefaults(cluster, VERSION_TABLE['1.37'])).toMatchObject({ kind: 'KubeProxyConfiguration', mode: 'iptables' });
    expect(kubeProxyDefaults(cluster, VERSION_TABLE['1.36']).mode).toBe('');
    expect(kubeProxyDefaults(cluster, VERSION_TABLE['1.20']).mode).toBe('');
  });

  test('the whole KubeProxyConfiguration, as kubeadm marshals it: every field of the minor\'s types', () => {
    expect(kubeProxyDefaults(cluster, VERSION_TABLE['1.36'])).toMatchObject({ nftables: { masqueradeBit: null }, conntrack: { udpTimeout: '0s' }, logging: { verbosity: 0 } });
    expect(kubeProxyDefaults(cluster, VERSION_TABLE['1.20'])).toMatchObject({ udpIdleTimeout: '0s', clientConnection: { qps: 0 } });
  });

  test('the printed default and the one the addon phase writes agree at every minor', () => {
    for (const minor of ['1.20', '1.34', '1.35', '1.36', '1.37'] as const) {
      const addon = kubeProxyConfiguration({ user: {}, podSubnet: cluster.networking.podSubnet, advertiseAddress: '192.168.10.11', featureGates: {}, versions: VERSION_TABLE[minor] }).config;
      expect(kubeProxyDefaults(cluster, VERSION_TABLE[minor])).toEqual(addon);
    }
  });
});
