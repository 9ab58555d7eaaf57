/** X.500 names as kubeadm uses them: one CommonName and a list of Organizations. */
import { children, directoryString, oid, readOid, readString, seq, set, type Asn1 } from './asn1.js';
import { DerError, TAG, elementsOf, isUniversal, oidText, type DerNode } from './der.js';
import { OID } from './oids.js';

export interface DistinguishedName {
  readonly commonName: string;
  readonly organization: readonly string[];
}

/** A name read from a certificate; attributes other than CN and O are kept as text. */
export interface ParsedName {
  readonly commonName: string | undefined;
  readonly organization: readonly string[];
  /** "O=system:masters, CN=kube-apiserver" (RDN order), for messages. */
  readonly text: string;
}

/** Go's pkix.Name.ToRDNSequence order: every O (one RDN each) before the CN. */
export function encodeName(name: DistinguishedName): Asn1 {
  const rdn = (type: string, value: string): Asn1 => set([seq([oid(type), directoryString(value)])]);
  return seq([
    ...name.organization.map((o) => rdn(OID.organizationName, o)),
    ...(name.commonName ? [rdn(OID.commonName, name.commonName)] : []),
  ]);
}

const SHORT: Readonly<Record<string, string>> = {
  [OID.commonName]: 'CN', [OID.organizationName]: 'O', '2.5.4.6': 'C', '2.5.4.8': 'ST', '2.5.4.7': 'L', '2.5.4.11': 'OU',
};

export function decodeName(node: Asn1): ParsedName {
  let commonName: string | undefined;
  const organization: string[] = [];
  const parts: string[] = [];
  for (const rdn of children(node)) {
    for (const atv of children(rdn)) {
      const [typeNode, valueNode] = children(atv);
      if (!typeNode || !valueNode) continue;
      const type = readOid(typeNode);
      const value = readString(valueNode);
      if (type === OID.commonName && commonName === undefined) commonName = value;
      if (type === OID.organizationName) organization.push(value);
      parts.push(`${SHORT[type] ?? type}=${value}`);
    }
  }
  return { commonName, organization, text: parts.join(', ') };
}

/** A subject read strictly (decodeStrictName): the name plus every attribute type, in order. */
export interface StrictName extends ParsedName {
  /** The attribute types (OIDs) of every RDN, in order: a caller may allow only some. */
  readonly attributeTypes: readonly string[];
  /** True when some RDN holds more than one attribute ("CN=a+O=b"). */
  readonly multiValuedRdn: boolean;
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A Name for a decision, refused unless every reader agrees on it: each RDN a non-empty SET of
 * (type, value) pairs, at most one CN (Go's pkix.Name keeps the LAST CN, most other readers the
 * first), and every value a PrintableString, UTF8String or IA5String with valid content (Go
 * skips a CN or O of another type, so tsadm would read one name and Go another, and refuses a
 * request whose other values it cannot read). Throws an Error saying what was wrong.
 */
export function decodeStrictName(node: DerNode): StrictName {
  const rdns = elementsOf(node, TAG.SEQUENCE, 'the subject');
  let commonName: string | undefined;
  const organization: string[] = [];
  const parts: string[] = [];
  const attributeTypes: string[] = [];
  let multiValuedRdn = false;
  for (const rdn of rdns) {
    const atvs = elementsOf(rdn, TAG.SET, 'a relative distinguished name of the subject');
    if (atvs.length === 0) throw new DerError('an empty relative distinguished name in the subject');
    if (atvs.length > 1) multiValuedRdn = true;
    for (const atv of atvs) {
      const pair = elementsOf(atv, TAG.SEQUENCE, 'a subject attribute');
      const [typeNode, valueNode] = pair;
      if (pair.length !== 2 || !isUniversal(typeNode, TAG.OID) || !valueNode) throw new DerError('a subject attribute that is not a type and a value');
      const type = oidText(typeNode);
      const short = SHORT[type] ?? type;
      // Every value, not only CN's and O's: Go reads each into a Go value and refuses the whole
      // request when one does not fit (an INTEGER too large for int64, a malformed time).
      const value = strictString(valueNode);
      if (value === undefined) throw new DerError(`the subject's ${short} value is not a PrintableString, UTF8String or IA5String`);
      if (type === OID.commonName || type === OID.organizationName) {
        if (type === OID.commonName) {
          if (commonName !== undefined) throw new DerError('two CN attributes in the subject');
          commonName = value;
        } else organization.push(value);
      }
      attributeTypes.push(type);
      parts.push(`${short}=${value}`);
    }
  }
  return { commonName, organization, text: parts.join(', '), attributeTypes, multiValuedRdn };
}

/** The text of a string value Go and OpenSSL both read as this text; undefined for other types; throws on bad content. */
function strictString(node: DerNode): string | undefined {
  if (node.cls !== 0 || node.constructed) return undefined;
  const raw = node.content;
  switch (node.tag) {
    case TAG.PRINTABLE_STRING: {
      const s = raw.toString('latin1');
      if (!PRINTABLE.test(s)) throw new DerError('a PrintableString with a character outside its alphabet in the subject');
      return s;
    }
    case TAG.IA5_STRING:
      if (raw.some((b) => b > 0x7f)) throw new DerError('an IA5String with a non-ASCII byte in the subject');
      return raw.toString('latin1');
    case TAG.UTF8_STRING:
      try {
        return UTF8.decode(raw);
      } catch {
        throw new DerError('a UTF8String that is not valid UTF-8 in the subject');
      }
    default:
      return undefined;
  }
}
