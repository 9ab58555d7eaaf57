/**
 * ML-DSA certificates (kubeadm 1.38, PR #142037: encryptionAlgorithm ML-DSA-44/65/87) and the
 * keyEncipherment rule that came with it (only RSA keys carry it). Oracles: OpenSSL 3.5 inside
 * Node 24 (X509Certificate.verify and checkIssued run OpenSSL's X509_verify on the DER tsadm
 * wrote with its own ASN.1 writer), and the system openssl (3.0, which parses the certificate and
 * its extensions but knows ML-DSA only by OID: RFC 9881's id-ml-dsa-44/65/87 = 2.16.840.1.101.3.4.3.17/18/19).
 */
import { createPublicKey, sign, verify } from 'node:crypto';
import { encodePrivateKeyPem, generateKeyPair, keyAlgorithmOf, parsePrivateKeyPem, type KeyAlgorithm } from '../../../src/pki/keys.js';
import { signCertificate } from '../../../src/pki/sign.js';
import { caTemplate, leafTemplate, makeChain } from '../../helpers/cert-chain.js';
import { openssl, opensslText, tempFile } from '../../helpers/pki-test-utils.js';

const OIDS: Record<string, string> = { 'ML-DSA-44': '2.16.840.1.101.3.4.3.17', 'ML-DSA-65': '2.16.840.1.101.3.4.3.18', 'ML-DSA-87': '2.16.840.1.101.3.4.3.19' };

describe('ML-DSA keys and certificates', () => {
  test.each(['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'] as const)('%s: the CA and the leaf verify under OpenSSL 3.5; RFC 9881 algorithm identifiers; no keyEncipherment', async (alg) => {
    const { ca, cert, caKeys, leafKeys } = await makeChain(alg);
    expect(keyAlgorithmOf(leafKeys.privateKey)).toBe(alg);
    // OpenSSL's X509_verify on tsadm's bytes: the self-signed CA, then the leaf under the CA's key.
    expect(ca.x509.verify(caKeys.publicKey)).toBe(true);
    expect(cert.x509.verify(caKeys.publicKey)).toBe(true);
    expect(cert.x509.checkIssued(ca.x509)).toBe(true);
    expect(cert.x509.verify(leafKeys.publicKey)).toBe(false);
    for (const c of [ca, cert]) {
      const file = tempFile('c.crt', c.pem);
      const text = opensslText(file);
      // Signature algorithm (twice) and key algorithm are the one OID, with absent parameters.
      expect(text.split(`Signature Algorithm: ${OIDS[alg]}`)).toHaveLength(3);
      expect(text).toContain(`Public Key Algorithm: ${OIDS[alg]}`);
      expect(openssl(['asn1parse', '-in', file])).not.toContain('NULL');
      expect(text).not.toContain('Key Encipherment');
    }
    expect(opensslText(tempFile('ca.crt', ca.pem))).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Certificate Sign\n/);
    expect(opensslText(tempFile('leaf.crt', cert.pem))).toMatch(/X509v3 Key Usage: critical\s+Digital Signature\n/);
  }, 60_000);

  test('the private key is written as PKCS#8 and read back (the same key: its signatures verify under the certificate\'s key)', async () => {
    const { cert, leafKeys } = await makeChain('ML-DSA-65');
    const pem = encodePrivateKeyPem(leafKeys.privateKey);
    expect(pem.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
    // openssl 3.0 reads the PKCS#8 envelope and names the algorithm by OID.
    expect(openssl(['asn1parse', '-in', tempFile('k.key', pem)])).toContain(':2.16.840.1.101.3.4.3.18');
    const back = parsePrivateKeyPem(pem, 'k.key');
    expect(back.asymmetricKeyType).toBe('ml-dsa-65');
    const msg = Buffer.from('probe');
    expect(verify(null, msg, cert.publicKey, sign(null, msg, back))).toBe(true);
    expect(createPublicKey(back).export({ type: 'spki', format: 'der' }).equals(leafKeys.publicKey.export({ type: 'spki', format: 'der' }))).toBe(true);
  });

  test('a damaged ML-DSA key file (seed and expanded key disagree) is refused naming the file', async () => {
    const { privateKey } = await generateKeyPair('ML-DSA-44');
    const der = privateKey.export({ type: 'pkcs8', format: 'der' });
    for (const offset of [40, der.length - 5]) {
      const bad = Buffer.from(der);
      bad[offset] = (bad[offset] ?? 0) ^ 1;
      const pem = `-----BEGIN PRIVATE KEY-----\n${bad.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END PRIVATE KEY-----\n`;
      expect(() => parsePrivateKeyPem(pem, '/etc/kubernetes/pki/ca.key')).toThrow(/^\/etc\/kubernetes\/pki\/ca\.key: /);
    }
  });

  test('an ML-DSA CA signs an ECDSA leaf, and an RSA CA an ML-DSA leaf', async () => {
    const mldsa = await generateKeyPair('ML-DSA-44');
    const ec = await generateKeyPair('ECDSA-P256');
    const rsa = await generateKeyPair('RSA-2048');
    const mlCa = signCertificate(caTemplate(), mldsa.publicKey, { privateKey: mldsa.privateKey });
    const ecLeaf = signCertificate(leafTemplate, ec.publicKey, { privateKey: mldsa.privateKey, certificate: mlCa });
    expect(ecLeaf.x509.verify(mldsa.publicKey)).toBe(true);
    const rsaCa = signCertificate(caTemplate(), rsa.publicKey, { privateKey: rsa.privateKey });
    const mlLeaf = signCertificate(leafTemplate, mldsa.publicKey, { privateKey: rsa.privateKey, certificate: rsaCa });
    expect(mlLeaf.x509.verify(rsa.publicKey)).toBe(true);
    expect(opensslText(tempFile('l.crt', mlLeaf.pem))).toContain('Signature Algorithm: sha256WithRSAEncryption');
  }, 60_000);
});

describe('keyEnciphermentRsaOnly (kubeadm 1.38, PR #142037: keyEncipherment only for RSA keys)', () => {
  test.each<[KeyAlgorithm, boolean, string, string]>([
    // Before 1.38 every certificate carries it (kubeadm's pkiutil NewSignedCert, NewSelfSignedCACert).
    ['ECDSA-P256', false, 'Digital Signature, Key Encipherment, Certificate Sign', 'Digital Signature, Key Encipherment'],
    ['ECDSA-P256', true, 'Digital Signature, Certificate Sign', 'Digital Signature'],
    ['RSA-2048', true, 'Digital Signature, Key Encipherment, Certificate Sign', 'Digital Signature, Key Encipherment'],
  ])('%s with the rule %s: CA "%s", leaf "%s"', async (alg, rule, caUsage, leafUsage) => {
    const caKeys = await generateKeyPair(alg);
    const ca = signCertificate({ ...caTemplate(), keyEnciphermentRsaOnly: rule }, caKeys.publicKey, { privateKey: caKeys.privateKey });
    const leafKeys = await generateKeyPair(alg);
    const leaf = signCertificate({ ...leafTemplate, keyEnciphermentRsaOnly: rule }, leafKeys.publicKey, { privateKey: caKeys.privateKey, certificate: ca });
    expect(opensslText(tempFile('ca.crt', ca.pem))).toMatch(new RegExp(`X509v3 Key Usage: critical\\s+${caUsage}\\n`));
    expect(opensslText(tempFile('leaf.crt', leaf.pem))).toMatch(new RegExp(`X509v3 Key Usage: critical\\s+${leafUsage}\\n`));
  }, 60_000);
});
