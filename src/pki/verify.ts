/** Checks on certificates and keys tsadm finds on disk (kubeadm's reuse rules). */
import type { KeyObject } from 'node:crypto';
import type { Certificate } from './certificate.js';
import { canonicalIp } from '../net/ip.js';

/**
 * Why `cert` is not signed by `ca`, or undefined when it is. Like Go's CheckSignatureFrom: the
 * parent must be a CA allowed to sign certificates, and the signature must verify.
 */
export function signedByProblem(cert: Certificate, ca: Certificate): string | undefined {
  if (!ca.isCA) return `${ca.subject.text || 'the issuer'} is not a CA certificate`;
  if (ca.keyUsage && !ca.keyUsage.includes('keyCertSign')) return `${ca.subject.text} may not sign certificates (no keyCertSign usage)`;
  let ok: boolean;
  try {
    ok = cert.x509.verify(ca.publicKey);
  } catch {
    ok = false;
  }
  return ok ? undefined : `not signed by CA "${ca.subject.text}"`;
}

export function isSignedBy(cert: Certificate, ca: Certificate): boolean {
  return signedByProblem(cert, ca) === undefined;
}

/** The private key belongs to the certificate's public key. */
export function keyMatchesCertificate(cert: Certificate, key: KeyObject): boolean {
  try {
    return cert.x509.checkPrivateKey(key);
  } catch {
    return false;
  }
}

/**
 * Whether the certificate is valid for a host name or IP, as Go's Certificate.VerifyHostname:
 * IPs match IP SANs exactly; names match DNS SANs case-insensitively, where a SAN "*.example.com"
 * covers exactly one leftmost label.
 */
export function certificateCovers(cert: Certificate, host: string): boolean {
  const ip = canonicalIp(host.replace(/^\[(.*)\]$/, '$1'));
  if (ip !== undefined) return cert.ipAddresses.includes(ip);
  const want = host.toLowerCase().replace(/\.$/, '');
  return cert.dnsNames.some((san) => matchHostname(san.toLowerCase().replace(/\.$/, ''), want));
}

function matchHostname(pattern: string, host: string): boolean {
  if (pattern === host) return true;
  const p = pattern.split('.');
  const h = host.split('.');
  if (p.length !== h.length || p[0] !== '*') return false;
  return p.slice(1).every((label, i) => label === h[i + 1]);
}

/** Validity at `now`: "expired on …", "not valid before …", or undefined. */
export function validityProblem(cert: Certificate, now: Date): string | undefined {
  if (now.getTime() > cert.notAfter.getTime()) return `expired on ${cert.notAfter.toISOString()}`;
  if (now.getTime() < cert.notBefore.getTime()) return `not valid before ${cert.notBefore.toISOString()}`;
  return undefined;
}
