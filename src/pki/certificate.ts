/**
 * Reading certificates. node:crypto's X509Certificate verifies signatures and key pairs for RSA
 * and ECDSA alike; the fields tsadm compares (names, SANs, usages, key ids) are read from the
 * DER with forge's ASN.1 parser, because forge's certificate parser refuses EC keys.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';
import { TsadmError, errorMessage } from '../errors.js';
import { Class, bytesOf, children, derToBigint, encodeDer, parseDer, readOid, readTime, type Asn1 } from './asn1.js';
import { decodeExtensions, type DecodedExtensions } from './extensions.js';
import { decodeName, type ParsedName } from './name.js';
import type { KeyUsage } from './oids.js';
import { decodePem, encodePem } from './pem.js';

export interface Certificate {
  readonly der: Buffer;
  readonly pem: string;
  readonly x509: X509Certificate;
  readonly serial: bigint;
  readonly signatureAlgorithm: string;
  readonly issuer: ParsedName;
  readonly subject: ParsedName;
  /** DER of the subject Name, copied verbatim as the issuer of certificates this one signs. */
  readonly rawSubject: Buffer;
  readonly rawIssuer: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** DER SubjectPublicKeyInfo. */
  readonly spki: Buffer;
  readonly publicKey: KeyObject;
  readonly isCA: boolean;
  readonly basicConstraintsPresent: boolean;
  readonly keyUsage: readonly KeyUsage[] | undefined;
  /** "serverAuth", "clientAuth", or the dotted OID of any other usage. */
  readonly extKeyUsage: readonly string[];
  readonly dnsNames: readonly string[];
  /** Canonical text (net.IP.String()). */
  readonly ipAddresses: readonly string[];
  readonly subjectKeyId: Buffer | undefined;
  readonly authorityKeyId: Buffer | undefined;
  readonly criticalExtensions: readonly string[];
}

export function parseCertificateDer(der: Uint8Array, label = 'certificate'): Certificate {
  const bytes = Buffer.from(der);
  let x509: X509Certificate;
  let fields: Omit<Certificate, 'der' | 'pem' | 'x509' | 'publicKey'>;
  try {
    x509 = new X509Certificate(bytes);
    fields = readTbs(parseDer(bytes));
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `${label}: not a valid X.509 certificate (${errorMessage(err)})`, {
      hint: `replace or remove ${label}`,
    });
  }
  return { der: bytes, pem: encodePem('CERTIFICATE', bytes), x509, publicKey: x509.publicKey, ...fields };
}

/** The first CERTIFICATE block of a PEM file (kubeadm uses the first one too). */
export function parseCertificatePem(pem: string | Uint8Array, label = 'certificate'): Certificate {
  const block = decodePem(pem).find((b) => b.type === 'CERTIFICATE');
  if (!block) throw new TsadmError('E_PRECONDITION', `${label}: no PEM certificate found`, { hint: `replace or remove ${label}` });
  return parseCertificateDer(block.der, label);
}

function readTbs(root: Asn1): Omit<Certificate, 'der' | 'pem' | 'x509' | 'publicKey'> {
  const [tbs, sigAlg] = children(root);
  const fields = children(tbs);
  // version is an optional [0] EXPLICIT; v1 certificates omit it
  const offset = fields[0]?.tagClass === Class.CONTEXT_SPECIFIC && (fields[0].type as number) === 0 ? 1 : 0;
  const at = (i: number): Asn1 => {
    const node = fields[i + offset];
    if (!node) throw new Error('truncated TBSCertificate');
    return node;
  };
  const validity = children(at(3));
  const extensionsWrapper = fields.slice(offset + 6).find((n) => n.tagClass === Class.CONTEXT_SPECIFIC && (n.type as number) === 3);
  const ext: DecodedExtensions = decodeExtensions(children(extensionsWrapper)[0]);
  return {
    serial: derToBigint(bytesOf(at(0))),
    signatureAlgorithm: readOid(children(sigAlg)[0] as Asn1),
    issuer: decodeName(at(2)),
    rawIssuer: encodeDer(at(2)),
    notBefore: readTime(validity[0] as Asn1),
    notAfter: readTime(validity[1] as Asn1),
    subject: decodeName(at(4)),
    rawSubject: encodeDer(at(4)),
    spki: encodeDer(at(5)),
    isCA: ext.basicConstraints?.isCA ?? false,
    basicConstraintsPresent: ext.basicConstraints !== undefined,
    keyUsage: ext.keyUsage,
    extKeyUsage: ext.extKeyUsage,
    dnsNames: ext.dnsNames,
    ipAddresses: ext.ipAddresses,
    subjectKeyId: ext.subjectKeyId,
    authorityKeyId: ext.authorityKeyId,
    criticalExtensions: ext.critical,
  };
}
