/**
 * IP addresses as Go's net package sees them: strict dotted-quad IPv4 (no "127.1", no leading
 * zeros), IPv6 without zones, IPv4-mapped IPv6 treated as IPv4; printed like net.IP.String().
 */
import ipaddr from 'ipaddr.js';

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** The canonical text of an IP (net.ParseIP(s).String()), or undefined when s is not an IP. */
export function normalizeIP(s: string): string | undefined {
  if (V4.test(s)) return s;
  if (!s.includes(':') || s.includes('%') || !ipaddr.IPv6.isValid(s)) return undefined;
  const v6 = ipaddr.IPv6.parse(s);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toString();
}


/** 4 bytes for IPv4, 16 for IPv6 (x509 SAN encoding). */
export function ipToBytes(s: string): Buffer {
  const n = normalizeIP(s);
  if (n === undefined) throw new TypeError(`not an IP address: ${s}`);
  return Buffer.from(ipaddr.parse(n).toByteArray());
}

export function ipFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 4 && bytes.length !== 16) return `<invalid IP ${Buffer.from(bytes).toString('hex')}>`;
  const addr = ipaddr.fromByteArray([...bytes]);
  return normalizeIP(addr.toString()) ?? addr.toString();
}

/**
 * The first address of a CIDR plus `index` (kubeadm's GetIndexedIP: 10.96.0.0/12 → 10.96.0.1);
 * undefined if the CIDR is invalid or too small.
 */
export function indexedIP(cidr: string, index: number): string | undefined {
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(cidr.trim());
  } catch {
    return undefined;
  }
  const [addr, prefix] = parsed;
  const bytes = addr.toByteArray();
  const width = bytes.length * 8;
  if (BigInt(index) >= 1n << BigInt(width - prefix)) return undefined;
  let value = bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - prefix)) - 1n);
  value = (value & mask) + BigInt(index);
  const out: number[] = [];
  for (let i = bytes.length - 1; i >= 0; i--) out[i] = Number((value >> BigInt((bytes.length - 1 - i) * 8)) & 0xffn);
  return ipFromBytes(Uint8Array.from(out));
}
