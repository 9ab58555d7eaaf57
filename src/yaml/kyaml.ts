/**
 * KYAML, Kubernetes' dialect of YAML (KEP-5295), as kubeadm ≥ 1.35 prints it for `-o kyaml`
 * through cli-runtime's KYAMLPrinter: the object is marshalled to JSON and re-rendered by
 * sigs.k8s.io/yaml's kyaml encoder (kyaml/kyaml.go). This is a port of that encoder for JSON
 * values (the only input the printer gives it), so the bytes are the same:
 *
 * - every document starts with a `---` line and ends with a newline;
 * - maps are `{` … `}` with one `key: value,` per line, two spaces of indent per level; lists
 *   are `[` … `]`, "cuddled" (`[{` … `}, {` … `}]`) when every item is a map or a list;
 * - keys are bare unless a YAML parser could read them as something else (or they hold other
 *   than letters, digits, `_`, and interior `-` `.` `/`), then double-quoted;
 * - string values are always double-quoted with Go's escapes; a string with newlines is written
 *   with YAML line folding (`"\` newline, each line indented one level deeper, `\n\` at its end);
 * - numbers, booleans and null are written as JSON has them.
 *
 * There is no npm package for KYAML (docs/decisions.md); it is small and fully specified by the
 * encoder, whose behaviour the tests pin with literal outputs.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Renders values as a KYAML stream, one document per value. */
export function toKyamlDocuments(values: readonly unknown[]): string {
  return values.map(toKyaml).join('');
}

/** Renders one value as a KYAML document (header line, body, trailing newline). */
export function toKyaml(value: unknown): string {
  const json = JSON.parse(JSON.stringify(value) ?? 'null') as Json;
  return `---\n${render(json, 0)}\n`;
}

const indent = (level: number): string => '  '.repeat(level);

function render(value: Json, level: number): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') return quote(value, level + 1);
  if (Array.isArray(value)) return renderList(value, level);
  return renderMap(value, level);
}

function renderMap(map: { [key: string]: Json }, level: number): string {
  const keys = Object.keys(map);
  if (keys.length === 0) return '{}';
  let out = '{\n';
  for (const key of keys) {
    out += `${indent(level + 1)}${needsQuotes(key) ? quote(key, level + 1, true) : key}: ${render(map[key] as Json, level + 1)},\n`;
  }
  return `${out}${indent(level)}}`;
}

function renderList(list: Json[], level: number): string {
  if (list.length === 0) return '[]';
  if (list.every((item) => item !== null && typeof item === 'object')) {
    return `[${list.map((item) => render(item, level)).join(', ')}]`;
  }
  let out = `[\n${indent(level)}`;
  for (const item of list) out += `${indent(1)}${render(item, level + 1)},\n${indent(level)}`;
  return `${out}]`;
}

const FOLD = '\\\n';

/** kyaml's renderString without lazy quoting: always double-quoted; `compact` for keys (no folding). */
function quote(value: string, level: number, compact = false): string {
  const multi = value.includes('\n');
  const newline = compact ? '\\n' : `\\n${FOLD}`;
  let buf = '"';
  if (multi && !compact) buf += FOLD;
  for (const ch of value) {
    if (buf.endsWith('\n')) {
      buf += indent(level);
      // Leading whitespace of a folded line is escaped so that YAML keeps it.
      buf += /\s/u.test(ch) && ch !== '\n' ? '\\' : ' ';
    }
    buf += escapeRune(ch, newline);
  }
  if (multi && !compact) {
    if (!buf.endsWith('\n')) buf += FOLD;
    buf += indent(level);
  }
  return `${buf}"`;
}

const ESCAPES: Record<string, string> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\0': '\\0', '\x1b': '\\e',
  '\x85': '\\N', '\xa0': '\\_', '\u2028': '\\L', '\u2029': '\\P',
};

function escapeRune(ch: string, newline: string): string {
  if (ch === '"' || ch === '\\') return `\\${ch}`;
  if (ch === '\n') return newline;
  if (isPrint(ch)) return ch;
  const escaped = ESCAPES[ch];
  if (escaped !== undefined) return escaped;
  const code = ch.codePointAt(0) ?? 0xfffd;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrint(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** kyaml's needsQuotes, for keys. */
export function needsQuotes(s: string): boolean {
  if (s === '' || isTypeAmbiguous(s)) return true;
  const runes = [...s];
  return runes.some((r, i) => {
    if (/^[\p{L}\p{N}_]$/u.test(r)) return false;
    return !(i > 0 && i < runes.length - 1 && (r === '-' || r === '.' || r === '/'));
  });
}

const SEXAGESIMAL = /^[+-]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/;
const GO_BOOLS = ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'];
const TIMESTAMPS = [
  /^\d{4}-\d{1,2}-\d{1,2}[Tt]\d{1,2}:\d{1,2}:\d{1,2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/,
  /^\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{1,2}:\d{1,2}(\.\d{1,9})?$/,
  /^\d{4}-\d{1,2}-\d{1,2}$/,
];

/** kyaml's isTypeAmbiguous: would a YAML parser read the bare word as other than a string? */
function isTypeAmbiguous(s: string): boolean {
  const lower = s.toLowerCase();
  if (s.length <= 5 && ['null', '~', '', 'true', 'y', 'yes', 'on', 'false', 'n', 'no', 'off', '.inf', '-.inf', '+.inf', '.nan'].includes(lower)) return true;
  if (GO_BOOLS.includes(s)) return true;
  const plain = s.replace(/_/g, '');
  // strconv.ParseInt(s, 0, 64) and ParseFloat(s, 64), underscores stripped.
  if (/^[+-]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[0-9]+)$/.test(plain) && withinInt64(plain)) return true;
  if (/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i.test(plain) && Number.isFinite(Number(plain.replace(/^\+/, ''))) ) return true;
  if (/^[+-]?(inf|infinity|nan)$/i.test(plain)) return true;
  if (/^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+$/.test(plain)) return true;
  if (SEXAGESIMAL.test(s)) return true;
  return TIMESTAMPS.some((r) => r.test(s)) && validDate(s);
}

function withinInt64(text: string): boolean {
  const negative = text.startsWith('-');
  const body = text.replace(/^[+-]/, '');
  let value: bigint;
  if (/^0[xX]/.test(body)) value = BigInt(body);
  else if (/^0[bB]/.test(body)) value = BigInt(body);
  else if (/^0[oO]/.test(body)) value = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) value = BigInt(`0o${body.slice(1)}`);
  else value = BigInt(body);
  return negative ? value <= 9223372036854775808n : value <= 9223372036854775807n;
}

/** Go's time.Parse checks the month and the day of the month. */
function validDate(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(s);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
