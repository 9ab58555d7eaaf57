/** PEM armour, written the way Go's encoding/pem writes it (64-column base64, trailing newline). */

export interface PemBlock {
  readonly type: string;
  readonly der: Buffer;
  /** RFC 1421 "Proc-Type: 4,ENCRYPTED" header present (legacy OpenSSL encrypted key). */
  readonly encrypted: boolean;
}

export function encodePem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** Every PEM block in the text, in order; text outside blocks is ignored (as Go does). */
export function decodePem(text: string | Uint8Array): PemBlock[] {
  const s = typeof text === 'string' ? text : Buffer.from(text).toString('latin1');
  const out: PemBlock[] = [];
  for (const m of s.matchAll(BLOCK)) {
    // RFC 1421 headers ("Proc-Type: …") precede a blank line; encrypted keys are refused by the caller.
    const lines = (m[2] ?? '').split(/\r?\n/);
    const headers = lines.filter((l) => l.includes(':'));
    const body = lines.filter((l) => l.trim() !== '' && !l.includes(':')).join('');
    const encrypted = headers.some((h) => /^Proc-Type:.*ENCRYPTED/i.test(h.trim()));
    out.push({ type: m[1] ?? '', der: Buffer.from(body, 'base64'), encrypted });
  }
  return out;
}

/** Why decodeSinglePem refused its input: one line, for a denial message. */
class PemError extends Error {}

const BASE64_LINE = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The one PEM block of TEXT, read strictly, for input tsadm decides on: exactly one block whose
 * type is one of TYPES, no RFC 1421 headers, base64 of the standard alphabet with correct padding
 * (and zero padding bits), broken only at line ends (\n or \r\n), and nothing but blank lines
 * before it and whitespace after it. decodePem skips what it cannot read, as Node's base64
 * decoder does; Go's encoding/pem instead skips a block it cannot read and takes the next one, so
 * two readers would see different requests in the same bytes. Here every such text is refused.
 */
export function decodeSinglePem(text: string | Uint8Array, types: readonly string[]): { readonly type: string; readonly der: Buffer } {
  const s = typeof text === 'string' ? text : Buffer.from(text).toString('latin1');
  // Go's pem.Decode takes a BEGIN line only at the start of a line: only blank lines may precede it.
  const lines = s.replace(/^(\r?\n)+/, '').split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const begin = /^-----BEGIN ([^-\r\n]*)-----$/.exec(lines[0] ?? '');
  if (!begin) throw new PemError(s.includes('-----BEGIN ') ? 'text before the PEM block' : 'no PEM block');
  const type = begin[1] ?? '';
  if (!types.includes(type)) throw new PemError(`PEM block type "${type}" is not ${types.map((t) => `"${t}"`).join(' or ')}`);
  const endAt = lines.indexOf(`-----END ${type}-----`);
  if (endAt < 0) throw new PemError(`no "-----END ${type}-----" line`);
  const body = lines.slice(1, endAt);
  if (body.some((l) => l.includes(':'))) throw new PemError('PEM headers are not allowed in the block');
  if (body.length === 0) throw new PemError('an empty PEM block');
  for (const [i, line] of body.entries()) {
    if (line === '') throw new PemError('a blank line inside the PEM block');
    if (!BASE64_LINE.test(line)) throw new PemError('invalid base64 in the PEM block (a character outside the base64 alphabet)');
    if (line.includes('=') && i !== body.length - 1) throw new PemError('invalid base64 in the PEM block (padding before the last line)');
  }
  const b64 = body.join('');
  if (b64.length % 4 !== 0) throw new PemError('invalid base64 in the PEM block (its length is not a multiple of 4)');
  const der = Buffer.from(b64, 'base64');
  // Non-zero padding bits (or stray '=') decode silently in Node: the canonical re-encoding tells.
  if (der.toString('base64') !== b64) throw new PemError('invalid base64 in the PEM block (not the canonical encoding of its bytes)');
  const after = lines.slice(endAt + 1).join('\n');
  if (after.trim() !== '') throw new PemError(after.includes('-----BEGIN ') ? 'a second PEM block after the first' : 'text after the PEM block');
  return { type, der };
}
