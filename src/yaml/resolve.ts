/**
 * Which strings gopkg.in/yaml.v2 (v2.2.8, what kubeadm 1.20 vendors) must quote: a string is
 * written plain only if reading it back plain would give a string again (resolve.go), and it is
 * not a YAML 1.1 base-60 float. Everything here is a port of that decision, nothing more.
 */

const RESOLVE_MAP = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
  // "<<" (merge key) is in yaml.v2's map too, but "<" has no resolve hint, so it stays a string.
]);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
/** strconv.ParseInt/ParseUint with base 0 (sign, 0x/0o/0b prefixes, leading-zero octal). */
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
/** strconv.ParseFloat for inputs starting with '.' (the only ones resolve hands it directly). */
const GO_DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

/** True when yaml.v2 would resolve `s`, written plain, to something other than a string. */
function resolvesToNonString(s: string): boolean {
  if (RESOLVE_MAP.has(s)) return true;
  const c = s[0];
  if (c === undefined) return true;
  if (c === '.') return GO_DOT_FLOAT.test(s);
  if (c === '+' || c === '-' || (c >= '0' && c <= '9')) {
    if (isTimestamp(s)) return true;
    const plain = s.replaceAll('_', '');
    if (GO_INT.test(plain)) return true;
    if (YAML_STYLE_FLOAT.test(plain)) return true;
    return /^-0b[01]+$/.test(plain);
  }
  return false;
}

function isBase60Float(s: string): boolean {
  const c = s[0];
  if (c === undefined) return false;
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}

/** yaml.v2 encoder: may this string be emitted without quotes (before the emitter's own checks)? */
export function canUsePlain(s: string): boolean {
  return !resolvesToNonString(s) && !isBase60Float(s);
}

// yaml.v2 parseTimestamp: "YYYY-" prefix, then Go time.Parse with these layouts.
const TS_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const TS_SPACE = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?$/;
const TS_T = /^(\d{4})-(\d{1,2})-(\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function isTimestamp(s: string): boolean {
  const m = TS_T.exec(s) ?? TS_SPACE.exec(s) ?? TS_DATE.exec(s);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? 0 : Number(v)));
  if (month === undefined || day === undefined || year === undefined) return false;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return false;
  const zone = m[8];
  if (zone && zone !== 'Z') {
    const hh = Number(zone.slice(1, 3));
    const mm = Number(zone.slice(4, 6));
    if (hh > 23 || mm > 59) return false;
  }
  return true;
}
