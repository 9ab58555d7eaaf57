/**
 * PKCS#10 certificate signing requests for the external-CA workflow (kubeadm's --csr-only and
 * `certs generate-csr`): subject plus a SAN extension request, signed with the new key.
 */
import type { KeyObject } from 'node:crypto';
import { TsadmError, errorMessage } from '../errors.js';
import { children, encodeDer, integer, oid, parseDer, readOid, seq, set, tagged, type Asn1 } from './asn1.js';
import { decodeExtensions, encodeExtension, subjectAltNameExtension, type DecodedExtensions } from './extensions.js';
import { spkiDer } from './keys.js';
import { decodeName, encodeName, type DistinguishedName, type ParsedName } from './name.js';
import { OID } from './oids.js';
import { decodePem, encodePem } from './pem.js';
import { signStructure } from './sign.js';

export interface CsrTemplate {
  readonly subject: DistinguishedName;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

export interface CertificateRequest {
  readonly der: Buffer;
  readonly pem: string;
  readonly subject: ParsedName;
  readonly spki: Buffer;
  /** The extensions it asks for (PKCS#9 extensionRequest): its SANs are what a signer is asked to certify. */
  readonly requested: DecodedExtensions;
}

export function createCsr(template: CsrTemplate, privateKey: KeyObject): CertificateRequest {
  const attributes: Asn1[] = [];
  if (template.dnsNames.length > 0 || template.ipAddresses.length > 0) {
    const extensions = seq([encodeExtension(subjectAltNameExtension(template.dnsNames, template.ipAddresses))]);
    attributes.push(seq([oid(OID.extensionRequest), set([extensions])]));
  }
  const info = seq([integer(0n), encodeName(template.subject), parseDer(spkiDer(privateKey)), tagged(0, true, attributes)]);
  return parseCsrDer(signStructure(info, privateKey));
}

function parseCsrDer(der: Uint8Array, label = 'certificate request'): CertificateRequest {
  try {
    const [info] = children(parseDer(der));
    const [, subject, spki, attributes] = children(info);
    if (!subject || !spki) throw new Error('truncated CertificationRequestInfo');
    const bytes = Buffer.from(der);
    return { der: bytes, pem: encodePem('CERTIFICATE REQUEST', bytes), subject: decodeName(subject), spki: encodeDer(spki), requested: requestedExtensions(attributes) };
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `${label}: not a valid certificate request (${errorMessage(err)})`, { hint: `replace or remove ${label}` });
  }
}

/** The first extensionRequest attribute's extensions (RFC 2986 attributes, RFC 2985 §5.4.2); none when absent. */
function requestedExtensions(attributes: Asn1 | undefined): DecodedExtensions {
  const request = children(attributes).find((a) => { const [type] = children(a); return type !== undefined && readOid(type) === OID.extensionRequest; });
  const [, values] = children(request);
  return decodeExtensions(children(values)[0]);
}

export function parseCsrPem(pem: string | Uint8Array, label = 'certificate request'): CertificateRequest {
  const block = decodePem(pem).find((b) => b.type === 'CERTIFICATE REQUEST' || b.type === 'NEW CERTIFICATE REQUEST');
  if (!block) throw new TsadmError('E_PRECONDITION', `${label}: no PEM certificate request found`, { hint: `replace or remove ${label}` });
  return parseCsrDer(block.der, label);
}
