/**
 * The certificate a renewal issues, pure: the existing certificate's subject (byte for byte),
 * SANs (in their order), extended key usages and BasicConstraints presence, a fresh serial and a
 * new validity period computed as the certs phase computes it, capped at the CA's own expiry.
 */
import type { ClusterConfiguration } from '../config/types.js';
import { leafValidity } from '../certs/validity.js';
import { randomSerial } from '../pki/serial.js';
import type { Certificate } from '../pki/certificate.js';
import type { CertificateTemplate } from '../pki/sign.js';
import type { ExtKeyUsage } from '../pki/oids.js';
import type { VersionProfile } from '../versions/table-types.js';

export interface RenewalTemplate {
  readonly template: CertificateTemplate;
  /** Things the renewed certificate cannot carry over, as warning lines. */
  readonly warnings: readonly string[];
}

const KNOWN_EKU: ReadonlySet<string> = new Set<ExtKeyUsage>(['serverAuth', 'clientAuth']);

export function renewalTemplate(
  old: Certificate,
  ca: Certificate,
  i: { startTime: Date; versions: Pick<VersionProfile, 'pki'>; cluster: Pick<ClusterConfiguration, 'certificateValidityMs' | 'caCertificateValidityMs'> },
  serial: bigint = randomSerial(),
): RenewalTemplate {
  const warnings: string[] = [];
  const dropped = old.extKeyUsage.filter((u) => !KNOWN_EKU.has(u));
  if (dropped.length > 0) warnings.push(`extended key usages ${dropped.join(', ')} are not carried over`);
  let { notBefore, notAfter } = leafValidity(i, ca);
  if (notAfter.getTime() > ca.notAfter.getTime()) {
    warnings.push(`the CA expires on ${ca.notAfter.toISOString()}; the renewed certificate cannot outlive it and expires then too`);
    notAfter = ca.notAfter;
  }
  if (notBefore.getTime() < ca.notBefore.getTime()) notBefore = ca.notBefore;
  return {
    template: {
      subject: { commonName: old.subject.commonName ?? '', organization: old.subject.organization },
      rawSubject: old.rawSubject,
      serial,
      notBefore,
      notAfter,
      isCA: false,
      leafBasicConstraints: old.basicConstraintsPresent,
      // The key usage is the renewing kubeadm's, as its renewal issues through the certs phase's
      // NewSignedCert: from 1.38 keyEncipherment only for RSA keys (PR #142037).
      keyEnciphermentRsaOnly: i.versions.pki.keyEnciphermentRsaOnly,
      extKeyUsage: old.extKeyUsage.filter((u): u is ExtKeyUsage => KNOWN_EKU.has(u)),
      dnsNames: old.dnsNames,
      ipAddresses: old.ipAddresses,
    },
    warnings,
  };
}
