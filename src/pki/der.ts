/**
 * A strict DER reader for input tsadm decides on (certificate requests a node sends the
 * approver). node-forge's reader, even in strict mode, accepts BER forms (long-form lengths
 * that could be short, leading zero length octets, constructed strings) that Go's
 * encoding/asn1 refuses, and two readers that disagree on the bytes may disagree on what they
 * mean (docs/safety.md, "The approver's request parser"). This one accepts only the
 * distinguished encoding, and throws a DerError saying where and what otherwise.
 */

export class DerError extends Error {}

/** One TLV. `children` is set for constructed elements (their content parsed in full). */
export interface DerNode {
  /** 0 universal, 1 application, 2 context-specific, 3 private. */
  readonly cls: number;
  readonly constructed: boolean;
  /** The tag number (always below 31: multi-byte tag numbers are refused). */
  readonly tag: number;
  /** The whole element: identifier, length and content octets. */
  readonly raw: Buffer;
  readonly content: Buffer;
  readonly children: readonly DerNode[] | undefined;
}

export const TAG = {
  BOOLEAN: 1, INTEGER: 2, BIT_STRING: 3, OCTET_STRING: 4, NULL: 5, OID: 6, UTF8_STRING: 12,
  SEQUENCE: 16, SET: 17, PRINTABLE_STRING: 19, IA5_STRING: 22,
} as const;

const UNIVERSAL_CONSTRUCTED: ReadonlySet<number> = new Set([TAG.SEQUENCE, TAG.SET]);
const MAX_DEPTH = 32;

/** Parses BYTES as exactly one DER element (no trailing bytes), checked recursively. */
export function readDer(bytes: Uint8Array, what = 'the DER'): DerNode {
  const buf = Buffer.from(bytes);
  const [node, end] = readElement(buf, 0, buf.length, 0, what);
  if (end !== buf.length) throw new DerError(`${what}: ${buf.length - end} trailing byte(s) after the element`);
  return node;
}

function readElement(buf: Buffer, start: number, limit: number, depth: number, what: string): [DerNode, number] {
  if (depth > MAX_DEPTH) throw new DerError(`${what}: nested more than ${MAX_DEPTH} levels deep`);
  if (start >= limit) throw new DerError(`${what}: truncated (an element expected at byte ${start})`);
  const id = buf[start] as number;
  const cls = id >> 6;
  const constructed = (id & 0x20) !== 0;
  const tag = id & 0x1f;
  if (tag === 0x1f) throw new DerError(`${what}: multi-byte tag number at byte ${start}`);
  if (start + 1 >= limit) throw new DerError(`${what}: truncated length at byte ${start + 1}`);
  const first = buf[start + 1] as number;
  let length: number;
  let contentStart: number;
  if (first < 0x80) {
    length = first;
    contentStart = start + 2;
  } else {
    const n = first & 0x7f;
    if (n === 0) throw new DerError(`${what}: indefinite length at byte ${start + 1} (BER, not DER)`);
    if (n > 4) throw new DerError(`${what}: length of ${n} octets at byte ${start + 1}`);
    if (start + 2 + n > limit) throw new DerError(`${what}: truncated length at byte ${start + 1}`);
    if (buf[start + 2] === 0) throw new DerError(`${what}: length with a leading zero octet at byte ${start + 1} (not DER)`);
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (buf[start + 2 + i] as number);
    if (length < 0x80) throw new DerError(`${what}: long-form length ${length} at byte ${start + 1} (DER uses the short form)`);
    contentStart = start + 2 + n;
  }
  const end = contentStart + length;
  if (end > limit) throw new DerError(`${what}: element at byte ${start} is longer (${length}) than what contains it`);
  const content = buf.subarray(contentStart, end);
  const raw = buf.subarray(start, end);
  if (cls === 0) checkUniversal(tag, constructed, content, start, what);
  let children: DerNode[] | undefined;
  if (constructed) {
    children = [];
    let at = contentStart;
    while (at < end) {
      const [child, next] = readElement(buf, at, end, depth + 1, what);
      children.push(child);
      at = next;
    }
  }
  return [{ cls, constructed, tag, raw, content, children }, end];
}

/** The universal types' own DER rules (X.690 §8, §10, §11) that Go's encoding/asn1 enforces too. */
function checkUniversal(tag: number, constructed: boolean, content: Buffer, at: number, what: string): void {
  const bad = (why: string): never => {
    throw new DerError(`${what}: ${why} at byte ${at}`);
  };
  if (UNIVERSAL_CONSTRUCTED.has(tag) !== constructed) bad(constructed ? `constructed form of universal type ${tag}` : `primitive SEQUENCE or SET`);
  switch (tag) {
    case 0:
      bad('end-of-contents octets (BER, not DER)');
      break;
    case TAG.BOOLEAN:
      if (content.length !== 1 || (content[0] !== 0x00 && content[0] !== 0xff)) bad('a BOOLEAN that is not one octet 00 or FF');
      break;
    case TAG.INTEGER:
      if (content.length === 0) bad('an empty INTEGER');
      if (content.length > 1 && ((content[0] === 0x00 && ((content[1] as number) & 0x80) === 0) || (content[0] === 0xff && ((content[1] as number) & 0x80) !== 0))) {
        bad('a non-minimal INTEGER');
      }
      break;
    case TAG.BIT_STRING: {
      const unused = content[0];
      if (unused === undefined) bad('an empty BIT STRING');
      else if (unused > 7 || (content.length === 1 && unused !== 0)) bad('a BIT STRING with a bad unused-bits count');
      else if (unused > 0 && ((content[content.length - 1] as number) & ((1 << unused) - 1)) !== 0) bad('a BIT STRING whose unused bits are not zero');
      break;
    }
    case TAG.NULL:
      if (content.length !== 0) bad('a NULL with content');
      break;
    case TAG.OID:
      if (content.length === 0) bad('an empty OBJECT IDENTIFIER');
      if (((content[content.length - 1] as number) & 0x80) !== 0) bad('a truncated OBJECT IDENTIFIER');
      for (let i = 0; i < content.length; i++) {
        if (content[i] === 0x80 && (i === 0 || ((content[i - 1] as number) & 0x80) === 0)) bad('a non-minimal OBJECT IDENTIFIER arc');
      }
      break;
  }
}

/** Dotted text of an OBJECT IDENTIFIER node (checked by readDer). */
export function oidText(node: DerNode): string {
  if (node.cls !== 0 || node.tag !== TAG.OID) throw new DerError('expected an OBJECT IDENTIFIER');
  const arcs: bigint[] = [];
  let value = 0n;
  for (const byte of node.content) {
    value = (value << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0n;
    }
  }
  const first = arcs[0] ?? 0n;
  const head = first < 40n ? [0n, first] : first < 80n ? [1n, first - 40n] : [2n, first - 80n];
  return [...head, ...arcs.slice(1)].join('.');
}

/** True when NODE is the universal element TAG. */
export function isUniversal(node: DerNode | undefined, tag: number): node is DerNode {
  return node !== undefined && node.cls === 0 && node.tag === tag;
}

/** The children of a universal SEQUENCE or SET; throws naming WHAT otherwise. */
export function elementsOf(node: DerNode | undefined, tag: typeof TAG.SEQUENCE | typeof TAG.SET, what: string): readonly DerNode[] {
  if (!isUniversal(node, tag) || node.children === undefined) throw new DerError(`${what} is not a ${tag === TAG.SET ? 'SET' : 'SEQUENCE'}`);
  return node.children;
}
