/**
 * X.509 v3 extensions, encoded as Go's crypto/x509 encodes them (kubeadm's certificates are made
 * by Go): KeyUsage and BasicConstraints critical, the rest not; SANs as DNS names then IPs.
 */
import { createHash } from 'node:crypto';
import {
  Class, Type, bitString, boolean, bytesOf, children, encodeDer, octetString, oid, parseDer, readOid, seq, tagged, toBinary, fromBinary, type Asn1,
} from './asn1.js';
import { formatIp, ipFromBytes, ipToBytes, parseIp, type Ip } from '../net/ip.js';
import { EXT_KEY_USAGE_OIDS, KEY_USAGE_BITS, OID, type ExtKeyUsage, type KeyUsage } from './oids.js';

export interface Extension {
  readonly oid: string;
  readonly critical: boolean;
  readonly value: Buffer;
}

export function encodeExtension(ext: Extension): Asn1 {
  return seq([oid(ext.oid), ...(ext.critical ? [boolean(true)] : []), octetString(ext.value)]);
}

/** Minimal BIT STRING (trailing zero bits dropped), as Go and OpenSSL write KeyUsage. */
export function keyUsageExtension(usages: readonly KeyUsage[]): Extension {
  let bits = 0;
  for (const u of usages) bits |= 1 << KEY_USAGE_BITS.indexOf(u);
  const highest = 31 - Math.clz32(bits); // bit index of the last set usage
  const byteCount = Math.floor(highest / 8) + 1;
  const bytes = Buffer.alloc(byteCount);
  for (let i = 0; i <= highest; i++) if (bits & (1 << i)) bytes[i >> 3] = (bytes[i >> 3] ?? 0) | (0x80 >> (i & 7));
  const unused = 7 - (highest % 8);
  return { oid: OID.keyUsage, critical: true, value: encodeDer(bitString(bytes, unused)) };
}

export function extKeyUsageExtension(usages: readonly ExtKeyUsage[]): Extension {
  return { oid: OID.extKeyUsage, critical: false, value: encodeDer(seq(usages.map((u) => oid(EXT_KEY_USAGE_OIDS[u])))) };
}

/** CA:TRUE, or CA:FALSE as an empty SEQUENCE (DER omits the default). */
export function basicConstraintsExtension(isCA: boolean): Extension {
  return { oid: OID.basicConstraints, critical: true, value: encodeDer(seq(isCA ? [boolean(true)] : [])) };
}

export function subjectKeyIdExtension(keyId: Uint8Array): Extension {
  return { oid: OID.subjectKeyIdentifier, critical: false, value: encodeDer(octetString(keyId)) };
}

export function authorityKeyIdExtension(keyId: Uint8Array): Extension {
  return { oid: OID.authorityKeyIdentifier, critical: false, value: encodeDer(seq([tagged(0, false, toBinary(keyId))])) };
}

export function subjectAltNameExtension(dnsNames: readonly string[], ips: readonly string[]): Extension {
  const names = [
    ...dnsNames.map((d) => tagged(2, false, d)),
    ...ips.map((ip) => tagged(7, false, toBinary(ipToBytes(sanIp(ip))))),
  ];
  return { oid: OID.subjectAltName, critical: false, value: encodeDer(seq(names)) };
}

/** RFC 5280 §4.2.1.2 method 1 (what Go does): SHA-1 of the subjectPublicKey BIT STRING contents. */
export function keyIdentifier(spki: Uint8Array): Buffer {
  const [, bits] = children(parseDer(spki));
  return createHash('sha1').update(bytesOf(bits).subarray(1)).digest();
}

/** What tsadm reads back from a certificate's extensions. */
export interface DecodedExtensions {
  readonly keyUsage: readonly KeyUsage[] | undefined;
  readonly extKeyUsage: readonly string[];
  readonly basicConstraints: { readonly isCA: boolean } | undefined;
  readonly subjectKeyId: Buffer | undefined;
  readonly authorityKeyId: Buffer | undefined;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  /** SAN entries other than DNS names and IPs ("email:…", "URI:…", "[n]" for other kinds): tsadm never issues them. */
  readonly otherNames: readonly string[];
  readonly critical: readonly string[];
}

const EKU_NAMES: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(EXT_KEY_USAGE_OIDS).map(([k, v]) => [v, k]));

const KNOWN: ReadonlySet<string> = new Set([
  OID.keyUsage, OID.extKeyUsage, OID.basicConstraints, OID.subjectKeyIdentifier, OID.authorityKeyIdentifier, OID.subjectAltName,
]);

export function decodeExtensions(list: Asn1 | undefined): DecodedExtensions {
  let keyUsage: KeyUsage[] | undefined;
  let extKeyUsage: string[] = [];
  let basicConstraints: { isCA: boolean } | undefined;
  let subjectKeyId: Buffer | undefined;
  let authorityKeyId: Buffer | undefined;
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  const otherNames: string[] = [];
  const critical: string[] = [];
  for (const ext of children(list)) {
    const parts = children(ext);
    const id = readOid(parts[0] as Asn1);
    const isCritical = parts.length === 3 && bytesOf(parts[1])[0] === 0xff;
    if (isCritical) critical.push(id);
    if (!KNOWN.has(id)) continue; // other extensions are never parsed, so odd ones cannot break reading
    const value = parseDer(bytesOf(parts[parts.length - 1]));
    switch (id) {
      case OID.keyUsage: {
        const bytes = bytesOf(value).subarray(1);
        keyUsage = KEY_USAGE_BITS.filter((_, i) => ((bytes[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0);
        break;
      }
      case OID.extKeyUsage:
        extKeyUsage = children(value).map((n) => { const o = readOid(n); return EKU_NAMES[o] ?? o; });
        break;
      case OID.basicConstraints: {
        const first = children(value)[0];
        basicConstraints = { isCA: first?.type === Type.BOOLEAN && bytesOf(first)[0] !== 0 };
        break;
      }
      case OID.subjectKeyIdentifier:
        subjectKeyId = bytesOf(value);
        break;
      case OID.authorityKeyIdentifier: {
        const keyId = children(value).find((n) => n.tagClass === Class.CONTEXT_SPECIFIC && (n.type as number) === 0);
        if (keyId) authorityKeyId = bytesOf(keyId);
        break;
      }
      case OID.subjectAltName:
        for (const n of children(value)) {
          if (n.tagClass !== Class.CONTEXT_SPECIFIC) continue;
          const tag = n.type as number;
          if (tag === 2) dnsNames.push(n.value as string);
          else if (tag === 7) ipAddresses.push(sanIpText(fromBinary(n.value as string)));
          else otherNames.push(typeof n.value === 'string' && (tag === 1 || tag === 6) ? `${tag === 1 ? 'email' : 'URI'}:${n.value}` : `[${tag}]`);
        }
        break;
    }
  }
  return { keyUsage, extKeyUsage, basicConstraints, subjectKeyId, authorityKeyId, dnsNames, ipAddresses, otherNames, critical };
}

function sanIp(text: string): Ip {
  const ip = parseIp(text);
  if (ip === undefined) throw new TypeError(`not an IP address: ${text}`);
  return ip;
}

/** An iPAddress SAN as text; a length other than 4 or 16 is shown, not hidden. */
function sanIpText(bytes: Uint8Array): string {
  const ip = ipFromBytes(bytes);
  return ip ? formatIp(ip) : `<invalid IP ${Buffer.from(bytes).toString('hex')}>`;
}
