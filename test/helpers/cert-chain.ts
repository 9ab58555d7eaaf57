/**
 * Shared by the pki tests: a fixed clock, CA and leaf certificate templates (the leaf has wildcard,
 * DNS and IPv4/IPv6 SANs and both key usages), and a freshly keyed CA → leaf chain signed by tsadm.
 */
import { generateKeyPair, type KeyAlgorithm } from '../../src/pki/keys.js';
import { signCertificate, type CertificateTemplate } from '../../src/pki/sign.js';

export const NOW = new Date('2026-03-01T10:00:00.750Z');
export const YEAR = 365 * 24 * 3600 * 1000;

export const caTemplate = (cn = 'kubernetes', serial = 0n): CertificateTemplate => ({
  subject: { commonName: cn, organization: [] }, serial, notBefore: NOW, notAfter: new Date(NOW.getTime() + 10 * YEAR),
  isCA: true, extKeyUsage: [], dnsNames: [], ipAddresses: [],
});

export const leafTemplate: CertificateTemplate = {
  subject: { commonName: 'kube-apiserver-kubelet-client', organization: ['system:masters'] },
  serial: 0x46c641574510fa82n,
  notBefore: NOW,
  notAfter: new Date(NOW.getTime() + YEAR),
  isCA: false,
  extKeyUsage: ['serverAuth', 'clientAuth'],
  dnsNames: ['*.wild.example.com', 'cp1', 'kubernetes'],
  ipAddresses: ['10.96.0.1', '10.0.0.5', '::1', 'fd00::10'],
};

/** A new CA and a leaf signed by it, both keyed with alg; leaf fields override the leaf template. */
export async function makeChain(alg: KeyAlgorithm, leaf: Partial<CertificateTemplate> = {}) {
  const caKeys = await generateKeyPair(alg);
  const ca = signCertificate(caTemplate(), caKeys.publicKey, { privateKey: caKeys.privateKey });
  const leafKeys = await generateKeyPair(alg);
  const cert = signCertificate({ ...leafTemplate, ...leaf }, leafKeys.publicKey, { privateKey: caKeys.privateKey, certificate: ca });
  return { caKeys, ca, leafKeys, cert };
}
