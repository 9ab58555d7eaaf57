/**
 * Whether an existing leaf certificate can be reused (pure): kubeadm's rules (signed by the
 * expected CA, valid for every wanted SAN) plus the ones that make reuse safe: key pair match,
 * validity period, subject and extended key usages.
 */
import type { KeyObject } from 'node:crypto';
import { certificateCovers, keyMatchesCertificate, signedByProblem, validityProblem } from '../pki/verify.js';
import type { Certificate } from '../pki/certificate.js';
import type { CertConfig } from './cert-table.js';

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().every((v, i) => v === [...b].sort()[i]);

export function leafProblems(cert: Certificate, key: KeyObject | undefined, want: CertConfig, ca: Certificate, now: Date, caFile: string): string[] {
  const problems: string[] = [];
  if (key && !keyMatchesCertificate(cert, key)) problems.push('the private key does not match the certificate');
  const signed = signedByProblem(cert, ca);
  if (signed) problems.push(`${signed} (${caFile})`);
  const validity = validityProblem(cert, now);
  if (validity) problems.push(validity);
  if (cert.subject.commonName !== want.subject.commonName) {
    problems.push(`subject CN is "${cert.subject.commonName ?? ''}", want "${want.subject.commonName}"`);
  }
  if (!sameSet(cert.subject.organization, want.subject.organization)) {
    problems.push(`subject O is [${cert.subject.organization.join(' ')}], want [${want.subject.organization.join(' ')}]`);
  }
  const missingUsages = want.usages.filter((u) => !cert.extKeyUsage.includes(u));
  if (missingUsages.length > 0) problems.push(`missing extended key usage ${missingUsages.join(', ')}`);
  const missing = [
    ...want.altNames.dnsNames.filter((d) => !certificateCovers(cert, d)).map((d) => `DNS:${d}`),
    ...want.altNames.ipAddresses.filter((ip) => !certificateCovers(cert, ip)).map((ip) => `IP:${ip}`),
  ];
  if (missing.length > 0) problems.push(`missing SAN ${missing.join(', ')}`);
  return problems;
}
