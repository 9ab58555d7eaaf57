import { clusterDnsIp } from '../../../src/config/component-defaults.js';

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
