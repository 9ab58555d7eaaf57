/**
 * Go's strconv.Quote (fmt's %q for strings): double quotes, backslash escapes for `"` and `\`,
 * C-style escapes for control characters, \x/\u/\U for other non-printable runes, printable Unicode
 * kept as is. kubeadm quotes the value of kubeadm-flags.env this way, and tsadm shows untrusted
 * values in messages this way (src/log/escape.ts), so the reader sees exactly which bytes were there.
 */

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const SHORT: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/** S as Go's %q prints it: in double quotes, escaped. */
export function goQuote(s: string): string {
  return `"${goEscape(s)}"`;
}

/** The inside of goQuote(S). */
export function goEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (PRINTABLE.test(ch)) out += ch;
    else out += goEscapeRune(ch);
  }
  return out;
}

/** How Go's %q writes one non-printable character CH: \n and the other short escapes, else \xNN, \uNNNN or \UNNNNNNNN. */
export function goEscapeRune(ch: string): string {
  const short = SHORT[ch];
  if (short !== undefined) return short;
  const c = ch.codePointAt(0) ?? 0;
  const hex = c.toString(16);
  if (c < 0x20 || c === 0x7f) return `\\x${hex.padStart(2, '0')}`;
  if (c < 0x10000) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}
