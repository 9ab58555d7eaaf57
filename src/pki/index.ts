/** In-memory PKI: keys, certificates, CSRs. No paths, no I/O; phases read and write the files. */
export { encodePem, decodePem, type PemBlock } from './pem.js';
export {
  generateKeyPair, keyAlgorithmOf, describeKey, encodePrivateKeyPem, encodePublicKeyPem, spkiDer, sameKey, spkiSha256,
  parsePrivateKeyPem, parsePublicKeyPem, type KeyAlgorithm, type KeyPair,
} from './keys.js';
export { parseCertificateDer, parseCertificatePem, type Certificate } from './certificate.js';
export { signCertificate, type CertificateTemplate, type SignerInfo } from './sign.js';
export { signedByProblem, isSignedBy, keyMatchesCertificate, certificateSpkiHash, certificateCovers, validityProblem } from './verify.js';
export { createCsr, parseCsrDer, parseCsrPem, type CsrTemplate, type CertificateRequest } from './csr.js';
export { randomSerial } from './serial.js';
export { normalizeIP, isIP, isIPv6, indexedIP } from './ip.js';
export { type DistinguishedName, type ParsedName } from './name.js';
export { type ExtKeyUsage, type KeyUsage } from './oids.js';
export { caCertHash } from './hash.js';
export { isDNS1123Subdomain, isWildcardDNS1123Subdomain } from './hostnames.js';
