import { jest } from '@jest/globals';
import { createCsr, parseCsrPem } from '../../../src/pki/csr.js';
import { generateKeyPair } from '../../../src/pki/keys.js';
import { openssl, tempFile } from '../../helpers/pki-test-utils.js';

// RSA keys come from OpenSSL's generator, which takes seconds on a busy 2-core machine.
jest.setTimeout(60_000);

describe('createCsr', () => {
  test.each(['RSA-2048', 'ECDSA-P256'] as const)('%s CSR verifies and carries subject and SANs', async (alg) => {
    const keys = await generateKeyPair(alg);
    const csr = createCsr({ subject: { commonName: 'kube-apiserver', organization: ['o1'] }, dnsNames: ['cp1', 'kubernetes'], ipAddresses: ['10.96.0.1', '::1'] }, keys.privateKey);
    expect(csr.pem.startsWith('-----BEGIN CERTIFICATE REQUEST-----\n')).toBe(true);
    const file = tempFile('apiserver.csr', csr.pem);
    const text = openssl(['req', '-in', file, '-noout', '-text', '-verify']);
    expect(text).toContain('Subject: O = o1, CN = kube-apiserver');
    expect(text).toMatch(/DNS:cp1, DNS:kubernetes, IP Address:10.96.0.1, IP Address:0:0:0:0:0:0:0:1/);
    expect(parseCsrPem(csr.pem).subject.commonName).toBe('kube-apiserver');
  });

  test('without SANs the attribute set is empty (as Go writes it)', async () => {
    const keys = await generateKeyPair('ECDSA-P256');
    const csr = createCsr({ subject: { commonName: 'front-proxy-client', organization: [] }, dnsNames: [], ipAddresses: [] }, keys.privateKey);
    expect(openssl(['req', '-in', tempFile('x.csr', csr.pem), '-noout', '-verify', '-text'])).toContain('Attributes:');
  });
});
