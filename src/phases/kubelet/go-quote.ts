/**
 * Go's strconv.Quote (fmt's %q for strings), which kubeadm uses for the value in
 * kubeadm-flags.env: double quotes, backslash escapes for `"` and `\`, C-style escapes for
 * control characters, \u/\U for other non-printable runes; printable Unicode kept as is.
 */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const SHORT: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (PRINTABLE.test(ch)) out += ch;
    else if (SHORT[ch] !== undefined) out += SHORT[ch];
    else out += escapeRune(ch.codePointAt(0) ?? 0);
  }
  return `${out}"`;
}

function escapeRune(c: number): string {
  const hex = c.toString(16);
  if (c < 0x20 || c === 0x7f) return `\\x${hex.padStart(2, '0')}`;
  if (c < 0x10000) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}
