import { apiEndpointURL, controlPlaneEndpointURL, localAPIEndpointURL, parseHostPort, resolveControlPlaneEndpoint } from '../../../src/config/endpoint.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

const cfg = (controlPlaneEndpoint: string, advertiseAddress = '10.0.0.5', bindPort = 6443) =>
  fixtureInitConfig({ cluster: { controlPlaneEndpoint }, init: { localAPIEndpoint: { advertiseAddress, bindPort } } });

describe('API server URLs (kubeadm util/endpoint.go)', () => {
  test.each([
    ['', '10.0.0.5', 6443, 'https://10.0.0.5:6443'],
    ['', 'fd00::5', 6443, 'https://[fd00::5]:6443'],
    ['', 'FD00:0::5', 6443, 'https://[fd00::5]:6443'],
    ['cp.example.com', '10.0.0.5', 6443, 'https://cp.example.com:6443'],
    ['cp.example.com', '10.0.0.5', 7443, 'https://cp.example.com:7443'],
    ['192.168.0.100:6443', '10.0.0.5', 6443, 'https://192.168.0.100:6443'],
    ['[fd00::100]:6443', '10.0.0.5', 6443, 'https://[fd00::100]:6443'],
    ['fd00::100', '10.0.0.5', 6443, 'https://[fd00::100]:6443'],
  ])('controlPlaneEndpoint %j, advertise %s:%i → %s', (cpe, addr, port, url) => {
    expect(controlPlaneEndpointURL(cfg(cpe, addr, port))).toBe(url);
    expect(resolveControlPlaneEndpoint(cfg(cpe, addr, port)).warning).toBeUndefined();
  });

  test('a different explicit port wins, with kubeadm\'s warning', () => {
    expect(resolveControlPlaneEndpoint(cfg('cp.example.com:8443'))).toEqual({
      url: 'https://cp.example.com:8443',
      warning: 'port specified in controlPlaneEndpoint overrides bindPort in the controlplane address',
    });
  });

  test('local endpoint ignores controlPlaneEndpoint', () => {
    expect(localAPIEndpointURL(cfg('cp.example.com:8443', 'fd00::5', 6443))).toBe('https://[fd00::5]:6443');
    expect(apiEndpointURL({ advertiseAddress: '192.168.1.2', bindPort: 443 })).toBe('https://192.168.1.2:443');
  });

  test.each([
    ['cp.example.com:0', /port 0 must be a valid number between 1 and 65535/],
    ['cp.example.com:x', /port x must be a valid number/],
    ['under_score.example.com', /host 'under_score.example.com' must be a valid IP address or a valid RFC-1123 DNS subdomain/],
    ['[fd00::1]', /host '\[fd00::1\]'/],
  ])('rejects %s', (hp, re) => {
    expect(() => parseHostPort(hp)).toThrow(re);
  });

  test('invalid advertise address', () => {
    expect(() => localAPIEndpointURL(cfg('', 'node1'))).toThrow('invalid value `node1` given for api.advertiseAddress');
  });
});
