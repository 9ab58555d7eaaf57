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

describe('parseCsrPem: the requested extensions', () => {
  test('SANs of a CSR made by openssl, other kinds than DNS and IP listed apart', () => {
    const key = tempFile('req.key', openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout']));
    const pem = openssl(['req', '-new', '-key', key, '-subj', '/O=system:nodes/CN=system:node:w1', '-addext', 'subjectAltName=DNS:w1,IP:10.0.0.11,IP:fd00::11,email:a@example.com,URI:spiffe://x/y']);
    const csr = parseCsrPem(pem);
    expect(csr.subject).toMatchObject({ commonName: 'system:node:w1', organization: ['system:nodes'] });
    expect(csr.requested.dnsNames).toEqual(['w1']);
    expect(csr.requested.ipAddresses).toEqual(['10.0.0.11', 'fd00::11']);
    expect(csr.requested.otherNames).toEqual(['email:a@example.com', 'URI:spiffe://x/y']);
  });

  test('a CSR without an extensionRequest asks for no SANs', () => {
    const key = tempFile('req2.key', openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout']));
    const csr = parseCsrPem(openssl(['req', '-new', '-key', key, '-subj', '/CN=plain']));
    expect(csr.requested).toMatchObject({ dnsNames: [], ipAddresses: [], otherNames: [] });
  });
});
