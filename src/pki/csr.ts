/**
 * PKCS#10 certificate signing requests: made for the external-CA workflow (kubeadm's --csr-only
 * and `certs generate-csr`: subject plus a SAN extension request, signed with the new key), and
 * read strictly wherever tsadm reads one (the kubelet-serving approver decides on requests a node
 * sends). Reading refuses every request that Go's encoding/pem and crypto/x509 (which
 * kube-apiserver and the signer use) could read differently from tsadm, or would refuse:
 * docs/safety.md, "The approver's request parser"; docs/decisions.md.
 */
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { TsadmError, errorMessage } from '../errors.js';
import { integer, oid, parseDer, seq, set, tagged, type Asn1 } from './asn1.js';
import { DerError, TAG, elementsOf, isUniversal, oidText, readDer, type DerNode } from './der.js';
import { decodeExtensions, encodeExtension, subjectAltNameExtension, type DecodedExtensions } from './extensions.js';
import { spkiDer } from './keys.js';
import { decodeStrictName, encodeName, type DistinguishedName, type StrictName } from './name.js';
import { OID } from './oids.js';
import { decodeSinglePem, encodePem } from './pem.js';
import { decodeStrictSan } from './san-strict.js';
import { signStructure } from './sign.js';

export interface CsrTemplate {
  readonly subject: DistinguishedName;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

export interface CertificateRequest {
  readonly der: Buffer;
  readonly pem: string;
  readonly subject: StrictName;
  readonly spki: Buffer;
  /** "RSA-2048", "ECDSA-P256", "Ed25519": the key the request was signed with (its signature verified). */
  readonly keyAlgorithm: string;
  /** The extensions it asks for (PKCS#9 extensionRequest): its SANs are what a signer is asked to certify. */
  readonly requested: DecodedExtensions;
}

/** The PEM types a request may carry: Go's own and OpenSSL's old one. kube-apiserver takes only the first. */
const CSR_PEM_TYPES: readonly string[] = ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST'];

export function createCsr(template: CsrTemplate, privateKey: KeyObject): CertificateRequest {
  const attributes: Asn1[] = [];
  if (template.dnsNames.length > 0 || template.ipAddresses.length > 0) {
    const extensions = seq([encodeExtension(subjectAltNameExtension(template.dnsNames, template.ipAddresses))]);
    attributes.push(seq([oid(OID.extensionRequest), set([extensions])]));
  }
  const info = seq([integer(0n), encodeName(template.subject), parseDer(spkiDer(privateKey)), tagged(0, true, attributes)]);
  // Its own requests may carry an ML-DSA key (encryptionAlgorithm ML-DSA-*, kubeadm 1.38): read
  // back with that one allowance; requests from others (the approver's) never get it.
  return parseCsrDer(signStructure(info, privateKey), 'certificate request', { ownMlDsa: true });
}

/**
 * The one request in PEM, read strictly (decodeSinglePem, then parseCsrDer). TYPES: the PEM block
 * types accepted (the approver passes only "CERTIFICATE REQUEST", as kube-apiserver's ParseCSR).
 */
export function parseCsrPem(pem: string | Uint8Array, label = 'certificate request', types: readonly string[] = CSR_PEM_TYPES): CertificateRequest {
  let der: Buffer;
  try {
    der = decodeSinglePem(pem, types).der;
  } catch (err) {
    throw invalid(label, errorMessage(err));
  }
  return parseCsrDer(der, label);
}

function invalid(label: string, why: string): TsadmError {
  return new TsadmError('E_PRECONDITION', `${label}: not a valid certificate request (${why})`, { hint: `replace or remove ${label}` });
}

/** Thrown for a request that is well-formed DER but not a request tsadm reads (the message says which rule). */
class RequestError extends Error {}

/**
 * A DER request, refused unless it is distinguished-encoded and unambiguous: version 0, a subject
 * with at most one CN and string CN/O values, at most one extensionRequest attribute holding a
 * SET of exactly one value, no extension twice, no critical extension tsadm does not know, SANs
 * Go reads the same way, a key tsadm can check, and a self-signature that verifies.
 */
function parseCsrDer(der: Uint8Array, label = 'certificate request', opts: { readonly ownMlDsa?: boolean } = {}): CertificateRequest {
  try {
    const bytes = Buffer.from(der);
    const top = elementsOf(readDer(bytes, 'the request'), TAG.SEQUENCE, 'the request');
    if (top.length !== 3) throw new RequestError(`the request has ${top.length} elements, not 3 (info, signature algorithm, signature)`);
    const [infoNode, sigAlgNode, sigNode] = top as [DerNode, DerNode, DerNode];
    const info = elementsOf(infoNode, TAG.SEQUENCE, 'the CertificationRequestInfo');
    if (info.length !== 4) throw new RequestError(`the CertificationRequestInfo has ${info.length} elements, not 4 (version, subject, key, attributes)`);
    const [version, subjectNode, spkiNode, attributes] = info as [DerNode, DerNode, DerNode, DerNode];
    if (!isUniversal(version, TAG.INTEGER) || !version.content.equals(Buffer.from([0]))) throw new RequestError('the version is not 0 (PKCS#10 v1)');
    const subject = decodeStrictName(subjectNode);
    const requested = requestedExtensions(attributes);
    const { key, keyAlgorithm, family } = publicKey(spkiNode, opts.ownMlDsa === true);
    verifySignature(infoNode.raw, sigAlgNode, sigNode, key, family);
    return { der: bytes, pem: encodePem('CERTIFICATE REQUEST', bytes), subject, spki: Buffer.from(spkiNode.raw), keyAlgorithm, requested };
  } catch (err) {
    if (err instanceof DerError || err instanceof RequestError) throw invalid(label, err.message);
    throw invalid(label, errorMessage(err));
  }
}

/** CRITICAL extensions tsadm accepts in a request: the ones it or every signer understands. */
const CRITICAL_OK: ReadonlySet<string> = new Set([OID.subjectAltName, OID.keyUsage, OID.extKeyUsage, OID.basicConstraints]);

const EXTENSION_NAMES: Readonly<Record<string, string>> = {
  [OID.subjectAltName]: 'subjectAltName', [OID.keyUsage]: 'keyUsage', [OID.extKeyUsage]: 'extKeyUsage',
  [OID.basicConstraints]: 'basicConstraints', [OID.subjectKeyIdentifier]: 'subjectKeyIdentifier',
};

/**
 * The extensions of the request's one extensionRequest attribute (RFC 2986 §4.1, RFC 2985
 * §5.4.2); none when absent. Go skips an attribute it cannot parse and appends the extensions of
 * every extensionRequest, so a second one, or one whose values are not a SET, is refused here.
 */
function requestedExtensions(attributes: DerNode): DecodedExtensions {
  if (attributes.cls !== 2 || attributes.tag !== 0 || attributes.children === undefined) throw new RequestError('the attributes are not a [0] SET');
  let extensions: DerNode | undefined;
  for (const [i, attribute] of attributes.children.entries()) {
    const parts = elementsOf(attribute, TAG.SEQUENCE, `attribute ${i + 1}`);
    const [type, values] = parts;
    if (parts.length !== 2 || !isUniversal(type, TAG.OID)) throw new RequestError(`attribute ${i + 1} is not a type and a SET of values`);
    const isRequest = oidText(type) === OID.extensionRequest;
    const what = isRequest ? `the ${extensions ? 'second ' : ''}extensionRequest attribute` : `attribute ${i + 1}`;
    if (!isUniversal(values, TAG.SET)) throw new RequestError(`${what}'s values are not a SET`);
    const valueList = elementsOf(values, TAG.SET, `${what}'s values`);
    if (valueList.length === 0) throw new RequestError(`${what} has no values`);
    if (!isRequest) continue; // other attributes (a challenge password) ask nothing of a signer
    if (extensions) throw new RequestError('two extensionRequest attributes');
    if (valueList.length !== 1) throw new RequestError(`the extensionRequest attribute has ${valueList.length} values, not 1`);
    extensions = valueList[0];
  }
  if (!extensions) return decodeExtensions(undefined);
  const seen = new Set<string>();
  let san: ReturnType<typeof decodeStrictSan> | undefined;
  for (const [i, ext] of elementsOf(extensions, TAG.SEQUENCE, 'the requested extensions').entries()) {
    const parts = elementsOf(ext, TAG.SEQUENCE, `requested extension ${i + 1}`);
    const [idNode, second, third] = parts;
    const criticalNode = parts.length === 3 ? second : undefined;
    const valueNode = parts.length === 3 ? third : second;
    if (parts.length < 2 || parts.length > 3 || !isUniversal(idNode, TAG.OID) || !isUniversal(valueNode, TAG.OCTET_STRING)) {
      throw new RequestError(`requested extension ${i + 1} is not an identifier, an optional critical flag and an OCTET STRING`);
    }
    const id = oidText(idNode);
    const name = EXTENSION_NAMES[id] ?? id;
    if (criticalNode && (!isUniversal(criticalNode, TAG.BOOLEAN) || criticalNode.content[0] !== 0xff)) {
      throw new RequestError(`the ${name} extension's critical flag is not TRUE (DER leaves a FALSE one out)`);
    }
    if (seen.has(id)) throw new RequestError(`two ${name} extensions`);
    seen.add(id);
    if (criticalNode && !CRITICAL_OK.has(id)) throw new RequestError(`a critical ${name} extension tsadm does not know`);
    if (id === OID.subjectAltName) san = decodeStrictSan(valueNode.content);
    else if (id in EXTENSION_NAMES) readDer(valueNode.content, `the ${name} extension`);
  }
  const decoded = decodeExtensions(parseDer(extensions.raw));
  return { ...decoded, dnsNames: san?.dnsNames ?? [], ipAddresses: san?.ipAddresses ?? [], otherNames: san?.otherNames ?? [] };
}

type KeyFamily = 'rsa' | 'ec' | 'ed25519' | 'ml-dsa-44' | 'ml-dsa-65' | 'ml-dsa-87';

const CURVES: Readonly<Record<string, string>> = { prime256v1: 'ECDSA-P256', secp384r1: 'ECDSA-P384', secp521r1: 'ECDSA-P521' };

/**
 * The request's key, when it is one tsadm can check and Go reads the same: RSA of 2048 to 8192
 * bits with exponent 65537 (NULL parameters), ECDSA on P-256, P-384 or P-521 (a named curve, an
 * uncompressed point), or Ed25519; its encoding must be the one OpenSSL writes back.
 */
function publicKey(spkiNode: DerNode, mlDsa: boolean): { key: KeyObject; keyAlgorithm: string; family: KeyFamily } {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(spkiNode.raw), format: 'der', type: 'spki' });
  } catch (err) {
    throw new RequestError(`the public key cannot be read (${errorMessage(err)})`);
  }
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  let keyAlgorithm: string;
  let family: KeyFamily;
  if (type === 'rsa') {
    const bits = details.modulusLength ?? 0;
    if (bits < 2048 || bits > 8192) throw new RequestError(`an RSA key of ${bits} bits (tsadm accepts 2048 to 8192)`);
    if (details.publicExponent !== 65537n) throw new RequestError('an RSA key whose public exponent is not 65537');
    keyAlgorithm = `RSA-${bits}`;
    family = 'rsa';
  } else if (type === 'ec') {
    const curve = CURVES[details.namedCurve ?? ''];
    if (!curve) throw new RequestError(`an EC key on curve ${details.namedCurve ?? '(unnamed)'} (tsadm accepts P-256, P-384, P-521)`);
    keyAlgorithm = curve;
    family = 'ec';
  } else if (type === 'ed25519') {
    keyAlgorithm = 'Ed25519';
    family = 'ed25519';
  } else if (mlDsa && (type === 'ml-dsa-44' || type === 'ml-dsa-65' || type === 'ml-dsa-87')) {
    keyAlgorithm = type.toUpperCase();
    family = type;
  } else {
    throw new RequestError(`a ${type ?? 'unknown'} key (tsadm accepts RSA, ECDSA and Ed25519)`);
  }
  if (!key.export({ format: 'der', type: 'spki' }).equals(spkiNode.raw)) throw new RequestError('the public key is not in its canonical encoding');
  return { key, keyAlgorithm, family };
}

const SIGNATURES: Readonly<Record<string, { readonly family: KeyFamily; readonly hash: string | null; readonly nullParams: boolean }>> = {
  [OID.sha256WithRSAEncryption]: { family: 'rsa', hash: 'sha256', nullParams: true },
  '1.2.840.113549.1.1.12': { family: 'rsa', hash: 'sha384', nullParams: true },
  '1.2.840.113549.1.1.13': { family: 'rsa', hash: 'sha512', nullParams: true },
  [OID.ecdsaWithSHA256]: { family: 'ec', hash: 'sha256', nullParams: false },
  [OID.ecdsaWithSHA384]: { family: 'ec', hash: 'sha384', nullParams: false },
  [OID.ecdsaWithSHA512]: { family: 'ec', hash: 'sha512', nullParams: false },
  '1.3.101.112': { family: 'ed25519', hash: null, nullParams: false },
  // Reached only with an ML-DSA key, which publicKey admits for tsadm's own requests alone.
  [OID.mlDsa44]: { family: 'ml-dsa-44', hash: null, nullParams: false },
  [OID.mlDsa65]: { family: 'ml-dsa-65', hash: null, nullParams: false },
  [OID.mlDsa87]: { family: 'ml-dsa-87', hash: null, nullParams: false },
};

/** The self-signature (kube-apiserver's validation calls CheckSignature): verified with Node's crypto. */
function verifySignature(signed: Buffer, sigAlgNode: DerNode, sigNode: DerNode, key: KeyObject, family: KeyFamily): void {
  const alg = elementsOf(sigAlgNode, TAG.SEQUENCE, 'the signature algorithm');
  const [algId, params] = alg;
  if (!isUniversal(algId, TAG.OID)) throw new RequestError('the signature algorithm has no identifier');
  const id = oidText(algId);
  const known = SIGNATURES[id];
  if (!known) throw new RequestError(`signature algorithm ${id} (tsadm accepts RSA PKCS#1 v1.5, ECDSA with SHA-256/384/512, Ed25519)`);
  const paramsOk = known.nullParams ? alg.length === 2 && isUniversal(params, TAG.NULL) : alg.length === 1;
  if (!paramsOk) throw new RequestError(`the signature algorithm's parameters are not ${known.nullParams ? 'NULL' : 'absent'}`);
  if (known.family !== family) throw new RequestError(`a ${family.toUpperCase()} key with a ${known.family.toUpperCase()} signature algorithm`);
  if (!isUniversal(sigNode, TAG.BIT_STRING) || sigNode.content[0] !== 0) throw new RequestError('the signature is not a BIT STRING of whole bytes');
  const signature = sigNode.content.subarray(1);
  if (family === 'rsa' && signature.length !== Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8)) throw new RequestError('the RSA signature is not as long as the modulus');
  if (family === 'ec') {
    const rs = elementsOf(readDer(signature, 'the ECDSA signature'), TAG.SEQUENCE, 'the ECDSA signature');
    if (rs.length !== 2 || !rs.every((n) => isUniversal(n, TAG.INTEGER) && ((n.content[0] as number) & 0x80) === 0)) throw new RequestError('the ECDSA signature is not two positive INTEGERs');
  }
  if (family === 'ed25519' && signature.length !== 64) throw new RequestError('the Ed25519 signature is not 64 bytes');
  const ok = family === 'rsa'
    ? verify(known.hash, signed, { key, padding: constants.RSA_PKCS1_PADDING }, signature)
    : verify(known.hash, signed, family === 'ec' ? { key, dsaEncoding: 'der' } : key, signature);
  if (!ok) throw new RequestError('the self-signature does not verify');
}
