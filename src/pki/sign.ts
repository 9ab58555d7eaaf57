/**
 * Building and signing certificates the way kubeadm's Go code does (certutil.NewSelfSignedCACert,
 * pkiutil.NewSignedCert). The TBSCertificate is assembled with forge's ASN.1 layer and signed
 * natively: forge's JS RSA signing costs ~38 ms per certificate, and its TBS builder only knows
 * RSA keys and always writes NULL signature parameters (wrong for ECDSA).
 */
import { sign as nodeSign, type KeyObject } from 'node:crypto';
import { TsadmError } from '../errors.js';
import { bitString, encodeDer, integer, nullValue, oid, parseDer, seq, tagged, time, type Asn1 } from './asn1.js';
import { parseCertificateDer, type Certificate } from './certificate.js';
import {
  authorityKeyIdExtension, basicConstraintsExtension, encodeExtension, extKeyUsageExtension, keyIdentifier,
  keyUsageExtension, subjectAltNameExtension, subjectKeyIdExtension, type Extension,
} from './extensions.js';
import { describeKey, isMlDsaKey, spkiDer } from './keys.js';
import { encodeName, type DistinguishedName } from './name.js';
import { OID, type ExtKeyUsage, type KeyUsage } from './oids.js';

export interface CertificateTemplate {
  readonly subject: DistinguishedName;
  /**
   * DER of a subject Name to write verbatim instead of encoding `subject` (renewal keeps an
   * existing certificate's subject byte for byte, whatever attributes and encodings it used).
   */
  readonly rawSubject?: Buffer;
  readonly serial: bigint;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly isCA: boolean;
  /** Write BasicConstraints on a leaf (CA:FALSE; modern kubeadm). CAs always carry CA:TRUE. */
  readonly leafBasicConstraints?: boolean;
  /**
   * KeyUsage keyEncipherment only when the subject key is RSA (kubeadm 1.38, PR #142037); before,
   * every certificate had it. Never on an ML-DSA key, which cannot encipher (RFC 9881 §5).
   */
  readonly keyEnciphermentRsaOnly?: boolean;
  readonly extKeyUsage: readonly ExtKeyUsage[];
  /** In the order to write them (callers sort and de-duplicate as kubeadm does). */
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

/** Who signs: a CA certificate and its key, or only a key for a self-signed certificate. */
export interface SignerInfo {
  readonly privateKey: KeyObject;
  readonly certificate?: Certificate;
}

interface SignatureScheme {
  readonly oid: string;
  /** null: the algorithm signs the message itself (ML-DSA, "pure" mode with an empty context). */
  readonly hash: 'sha256' | 'sha384' | 'sha512' | null;
  /** RSA AlgorithmIdentifiers carry NULL parameters; ECDSA ones carry none (RFC 5758). */
  readonly nullParams: boolean;
}

/** Go's signingParamsForPublicKey: SHA-256 for RSA of any size, the curve's hash for ECDSA. */
function signatureSchemeFor(key: KeyObject): SignatureScheme {
  if (key.asymmetricKeyType === 'rsa') return { oid: OID.sha256WithRSAEncryption, hash: 'sha256', nullParams: true };
  if (key.asymmetricKeyType === 'ec') {
    switch (key.asymmetricKeyDetails?.namedCurve) {
      case 'prime256v1': return { oid: OID.ecdsaWithSHA256, hash: 'sha256', nullParams: false };
      case 'secp384r1': return { oid: OID.ecdsaWithSHA384, hash: 'sha384', nullParams: false };
      case 'secp521r1': return { oid: OID.ecdsaWithSHA512, hash: 'sha512', nullParams: false };
    }
  }
  // RFC 9881: id-ml-dsa-* with absent parameters; Go's crypto/x509 (1.27) signs the same way.
  switch (key.asymmetricKeyType) {
    case 'ml-dsa-44': return { oid: OID.mlDsa44, hash: null, nullParams: false };
    case 'ml-dsa-65': return { oid: OID.mlDsa65, hash: null, nullParams: false };
    case 'ml-dsa-87': return { oid: OID.mlDsa87, hash: null, nullParams: false };
  }
  throw new TsadmError('E_PRECONDITION', `cannot sign with a ${describeKey(key)} key`, { hint: 'use an RSA, ECDSA (P-256/P-384) or ML-DSA CA key' });
}

function algorithmIdentifier(scheme: SignatureScheme): Asn1 {
  return seq([oid(scheme.oid), ...(scheme.nullParams ? [nullValue()] : [])]);
}

/** Signs DER bytes and wraps them with the algorithm as a signed SEQUENCE (certificate, CSR). */
export function signStructure(tbs: Asn1, privateKey: KeyObject): Buffer {
  const scheme = signatureSchemeFor(privateKey);
  const tbsDer = encodeDer(tbs);
  const signature = nodeSign(scheme.hash, tbsDer, privateKey);
  return encodeDer(seq([parseDer(tbsDer), algorithmIdentifier(scheme), bitString(signature)]));
}

/** Extensions in Go's order: KeyUsage, ExtKeyUsage, BasicConstraints, SKID, AKID, SAN. */
function extensionsFor(t: CertificateTemplate, subjectKey: KeyObject, spki: Buffer, issuer: Certificate | undefined): Extension[] {
  const encipher = isMlDsaKey(subjectKey) ? false : !t.keyEnciphermentRsaOnly || subjectKey.asymmetricKeyType === 'rsa';
  const usages: KeyUsage[] = ['digitalSignature', ...(encipher ? ['keyEncipherment' as const] : []), ...(t.isCA ? ['keyCertSign' as const] : [])];
  const out: Extension[] = [keyUsageExtension(usages)];
  if (t.extKeyUsage.length > 0) out.push(extKeyUsageExtension(t.extKeyUsage));
  if (t.isCA || t.leafBasicConstraints) out.push(basicConstraintsExtension(t.isCA));
  // Go derives a subject key id only for CAs, and copies the parent's as authority key id
  // unless the certificate is self-signed.
  if (t.isCA) out.push(subjectKeyIdExtension(keyIdentifier(spki)));
  if (issuer?.subjectKeyId && issuer.subjectKeyId.length > 0) out.push(authorityKeyIdExtension(issuer.subjectKeyId));
  if (t.dnsNames.length > 0 || t.ipAddresses.length > 0) out.push(subjectAltNameExtension(t.dnsNames, t.ipAddresses));
  return out;
}

/**
 * Creates a certificate for `subjectKey` (public or private key) signed by `signer`. Without
 * `signer.certificate` the certificate is self-signed and `signer.privateKey` must be the
 * subject's own key.
 */
export function signCertificate(template: CertificateTemplate, subjectKey: KeyObject, signer: SignerInfo): Certificate {
  const spki = spkiDer(subjectKey);
  const scheme = signatureSchemeFor(signer.privateKey);
  const subject = template.rawSubject ? parseDer(template.rawSubject) : encodeName(template.subject);
  // A leaf's issuer is the CA's subject byte for byte, whatever encoding the CA used.
  const issuer = signer.certificate ? parseDer(signer.certificate.rawSubject) : subject;
  const tbs = seq([
    tagged(0, true, [integer(2n)]), // v3
    integer(template.serial),
    algorithmIdentifier(scheme),
    issuer,
    seq([time(template.notBefore), time(template.notAfter)]),
    subject,
    parseDer(spki),
    tagged(3, true, [seq(extensionsFor(template, subjectKey, spki, signer.certificate).map(encodeExtension))]),
  ]);
  return parseCertificateDer(signStructure(tbs, signer.privateKey));
}
