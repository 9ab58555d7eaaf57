import { X509Certificate } from 'node:crypto';
import { encodePrivateKeyPem, generateKeyPair, type KeyAlgorithm } from '../../../src/pki/keys.js';
import { parseCertificatePem } from '../../../src/pki/certificate.js';
import { signCertificate } from '../../../src/pki/sign.js';
import { openssl, opensslText, sanLine, subjectOf, tempFile, verifyWith } from '../../helpers/pki-test-utils.js';
import { caTemplate, leafTemplate, makeChain } from '../../helpers/cert-chain.js';

describe('signCertificate', () => {
  test.each<[KeyAlgorithm, string]>([
    ['RSA-2048', 'sha256WithRSAEncryption'],
    ['RSA-3072', 'sha256WithRSAEncryption'],
    ['ECDSA-P256', 'ecdsa-with-SHA256'],
    ['ECDSA-P384', 'ecdsa-with-SHA384'],
  ])('%s: openssl verifies the chain; signature %s', async (alg, sigName) => {
    const { ca, cert, leafKeys } = await makeChain(alg);
    const caFile = tempFile('ca.crt', ca.pem);
    const leafFile = tempFile('leaf.crt', cert.pem);
    expect(verifyWith(caFile, caFile)).toBe(true);
    expect(verifyWith(caFile, leafFile)).toBe(true);
    const text = opensslText(leafFile);
    expect(text).toContain(`Signature Algorithm: ${sigName}`);
    // the key written for it matches (openssl x509 -modulus style check via pkey)
    const pubFromCert = openssl(['x509', '-in', leafFile, '-noout', '-pubkey']);
    const pubFromKey = openssl(['pkey', '-in', tempFile('leaf.key', encodePrivateKeyPem(leafKeys.privateKey)), '-pubout']);
    expect(pubFromCert).toBe(pubFromKey);
    // ECDSA AlgorithmIdentifiers have no NULL parameter; RSA ones do
    const asn1 = openssl(['asn1parse', '-in', leafFile]);
    expect(asn1.includes('NULL')).toBe(alg.startsWith('RSA'));
  }, 60_000); // two RSA-3072 keys from OpenSSL's generator take seconds on a busy machine

  test('CA: v3, serial 0, CN only, KU critical incl. Certificate Sign, CA:TRUE critical, SKID, no AKID', async () => {
    const { ca } = await makeChain('RSA-2048');
    const file = tempFile('ca.crt', ca.pem);
    const text = opensslText(file);
    expect(text).toContain('Version: 3 (0x2)');
    expect(text).toContain('Serial Number: 0 (0x0)');
    expect(subjectOf(file)).toBe('CN=kubernetes');
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment, Certificate Sign/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:TRUE/);
    expect(text).toContain('X509v3 Subject Key Identifier');
    expect(text).not.toContain('Authority Key Identifier');
    expect(ca.subjectKeyId?.length).toBe(20);
    // Go's key id: SHA-1 of the subjectPublicKey bits (openssl's default "hash" method agrees)
    const skid = openssl(['x509', '-in', file, '-noout', '-ext', 'subjectKeyIdentifier']).split('\n')[1]?.trim();
    expect(skid).toBe(ca.subjectKeyId?.toString('hex').toUpperCase().match(/../g)?.join(':'));
  });

  test('leaf: O before CN, KU critical without Certificate Sign, EKU, AKID = CA SKID, SANs in the given order, no basic constraints (1.20)', async () => {
    const { ca, cert } = await makeChain('RSA-2048');
    const file = tempFile('leaf.crt', cert.pem);
    const text = opensslText(file);
    expect(subjectOf(file)).toBe('CN=kube-apiserver-kubelet-client,O=system:masters'); // RFC 2253 prints in reverse
    expect(text).toContain('Subject: O = system:masters, CN = kube-apiserver-kubelet-client');
    expect(text).toContain('Issuer: CN = kubernetes');
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment\n/);
    expect(text).toMatch(/X509v3 Extended Key Usage: \s+TLS Web Server Authentication, TLS Web Client Authentication/);
    expect(text).not.toContain('Basic Constraints');
    expect(cert.authorityKeyId?.equals(ca.subjectKeyId as Buffer)).toBe(true);
    expect(sanLine(file)).toBe('DNS:*.wild.example.com, DNS:cp1, DNS:kubernetes, IP Address:10.96.0.1, IP Address:10.0.0.5, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:0:10');
    expect(text).toContain('Serial Number: 5099835471120366210 (0x46c641574510fa82)');
    // extension order as Go writes it
    const order = [...text.matchAll(/X509v3 ([A-Za-z ]+?):/g)].map((m) => m[1]).filter((n) => n !== 'extensions');
    expect(order).toEqual(['Key Usage', 'Extended Key Usage', 'Authority Key Identifier', 'Subject Alternative Name']);
  });

  test('modern leaves carry CA:FALSE (critical)', async () => {
    const { cert } = await makeChain('ECDSA-P256', { leafBasicConstraints: true });
    expect(opensslText(tempFile('leaf.crt', cert.pem))).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(cert.basicConstraintsPresent).toBe(true);
    expect(cert.isCA).toBe(false);
  });

  test('validity is whole seconds; UTCTime before 2050, GeneralizedTime after', async () => {
    const keys = await generateKeyPair('ECDSA-P256');
    const cert = signCertificate({ ...caTemplate(), notAfter: new Date('2126-03-01T10:00:00Z') }, keys.publicKey, { privateKey: keys.privateKey });
    expect(cert.notBefore.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(cert.notAfter.toISOString()).toBe('2126-03-01T10:00:00.000Z');
    const asn1 = openssl(['asn1parse', '-in', tempFile('c.crt', cert.pem)]);
    expect(asn1).toContain('UTCTIME           :260301100000Z');
    expect(asn1).toContain('GENERALIZEDTIME   :21260301100000Z');
    expect(new X509Certificate(cert.der).validTo).toMatch(/2126/);
  });

  test('non-printable subjects are UTF8String, printable ones PrintableString (as Go)', async () => {
    const keys = await generateKeyPair('ECDSA-P256');
    const cert = signCertificate({ ...caTemplate('Ünïcode CA *') }, keys.publicKey, { privateKey: keys.privateKey });
    expect(cert.subject.commonName).toBe('Ünïcode CA *');
    const asn1 = openssl(['asn1parse', '-in', tempFile('c.crt', cert.pem)]);
    expect(asn1).toContain('UTF8STRING');
  });

  test('a leaf issued by a CA with an unusual subject encoding copies the issuer name verbatim', async () => {
    const caKey = openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']);
    const caKeyFile = tempFile('ca.key', caKey);
    const caPem = openssl(['req', '-x509', '-new', '-key', caKeyFile, '-subj', '/C=DE/O=Example Corp/CN=Example Root', '-days', '2', '-utf8']);
    const ca = parseCertificatePem(caPem);
    const { parsePrivateKeyPem } = await import('../../../src/pki/keys.js');
    const leafKeys = await generateKeyPair('ECDSA-P256');
    const leaf = signCertificate(leafTemplate, leafKeys.publicKey, { privateKey: parsePrivateKeyPem(caKey, 'ca.key'), certificate: ca });
    expect(leaf.rawIssuer.equals(ca.rawSubject)).toBe(true);
    expect(verifyWith(tempFile('ca.crt', caPem), tempFile('leaf.crt', leaf.pem))).toBe(true);
  });
});
