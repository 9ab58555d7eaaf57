/**
 * Untrusted text made safe to print. A value from a request, a Node or a file (a CSR's SAN, a
 * username, a subject) can hold a newline, ESC or a bidi override: printed raw, it forges a log line
 * ("\n[csr] Approving …"), clears the screen or reorders what the reader sees. Pure.
 *
 * Two depths (docs/safety.md, "Output of untrusted values"):
 * - `quoted` / `escaped` where such a value is put into a message: Go's %q (strconv.Quote), so the
 *   reader sees exactly which bytes were there (`\n`, `\x1b`, `\u202e`);
 * - `neutralised` in the reporters, the last line of defence for whatever a message still carries:
 *   every control character except the newline and tab tsadm's own lines use.
 */
import { goEscape, goEscapeRune, goQuote } from '../util/go-quote.js';

/** S as the inside of Go's %q: `"` and `\` escaped, C-style escapes for controls, \x/\u/\U for other non-printable runes. */
export function escaped(s: string): string {
  return goEscape(s);
}

/** S as Go's %q prints it: in double quotes, escaped. */
export function quoted(s: string): string {
  return goQuote(s);
}

/**
 * C0 controls other than tab and newline, DEL, C1 controls (U+0080–U+009F, which some terminals
 * take as CSI), the bidi embeddings, overrides and isolates, and the line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** TEXT with every character a terminal would act on (other than newline and tab) shown escaped, as `escaped` would. */
export function neutralised(text: string): string {
  return text.replace(UNSAFE, goEscapeRune);
}
