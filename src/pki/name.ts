/** X.500 names as kubeadm uses them: one CommonName and a list of Organizations. */
import { children, directoryString, oid, readOid, readString, seq, set, type Asn1 } from './asn1.js';
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
