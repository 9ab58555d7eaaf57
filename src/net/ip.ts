/**
 * IP addresses and CIDRs as Go's net package sees them — the rules kubeadm's validation,
 * certificates and defaults run on. ipaddr.js turns text into bytes; the Go rules around it are
 * kept here, in one place:
 * - net.ParseIP (netip.ParseAddr since Go 1.22): strict dotted-quad IPv4 (no "127.1" shorthand,
 *   no leading zeros, which Go rejects since 1.17), IPv6 groups of hex digits up to 0xffff (leading
 *   zeros allowed, "00001::" is "1::"), at most one
 *   "::" standing for at least one group, an embedded IPv4 only as the last 32 bits, no zone.
 * - IPv4-mapped IPv6 (::ffff:a.b.c.d) is an IPv4 address (net.IP.To4), printed dotted.
 * - net.ParseCIDR: the mask length belongs to the text form (32 for dotted quads, 128 for any
 *   IPv6 text, mapped included); the prefix is decimal digits (leading zeros allowed).
 * - GetIndexedIP (k8s.io/utils/net, kubeadm's service VIP and DNS IP): network address plus n
 *   in 16-byte space, refused when the result leaves the subnet.
 * Addresses are bigints so IPv4 and IPv6 share one code path.
 */
import ipaddr from 'ipaddr.js';

type Family = 4 | 6;

/** An address as net.IP.To4 sees it: family 4 holds a 32-bit value (IPv4-mapped included). */
export interface Ip {
  readonly family: Family;
  readonly value: bigint;
}

export interface Cidr {
  /** The text as given. */
  readonly text: string;
  /** The family of the network address (net.IP.To4 rule: a mapped network is IPv4). */
  readonly family: Family;
  /** The mask's length in bits: 32 for a dotted-quad address, 128 for IPv6 text (net.IPMask). */
  readonly bits: 32 | 128;
  /** The mask's leading ones. */
  readonly prefix: number;
  /** The network address (host bits cleared), in the mask's bit space. */
  readonly network: bigint;
}

const WIDTH: Readonly<Record<Family, number>> = { 4: 32, 6: 128 };
const V4_MAPPED_PREFIX = 0xffffn << 32n;
const ALL_128 = (1n << 128n) - 1n;

const V4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const V4 = new RegExp(`^${V4_OCTET}(?:\\.${V4_OCTET}){3}$`);
const HEX_GROUP = /^[0-9a-fA-F]+$/;

/** net.ParseIP: undefined where Go returns nil. */
export function parseIp(text: string): Ip | undefined {
  if (V4.test(text)) return { family: 4, value: toBigint(ipaddr.IPv4.parse(text).toByteArray()) };
  const v6 = goIPv6Text(text);
  if (v6 === undefined) return undefined;
  return fromValue128(toBigint(ipaddr.IPv6.parse(v6).toByteArray()));
}

/** The canonical text of an IP (net.ParseIP(s).String()), or undefined when s is not an IP. */
export function canonicalIp(text: string): string | undefined {
  const ip = parseIp(text);
  return ip && formatIp(ip);
}

/** net.IP.String(): dotted quad for IPv4 (and mapped), RFC 5952 for IPv6 (lower case, longest zero run as "::"). */
export function formatIp(ip: Ip): string {
  return ipaddr.fromByteArray([...toBytes(ip)]).toString();
}

/** 4 bytes for IPv4 (mapped included), 16 for IPv6: what crypto/x509 writes into an iPAddress SAN. */
export function ipToBytes(ip: Ip): Uint8Array {
  return toBytes(ip);
}

/** An address from 4 or 16 bytes (a certificate's iPAddress SAN); 16 bytes of a mapped address give IPv4. */
export function ipFromBytes(bytes: Uint8Array): Ip | undefined {
  if (bytes.length === 4) return { family: 4, value: toBigint([...bytes]) };
  if (bytes.length === 16) return fromValue128(toBigint([...bytes]));
  return undefined;
}

/** net.ParseCIDR: undefined where Go returns an error. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addrText = text.slice(0, slash);
  const maskText = text.slice(slash + 1);
  const ip = parseIp(addrText);
  // dtoi: at least one decimal digit and nothing else; leading zeros are fine.
  if (!ip || !/^\d{1,7}$/.test(maskText)) return undefined;
  const bits = V4.test(addrText) ? 32 : 128;
  const prefix = Number(maskText);
  if (prefix > bits) return undefined;
  const value = bits === 32 ? ip.value : to128(ip);
  const network = value & ~((1n << BigInt(bits - prefix)) - 1n);
  const family: Family = bits === 32 || isMapped(network) ? 4 : 6;
  return { text, family, bits, prefix, network };
}

/** The number of host bits (net.IPMask.Size: bits − ones). */
export function hostBits(c: Cidr): number {
  return c.bits - c.prefix;
}

/** Number of addresses in the range (bigint: IPv6 ranges do not fit a number). */
export function rangeSize(c: Cidr): bigint {
  return 1n << BigInt(hostBits(c));
}

/** net.IPNet.Contains: the address and the network must be of one family (To4 rule). */
export function cidrContains(c: Cidr, ip: Ip): boolean {
  const { family, prefix, network } = familyView(c);
  if (ip.family !== family) return false;
  const shift = BigInt(WIDTH[family] - prefix);
  return ip.value >> shift === network >> shift;
}

/** Whether two ranges share an address (one contains the other's network address). */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  const va = familyView(a);
  const vb = familyView(b);
  if (va.family !== vb.family) return false;
  return cidrContains(a, { family: vb.family, value: vb.network }) || cidrContains(b, { family: va.family, value: va.network });
}

/**
 * kubeadm's GetIndexedIP (k8s.io/utils/net): the network address plus `index`, computed on the
 * 16-byte form; undefined when the result is not in the subnet ("subnet too small"), e.g. index 1
 * of a /32 or anything past the last address.
 */
export function indexedIp(c: Cidr, index: number): Ip | undefined {
  if (!Number.isSafeInteger(index) || index < 0) return undefined;
  const base = c.bits === 32 ? V4_MAPPED_PREFIX | c.network : c.network;
  const ip = fromValue128((base + BigInt(index)) & ALL_128);
  return cidrContains(c, ip) ? ip : undefined;
}

/** Go's net.IP.IsGlobalUnicast (private ranges count as global unicast). */
export function isGlobalUnicast(ip: Ip): boolean {
  if (ip.family === 4) {
    return !(ip.value === 0n || ip.value === 0xffffffffn || inRange(ip, 0x7f000000n, 8) || inRange(ip, 0xe0000000n, 4) || inRange(ip, 0xa9fe0000n, 16));
  }
  return !(ip.value === 0n || ip.value === 1n || inRange(ip, 0xffn << 120n, 8) || inRange(ip, 0xfe80n << 112n, 10));
}

/** net.IP.IsLoopback: 127.0.0.0/8 (mapped included) or ::1. */
export function isLoopback(ip: Ip): boolean {
  return ip.family === 4 ? inRange(ip, 0x7f000000n, 8) : ip.value === 1n;
}

/** net.IP.IsUnspecified: 0.0.0.0 or ::. */
export function isUnspecified(ip: Ip): boolean {
  return ip.value === 0n;
}

/**
 * IPv6 text as netip.ParseAddr accepts it, without zone (net.ParseIP refuses zones), rewritten
 * in plain hex groups so ipaddr.js (which has its own, different rules: zones, group length,
 * embedded IPv4) reads it as Go does; undefined where Go fails.
 */
function goIPv6Text(text: string): string | undefined {
  if (!text.includes(':') || text.includes('%')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const ellipsis = halves.length === 2;
  const parts = halves.map((h) => (h === '' ? [] : h.split(':')));
  const groups = parts.flat();
  let count = 0;
  for (const [i, g] of groups.entries()) {
    if (HEX_GROUP.test(g) && parseInt(g, 16) <= 0xffff) count += 1;
    // An embedded IPv4 address ends the text: the last group, not followed by "::".
    else if (i === groups.length - 1 && text.endsWith(g) && V4.test(g)) count += 2;
    else return undefined;
  }
  // Without "::" all 8 groups are written; "::" must stand for at least one zero group.
  if (ellipsis ? count > 7 : count !== 8) return undefined;
  return parts.map((p) => p.map(hexGroups).join(':')).join('::');
}

/**
 * A group as plain hex for ipaddr.js: leading zeros dropped, an embedded IPv4 address as two
 * groups (ipaddr.js 2.5 reads "::a.b.c.d" as ::ffff:a.b.c.d, where Go keeps ::a0b:c0d).
 */
function hexGroups(group: string): string {
  if (HEX_GROUP.test(group)) return parseInt(group, 16).toString(16);
  const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** The address as net.IP.To4 sees a 16-byte value: mapped addresses become IPv4. */
function fromValue128(value: bigint): Ip {
  return isMapped(value) ? { family: 4, value: value & 0xffffffffn } : { family: 6, value };
}

function isMapped(value128: bigint): boolean {
  return value128 >> 32n === 0xffffn;
}

function to128(ip: Ip): bigint {
  return ip.family === 4 ? V4_MAPPED_PREFIX | ip.value : ip.value;
}

/**
 * The network in its To4 family, as net.IPNet's networkNumberAndMask does it: a mapped network
 * under a 128-bit mask keeps the mask's last 32 bits (prefix − 96; a mapped network survives
 * masking only with prefix ≥ 96).
 */
function familyView(c: Cidr): { family: Family; prefix: number; network: bigint } {
  if (c.bits === 128 && c.family === 4) return { family: 4, prefix: c.prefix - 96, network: c.network & 0xffffffffn };
  return { family: c.family, prefix: c.prefix, network: c.network };
}

function inRange(ip: Ip, base: bigint, prefix: number): boolean {
  const shift = BigInt(WIDTH[ip.family] - prefix);
  return ip.value >> shift === base >> shift;
}

function toBytes(ip: Ip): Uint8Array {
  const n = WIDTH[ip.family] / 8;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Number((ip.value >> BigInt((n - 1 - i) * 8)) & 0xffn);
  return out;
}

function toBigint(bytes: readonly number[]): bigint {
  return bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
}
