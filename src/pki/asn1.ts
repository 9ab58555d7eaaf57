/**
 * Thin helpers over node-forge's ASN.1 layer (the robust, key-agnostic part of forge). forge
 * works on "binary strings" (one char per byte); these helpers keep Buffers at the edges.
 */
import type forge from 'node-forge';
// Only forge's ASN.1 module (with its util/oids): `import 'node-forge'` evaluates and, bundled,
// parses all of forge (~600 KB: TLS, PKCS#12, …) at every start, even for `tsadm version`.
import asn1 from 'node-forge/lib/asn1.js';

// forge types `type` as the universal Type enum; in a CONTEXT_SPECIFIC element it is the tag
// number, so callers compare it as a number there.
export type Asn1 = forge.asn1.Asn1;
export const Class = asn1.Class;
export const Type = asn1.Type;

export function toBinary(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('binary');
}

export function fromBinary(s: string): Buffer {
  return Buffer.from(s, 'binary');
}

/** Parses DER; BIT STRING contents are kept opaque so re-encoding is byte-identical. */
export function parseDer(der: Uint8Array): Asn1 {
  const fromDer = asn1.fromDer as unknown as (bytes: string, options: { strict: boolean; decodeBitStrings: boolean; parseAllBytes: boolean }) => Asn1;
  return fromDer(toBinary(der), { strict: true, decodeBitStrings: false, parseAllBytes: true });
}

export function encodeDer(node: Asn1): Buffer {
  return fromBinary(asn1.toDer(node).getBytes());
}

export function seq(items: Asn1[]): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, items);
}

export function set(items: Asn1[]): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.SET, true, items);
}

export function oid(dotted: string): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(dotted).getBytes());
}

export function nullValue(): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.NULL, false, '');
}

export function boolean(value: boolean): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.BOOLEAN, false, String.fromCharCode(value ? 0xff : 0x00));
}

export function octetString(bytes: Uint8Array): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, toBinary(bytes));
}

/** BIT STRING from whole bytes plus the count of unused trailing bits in the last byte. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.BITSTRING, false, String.fromCharCode(unusedBits) + toBinary(bytes));
}

export function integer(value: bigint): Asn1 {
  return asn1.create(Class.UNIVERSAL, Type.INTEGER, false, toBinary(bigintToDer(value)));
}

/** A context-specific tagged value: [n] IMPLICIT primitive, or [n] EXPLICIT/constructed. */
export function tagged(n: number, constructed: boolean, value: string | Asn1[]): Asn1 {
  return asn1.create(Class.CONTEXT_SPECIFIC, n, constructed, value);
}

/** Minimal two's-complement content octets of a non-negative INTEGER. */
function bigintToDer(value: bigint): Buffer {
  if (value < 0n) throw new RangeError('negative INTEGER not supported');
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = Buffer.from(hex, 'hex');
  return (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
}

export function derToBigint(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  const n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  return (bytes[0] ?? 0) & 0x80 ? n - (1n << BigInt(bytes.length * 8)) : n;
}

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050; whole seconds, always Z. */
export function time(date: Date): Asn1 {
  const iso = new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, ''); // YYYYMMDDHHMMSS
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return asn1.create(Class.UNIVERSAL, Type.UTCTIME, false, `${digits.slice(2)}Z`);
  return asn1.create(Class.UNIVERSAL, Type.GENERALIZEDTIME, false, `${digits}Z`);
}

export function readTime(node: Asn1): Date {
  const v = node.value as string;
  if (node.type === Type.UTCTIME) return asn1.utcTimeToDate(v);
  if (node.type === Type.GENERALIZEDTIME) return asn1.generalizedTimeToDate(v);
  throw new Error('expected a UTCTime or GeneralizedTime');
}

export function readOid(node: Asn1): string {
  return asn1.derToOid(node.value as string);
}

export function children(node: Asn1 | undefined): Asn1[] {
  return node && Array.isArray(node.value) ? node.value : [];
}

export function bytesOf(node: Asn1 | undefined): Buffer {
  return node && typeof node.value === 'string' ? fromBinary(node.value) : Buffer.alloc(0);
}

/** Go marshals a string as PrintableString when every character allows it, else UTF8String. */
export function directoryString(value: string): Asn1 {
  if (/^[A-Za-z0-9 '()+,\-./:=?]*$/.test(value)) return asn1.create(Class.UNIVERSAL, Type.PRINTABLESTRING, false, value);
  return asn1.create(Class.UNIVERSAL, Type.UTF8, false, Buffer.from(value, 'utf8').toString('binary'));
}

export function readString(node: Asn1): string {
  const raw = node.value as string;
  if (node.type === Type.UTF8) return Buffer.from(raw, 'binary').toString('utf8');
  if (node.type === Type.BMPSTRING) {
    const b = fromBinary(raw);
    let out = '';
    for (let i = 0; i + 1 < b.length; i += 2) out += String.fromCharCode(b.readUInt16BE(i));
    return out;
  }
  return raw;
}
