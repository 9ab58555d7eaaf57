import { isDNS1123Subdomain, isWildcardDNS1123Subdomain } from '../../../src/pki/hostnames.js';

describe('DNS-1123 names', () => {
  test('DNS-1123 validation', () => {
    expect(isDNS1123Subdomain('cp.example.com')).toBe(true);
    expect(isDNS1123Subdomain('Cp.example.com')).toBe(false);
    expect(isDNS1123Subdomain('-a.example.com')).toBe(false);
    expect(isDNS1123Subdomain(`${'a'.repeat(250)}.com`)).toBe(false);
    expect(isWildcardDNS1123Subdomain('*.example.com')).toBe(true);
    expect(isWildcardDNS1123Subdomain('*.*.example.com')).toBe(false);
  });
});
