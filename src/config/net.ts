/**
 * IP and CIDR helpers with Go's net package semantics (what kubeadm's validation uses):
 * addresses as bigints so IPv4 and IPv6 share one code path. Parsing is strict: dotted-quad IPv4
 * (no "10.1" shorthands that ipaddr.js would accept) and IPv6 without zone.
 */
import ipaddr from 'ipaddr.js';

type Family = 4 | 6;

export interface Ip {
  readonly family: Family;
  readonly value: bigint;
}

export interface Cidr {
  readonly family: Family;
  readonly prefix: number;
  /** The network address (host bits cleared). */
  readonly network: bigint;
  readonly text: string;
}

const BITS: Readonly<Record<Family, number>> = { 4: 32, 6: 128 };

export function parseIp(text: string): Ip | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return { family: 4, value: toBigint(ipaddr.IPv4.parse(text).toByteArray()) };
  if (text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text)) {
    return { family: 6, value: toBigint(ipaddr.IPv6.parse(text).toByteArray()) };
  }
  return undefined;
}

export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const bits = BITS[ip.family];
  if (prefix > bits) return undefined;
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  return { family: ip.family, prefix, network: ip.value & ~hostMask, text };
}

export function hostBits(c: Cidr): number {
  return BITS[c.family] - c.prefix;
}

/** Number of addresses in the range (bigint: IPv6 ranges do not fit a number). */
export function rangeSize(c: Cidr): bigint {
  return 1n << BigInt(hostBits(c));
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  const prefix = Math.min(a.prefix, b.prefix);
  const shift = BigInt(BITS[a.family] - prefix);
  return a.network >> shift === b.network >> shift;
}

function inRange(ip: Ip, base: bigint, prefix: number): boolean {
  const shift = BigInt(BITS[ip.family] - prefix);
  return ip.value >> shift === base >> shift;
}

/** Go's net.IP.IsGlobalUnicast (private ranges count as global unicast). */
export function isGlobalUnicast(ip: Ip): boolean {
  if (ip.family === 4) {
    return !(ip.value === 0n || ip.value === 0xffffffffn || inRange(ip, 0x7f000000n, 8) || inRange(ip, 0xe0000000n, 4) || inRange(ip, 0xa9fe0000n, 16));
  }
  return !(ip.value === 0n || ip.value === 1n || inRange(ip, 0xffn << 120n, 8) || inRange(ip, 0xfe80n << 112n, 10));
}

export function isLoopback(ip: Ip): boolean {
  return ip.family === 4 ? inRange(ip, 0x7f000000n, 8) : ip.value === 1n;
}

export function isUnspecified(ip: Ip): boolean {
  return ip.value === 0n;
}

/** Go's net.SplitHostPort: "host:port" or "[v6]:port"; returns an error text like Go's. */
export function splitHostPort(hostport: string): { host: string; port: string } | { error: string } {
  const missingPort = { error: `address ${hostport}: missing port in address` };
  const tooMany = { error: `address ${hostport}: too many colons in address` };
  const last = hostport.lastIndexOf(':');
  if (last < 0) return missingPort;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0) return { error: `address ${hostport}: missing ']' in address` };
    if (end + 1 === hostport.length) return missingPort;
    if (end + 1 !== last) return tooMany;
    return { host: hostport.slice(1, end), port: hostport.slice(last + 1) };
  }
  const host = hostport.slice(0, last);
  if (host.includes(':')) return tooMany;
  return { host, port: hostport.slice(last + 1) };
}

/** kubeadm's ParsePort: a decimal number between 1 and 65535. */
export function isValidPort(port: string | number): boolean {
  const text = String(port);
  if (!/^\d+$/.test(text)) return false;
  const n = Number(text);
  return n >= 1 && n <= 65535;
}

export function formatIp(ip: Ip): string {
  const bytes: number[] = [];
  for (let i = (ip.family === 4 ? 4 : 16) - 1; i >= 0; i--) bytes.push(Number((ip.value >> BigInt(i * 8)) & 0xffn));
  return ipaddr.fromByteArray(bytes).toString();
}

/** The n-th address of a range (kubeadm: the 1st is the kubernetes Service, the 10th the DNS Service). */
export function nthAddress(c: Cidr, n: number): Ip {
  return { family: c.family, value: c.network + BigInt(n) };
}

function toBigint(bytes: readonly number[]): bigint {
  return bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
}
