import { parseCertificatePem } from './certificate.js';
import { spkiSha256 } from './keys.js';

/**
 * kubeadm's --discovery-token-ca-cert-hash for a CA certificate (first PEM block):
 * "sha256:" + hex SHA-256 of its DER SubjectPublicKeyInfo.
 */
export function caCertHash(caPem: string | Uint8Array): string {
  return spkiSha256(parseCertificatePem(caPem, 'CA certificate').spki);
}
