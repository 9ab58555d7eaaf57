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

describe('createCsr with an ML-DSA key (encryptionAlgorithm ML-DSA-*, kubeadm 1.38 PR #142037)', () => {
  test('tsadm\'s own request is written and read back (id-ml-dsa-65 as key and signature algorithm); a request from others with such a key is still refused', async () => {
    const keys = await generateKeyPair('ML-DSA-65');
    const csr = createCsr({ subject: { commonName: 'kube-apiserver', organization: [] }, dnsNames: ['cp1'], ipAddresses: ['10.96.0.1'] }, keys.privateKey);
    expect(csr.keyAlgorithm).toBe('ML-DSA-65');
    expect(csr.requested.dnsNames).toEqual(['cp1']);
    // openssl 3.0 parses the structure and names the algorithm by OID only: once in the key, once as the signature algorithm.
    const asn1 = openssl(['asn1parse', '-in', tempFile('ml.csr', csr.pem)]);
    expect(asn1.split(':2.16.840.1.101.3.4.3.18')).toHaveLength(3);
    expect(asn1).toContain(':commonName');
    // The approver's reader (parseCsrPem) has no ML-DSA allowance: kube-apiserver gates such requests (CertificateSigningRequestMLDSA, PR #142196).
    expect(() => parseCsrPem(csr.pem)).toThrow('a ml-dsa-65 key (tsadm accepts RSA, ECDSA and Ed25519)');
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
