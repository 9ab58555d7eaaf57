import { caCertHash } from '../../../src/pki/hash.js';
import { certificateCovers, isSignedBy, keyMatchesCertificate, signedByProblem, validityProblem } from '../../../src/pki/verify.js';
import { parseCertificatePem } from '../../../src/pki/certificate.js';
import { openssl, tempFile } from '../../helpers/pki-test-utils.js';
import { NOW, YEAR, leafTemplate, makeChain } from '../../helpers/cert-chain.js';

describe('reading and checking certificates', () => {
  test('parse round trip of fields', async () => {
    const { cert } = await makeChain('ECDSA-P384');
    const back = parseCertificatePem(cert.pem);
    expect(back.subject).toEqual({ commonName: 'kube-apiserver-kubelet-client', organization: ['system:masters'], text: 'O=system:masters, CN=kube-apiserver-kubelet-client' });
    expect(back.dnsNames).toEqual(leafTemplate.dnsNames);
    expect(back.ipAddresses).toEqual(['10.96.0.1', '10.0.0.5', '::1', 'fd00::10']);
    expect(back.extKeyUsage).toEqual(['serverAuth', 'clientAuth']);
    expect(back.keyUsage).toEqual(['digitalSignature', 'keyEncipherment']);
    expect(back.criticalExtensions).toEqual(['2.5.29.15']);
    expect(back.serial).toBe(leafTemplate.serial);
  });

  test('reads certificates made by openssl (kubeadm-compatible input)', () => {
    const key = tempFile('k.key', openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']));
    const pem = openssl(['req', '-x509', '-new', '-key', key, '-subj', '/O=a/O=b/CN=x', '-days', '1', '-addext', 'subjectAltName=DNS:foo,IP:192.168.1.1,IP:::ffff:10.1.2.3']);
    const c = parseCertificatePem(pem);
    expect(c.subject.organization).toEqual(['a', 'b']);
    expect(c.dnsNames).toEqual(['foo']);
    expect(c.ipAddresses[0]).toBe('192.168.1.1');
    expect(c.isCA).toBe(true);
  });

  test('signedByProblem / isSignedBy / key match', async () => {
    const a = await makeChain('RSA-2048');
    const b = await makeChain('ECDSA-P256');
    expect(isSignedBy(a.cert, a.ca)).toBe(true);
    expect(signedByProblem(a.cert, b.ca)).toBe('not signed by CA "CN=kubernetes"');
    expect(signedByProblem(a.cert, b.cert)).toMatch(/is not a CA certificate/);
    expect(keyMatchesCertificate(a.cert, a.leafKeys.privateKey)).toBe(true);
    expect(keyMatchesCertificate(a.cert, b.leafKeys.privateKey)).toBe(false);
    expect(keyMatchesCertificate(a.cert, a.caKeys.privateKey)).toBe(false);
  });

  test('certificateCovers follows Go VerifyHostname (wildcards cover one label, IPs exact)', async () => {
    const { cert } = await makeChain('ECDSA-P256');
    expect(certificateCovers(cert, 'KUBERNETES')).toBe(true);
    expect(certificateCovers(cert, 'a.wild.example.com')).toBe(true);
    expect(certificateCovers(cert, '*.wild.example.com')).toBe(true);
    expect(certificateCovers(cert, 'a.b.wild.example.com')).toBe(false);
    expect(certificateCovers(cert, 'wild.example.com')).toBe(false);
    expect(certificateCovers(cert, '10.0.0.5')).toBe(true);
    expect(certificateCovers(cert, '0:0::1')).toBe(true);
    expect(certificateCovers(cert, '[fd00::10]')).toBe(true);
    expect(certificateCovers(cert, '10.0.0.6')).toBe(false);
  });

  test('validityProblem', async () => {
    const { cert } = await makeChain('ECDSA-P256');
    expect(validityProblem(cert, new Date(NOW.getTime() + 1000))).toBeUndefined();
    expect(validityProblem(cert, new Date(NOW.getTime() + 2 * YEAR))).toMatch(/^expired on 2027-03-01T10:00:00.000Z/);
    expect(validityProblem(cert, new Date(NOW.getTime() - 3600_000))).toMatch(/^not valid before/);
  });

  test('caCertHash equals the openssl pipeline kubeadm documents', async () => {
    for (const alg of ['RSA-2048', 'ECDSA-P256'] as const) {
      const { ca } = await makeChain(alg);
      const file = tempFile('ca.crt', ca.pem);
      const pub = openssl(['x509', '-pubkey', '-noout', '-in', file]);
      const der = (await import('node:child_process')).spawnSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: pub });
      const hex = (await import('node:crypto')).createHash('sha256').update(der.stdout).digest('hex');
      expect(caCertHash(ca.pem)).toBe(`sha256:${hex}`);
    }
  });

  test('garbage is refused with the file named', () => {
    expect(() => parseCertificatePem('nope', '/x/ca.crt')).toThrow('/x/ca.crt: no PEM certificate found');
    expect(() => parseCertificatePem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', '/x/ca.crt')).toThrow(/\/x\/ca\.crt: not a valid X\.509 certificate/);
  });
});
