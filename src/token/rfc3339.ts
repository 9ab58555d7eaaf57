/**
 * RFC 3339 as Go's time.RFC3339 prints it: whole seconds, "Z" for a zero offset, otherwise
 * "+hh:mm". kubeadm formats token expirations in the host's local zone, so do we.
 */
export interface Timestamp {
  readonly epochMs: number;
  /** Minutes east of UTC the text was written in. */
  readonly offsetMinutes: number;
}

const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseRfc3339(text: string): Timestamp | undefined {
  const m = RFC3339_RE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as string[];
  const offsetMinutes = zone === 'Z' || zone === 'z' ? 0 : (zone!.startsWith('-') ? -1 : 1) * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6)));
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(utc)) return undefined;
  const fracMs = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  return { epochMs: utc + fracMs - offsetMinutes * 60_000, offsetMinutes };
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
