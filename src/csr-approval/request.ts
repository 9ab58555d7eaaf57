/**
 * The kubelet-serving request as the approver reads it: parseCsrPem's strict reading (one PEM
 * block of type CERTIFICATE REQUEST, as kube-apiserver's ParseCSR takes; distinguished DER; a
 * verified self-signature; nothing Go's crypto/x509 could read differently), plus the rules of
 * the request's own content a kubelet's request always meets: a subject of single-valued RDNs
 * holding only O and CN (the kubelet writes exactly O=system:nodes, CN=system:node:<name>; any
 * other attribute would be copied into the certificate the signer issues). The policy
 * (policy.ts) checks the names themselves.
 */
import { TsadmError } from '../errors.js';
import { parseCsrPem, type CertificateRequest } from '../pki/csr.js';
import { OID } from '../pki/oids.js';

const SUBJECT_TYPES: ReadonlySet<string> = new Set([OID.commonName, OID.organizationName]);

/** The request in PEM (spec.request decoded), or a TsadmError whose message says what was wrong. */
export function parseKubeletServingRequest(pem: string | Uint8Array, label: string): CertificateRequest {
  const req = parseCsrPem(pem, label, ['CERTIFICATE REQUEST']);
  const refuse = (why: string): TsadmError => new TsadmError('E_PRECONDITION', `${label}: not a kubelet serving request (${why})`, { hint: `the kubelet asks again with a new request` });
  const other = req.subject.attributeTypes.find((t) => !SUBJECT_TYPES.has(t));
  if (other !== undefined) throw refuse(`the subject "${req.subject.text}" has an attribute other than O and CN (${other})`);
  if (req.subject.multiValuedRdn) throw refuse(`the subject "${req.subject.text}" has a multi-valued RDN`);
  return req;
}
