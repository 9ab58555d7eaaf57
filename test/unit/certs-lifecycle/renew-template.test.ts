/**
 * The renewal template's key usage follows the renewing minor, as kubeadm's renewal issues through
 * the certs phase's NewSignedCert: from 1.38 (kubeadm PR #142037) keyEncipherment only for RSA
 * keys. Oracle: the system openssl's reading of the renewed certificate.
 */
import { renewalTemplate } from '../../../src/certs-lifecycle/renew-template.js';
import { signCertificate } from '../../../src/pki/sign.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { makeChain, NOW, YEAR } from '../../helpers/cert-chain.js';
import { opensslText, tempFile } from '../../helpers/pki-test-utils.js';

describe('renewalTemplate: key usage of the renewing minor', () => {
  test.each([
    ['1.37', 'Digital Signature, Key Encipherment'],
    ['1.38', 'Digital Signature'],
  ] as const)('an ECDSA leaf renewed at %s: %s', async (minor, usage) => {
    const { ca, caKeys, cert, leafKeys } = await makeChain('ECDSA-P256', { keyEnciphermentRsaOnly: false });
    expect(opensslText(tempFile('old.crt', cert.pem))).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment\n/);
    const { template } = renewalTemplate(cert, ca, { startTime: NOW, versions: VERSION_TABLE[minor], cluster: { certificateValidityMs: YEAR, caCertificateValidityMs: 10 * YEAR } });
    const renewed = signCertificate(template, leafKeys.publicKey, { privateKey: caKeys.privateKey, certificate: ca });
    expect(opensslText(tempFile('new.crt', renewed.pem))).toMatch(new RegExp(`X509v3 Key Usage: critical\\s+${usage}\\n`));
  });
});
