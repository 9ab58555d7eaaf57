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
