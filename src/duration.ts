/**
 * Go `time.Duration` text ("24h0m0s", "4m0s", "1h", "0", "1.5s", "300ms"): kubeadm's config API
 * stores every duration in this form (metav1.Duration), so tsadm reads and writes it the same way.
 * Internally durations are milliseconds (possibly fractional for sub-millisecond inputs).
 */

/** Nanoseconds per unit, as Go's time.ParseDuration knows them. */
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const NS_PER_MS = 1_000_000n;

/** Go's ParseDuration, returning milliseconds; throws an Error worded like Go's on bad input. */
export function parseDuration(text: string): number {
  return Number(parseDurationNs(text)) / Number(NS_PER_MS);
}

/** Like parseDuration, but returns the error message instead of throwing. */
export function checkDuration(text: string): string | undefined {
  try {
    parseDurationNs(text);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function parseDurationNs(text: string): bigint {
  const bad = (why: string): Error => new Error(`time: ${why} in duration "${text}"`);
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  // Go accepts a bare "0" (and "-0"/"+0") without a unit, and nothing else without one.
  if (s === '0') return 0n;
  if (s === '') throw new Error(`time: invalid duration "${text}"`);
  let total = 0n;
  const item = /^(\d*)(?:\.(\d*))?([^\d.]*)/;
  while (s !== '') {
    const m = item.exec(s);
    const [whole, int = '', frac, unit = ''] = m ?? [];
    if (!m || whole === undefined || (int === '' && (frac === undefined || frac === ''))) {
      throw new Error(`time: invalid duration "${text}"`);
    }
    if (unit === '') throw bad('missing unit');
    const perUnit = UNIT_NS[unit];
    if (perUnit === undefined) throw bad(`unknown unit "${unit}"`);
    const fracDigits = frac ?? '';
    const scale = 10n ** BigInt(fracDigits.length);
    // Truncate toward zero like Go does for fractions finer than a nanosecond.
    total += BigInt(int === '' ? '0' : int) * perUnit + (BigInt(fracDigits === '' ? '0' : fracDigits) * perUnit) / scale;
    s = s.slice(whole.length);
  }
  // Go's Duration is an int64 of nanoseconds.
  if (total > 9_223_372_036_854_775_807n) throw new Error(`time: invalid duration "${text}"`);
  return negative ? -total : total;
}

/** Go's Duration.String for a number of milliseconds (e.g. 86_400_000 → "24h0m0s", 0 → "0s"). */
export function formatDuration(ms: number): string {
  let ns = BigInt(Math.round(ms * 1_000_000));
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  if (ns < 0n) ns = -ns;
  if (ns < 1_000_000_000n) {
    // Sub-second values use the largest unit that keeps an integer part (Go: ns, µs, ms).
    if (ns < 1_000n) return `${sign}${ns}ns`;
    if (ns < 1_000_000n) return `${sign}${fraction(ns, 1_000n)}µs`;
    return `${sign}${fraction(ns, 1_000_000n)}ms`;
  }
  const hours = ns / 3_600_000_000_000n;
  const minutes = (ns / 60_000_000_000n) % 60n;
  const seconds = fraction(ns % 60_000_000_000n, 1_000_000_000n);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** value/unit with the remainder as a decimal fraction, trailing zeros trimmed ("1.5", "30"). */
function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return whole.toString();
  const digits = unit.toString().length - 1;
  return `${whole}.${rest.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}
