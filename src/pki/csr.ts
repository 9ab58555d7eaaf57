/**
 * PKCS#10 certificate signing requests for the external-CA workflow (kubeadm's --csr-only and
 * `certs generate-csr`): subject plus a SAN extension request, signed with the new key.
 */
import type { KeyObject } from 'node:crypto';
import { TsadmError, errorMessage } from '../errors.js';
import { children, encodeDer, integer, oid, parseDer, seq, set, tagged, type Asn1 } from './asn1.js';
import { encodeExtension, subjectAltNameExtension } from './extensions.js';
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
    const [, subject, spki] = children(info);
    if (!subject || !spki) throw new Error('truncated CertificationRequestInfo');
    const bytes = Buffer.from(der);
    return { der: bytes, pem: encodePem('CERTIFICATE REQUEST', bytes), subject: decodeName(subject), spki: encodeDer(spki) };
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `${label}: not a valid certificate request (${errorMessage(err)})`, { hint: `replace or remove ${label}` });
  }
}

export function parseCsrPem(pem: string | Uint8Array, label = 'certificate request'): CertificateRequest {
  const block = decodePem(pem).find((b) => b.type === 'CERTIFICATE REQUEST' || b.type === 'NEW CERTIFICATE REQUEST');
  if (!block) throw new TsadmError('E_PRECONDITION', `${label}: no PEM certificate request found`, { hint: `replace or remove ${label}` });
  return parseCsrDer(block.der, label);
}
