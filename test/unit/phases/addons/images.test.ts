import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import type { ClusterConfiguration } from '../../../../src/config/types.js';
import { clusterDnsIp } from '../../../../src/config/component-defaults.js';
import { corednsImage, kubeProxyImage } from '../../../../src/phases/addons/images.js';
import type { SupportedMinor } from '../../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';

const v120 = VERSION_TABLE['1.20'];

describe('images', () => {
  const cfg = (over: Partial<ClusterConfiguration> = {}) => fixtureInitConfig({ cluster: over }).cluster;
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
