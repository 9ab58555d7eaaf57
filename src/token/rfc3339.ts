/**
 * RFC 3339 as Go's time package reads and prints it. kubeadm parses token expirations with
 * `time.Parse(time.RFC3339, …)` and formats them with `t.Format(time.RFC3339)` (whole seconds, "Z"
 * for a zero offset, otherwise "+hh:mm") in the host's local zone, so do we.
 */
export interface Timestamp {
  readonly epochMs: number;
  /** Minutes east of UTC the text was written in. */
  readonly offsetMinutes: number;
}

/**
 * The layout "2006-01-02T15:04:05Z07:00" as Go's general time.parse matches it (Go's RFC3339 fast
 * path accepts a subset of it and falls back to it): a 4-digit year, 2-digit month, day, minute and
 * second, a 1- or 2-digit hour, an optional fraction after "." or "," of any length, then "Z" or a
 * "±hh:mm" offset. "T" and "Z" are upper case only; nothing may follow.
 */
const GO_RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses like Go's `time.Parse(time.RFC3339, text)`, or undefined where Go returns an error.
 * Ranges are Go's: month 1–12, day within its month (leap years included), hour < 24, minute < 60,
 * second < 60 (no leap second), offset hours ≤ 24 and minutes ≤ 60 (Go accepts "+24:00"). Years
 * 0000–9999 are kept as written (JavaScript's Date.UTC would turn year 50 into 1950). Fractions are
 * truncated to the millisecond (Go keeps nanoseconds; tokens are compared to the second).
 */
export function parseRfc3339(text: string): Timestamp | undefined {
  const m = GO_RFC3339_RE.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const [fraction, sign, offsetHours, offsetMins] = [m[7], m[8], Number(m[9] ?? 0), Number(m[10] ?? 0)];
  if (offsetHours > 24 || offsetMins > 60) return undefined;
  const offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  const fractionMs = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years 0–99 as they are
  date.setUTCHours(hour, minute, second, fractionMs);
  return { epochMs: date.getTime() - offsetMinutes * 60_000, offsetMinutes: offsetMinutes === 0 ? 0 : offsetMinutes };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Formats an instant at a given offset (Go's `t.Format(time.RFC3339)`). */
export function formatRfc3339(epochMs: number, offsetMinutes: number): string {
  const shifted = new Date(Math.floor(epochMs / 1000) * 1000 + offsetMinutes * 60_000);
  const date = `${pad(shifted.getUTCFullYear(), 4)}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}`;
  const time = `${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}`;
  return `${date}T${time}${zoneText(offsetMinutes)}`;
}

/** Minutes east of UTC at an instant; the host's zone by default, fixed zones in tests. */
export type ZoneOffset = (date: Date) => number;
export const hostZone: ZoneOffset = (date) => -date.getTimezoneOffset();

/** The local zone at that instant (what Go's time.Now().Add(ttl).Format does). */
export function formatRfc3339Local(date: Date, zone: ZoneOffset = hostZone): string {
  return formatRfc3339(date.getTime(), zone(date));
}

function zoneText(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'Z';
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}
