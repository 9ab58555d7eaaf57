import { indexedIP, normalizeIP } from '../../../src/pki/ip.js';
import { isDNS1123Subdomain, isWildcardDNS1123Subdomain } from '../../../src/pki/hostnames.js';

describe('IP handling as Go net.ParseIP / String', () => {
  test.each([
    ['10.0.0.5', '10.0.0.5'],
    ['::1', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['FD00::10', 'fd00::10'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
  ])('%s → %s', (input, want) => expect(normalizeIP(input)).toBe(want));

  test.each(['127.1', '010.0.0.1', '1.2.3.256', 'fe80::1%eth0', 'cp.example.com', '', '1.2.3.4:80'])('%s is not an IP', (s) => {
    expect(normalizeIP(s)).toBeUndefined();
  });

  test.each([
    ['10.96.0.0/12', '10.96.0.1'],
    ['10.96.5.7/12', '10.96.0.1'],
    ['192.168.0.0/30', '192.168.0.1'],
    ['fd00:10:96::/108', 'fd00:10:96::1'],
    ['10.0.0.0/32', undefined],
    ['nonsense', undefined],
  ])('first IP of %s is %s', (cidr, want) => expect(indexedIP(cidr, 1)).toBe(want));

  test('DNS-1123 validation', () => {
    expect(isDNS1123Subdomain('cp.example.com')).toBe(true);
    expect(isDNS1123Subdomain('Cp.example.com')).toBe(false);
    expect(isDNS1123Subdomain('-a.example.com')).toBe(false);
    expect(isDNS1123Subdomain(`${'a'.repeat(250)}.com`)).toBe(false);
    expect(isWildcardDNS1123Subdomain('*.example.com')).toBe(true);
    expect(isWildcardDNS1123Subdomain('*.*.example.com')).toBe(false);
  });
});
