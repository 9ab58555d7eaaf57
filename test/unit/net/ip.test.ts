/**
 * Expected values are Go's: net.ParseIP / netip.ParseAddr, net.IP.String, net.ParseCIDR,
 * IPNet.Mask.Size and k8s.io/utils/net GetIndexedIP, as a Go program printed them.
 */
import {
  canonicalIp, cidrContains, cidrsOverlap, formatIp, hostBits, indexedIp, ipFromBytes, ipToBytes, isGlobalUnicast, isLoopback,
  isUnspecified, parseCidr, parseIp, rangeSize, type Cidr, type Ip,
} from '../../../src/net/ip.js';

const ip = (text: string): Ip => {
  const parsed = parseIp(text);
  if (parsed === undefined) throw new Error(`test input ${text} is not an IP`);
  return parsed;
};
const cidr = (text: string): Cidr => {
  const parsed = parseCidr(text);
  if (parsed === undefined) throw new Error(`test input ${text} is not a CIDR`);
  return parsed;
};

describe('parseIp / formatIp: net.ParseIP(s).String()', () => {
  test.each([
    ['10.0.0.5', '10.0.0.5', 4],
    ['::1', '::1', 6],
    ['0:0:0:0:0:0:0:1', '::1', 6],
    ['FD00::10', 'fd00::10', 6],
    ['::', '::', 6],
    // IPv4-mapped IPv6 is IPv4 (To4), in either spelling.
    ['::ffff:10.1.2.3', '10.1.2.3', 4],
    ['::FFFF:0a01:0203', '10.1.2.3', 4],
    // IPv4-compatible (no ffff) stays IPv6.
    ['::10.1.2.3', '::a01:203', 6],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1', 6],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1', 6],
    // The longest zero run is compressed, and a single zero group is not.
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3', 6],
    ['1::2:0:0:3', '1::2:0:0:3', 6],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8', 6],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304', 6],
    // Go limits a group by value (≤ 0xffff), not by digit count.
    ['00001::', '1::', 6],
  ])('%s → %s (IPv%i)', (input, text, family) => {
    const parsed = ip(input);
    expect(formatIp(parsed)).toBe(text);
    expect(parsed.family).toBe(family);
    expect(canonicalIp(input)).toBe(text);
  });

  test.each([
    '127.1', // shorthand
    '010.0.0.1', '1.2.3.04', '::ffff:01.2.3.4', // leading zeros: rejected since Go 1.17
    '1.2.3.256', '12345::',
    'fe80::1%eth0', 'fe80::1%', // zones: ParseIP refuses them
    '1:2:3:4:5:6:7::8', // "::" must stand for at least one group
    '1:2:3:4:5:1.2.3.4', '1.2.3.4::', '::1.2.3.4:5', // embedded IPv4 only as the last 32 bits
    ':::', '1::2::3', 'cp.example.com', '', ' 1.2.3.4', '1.2.3.4:80',
  ])('%j is not an IP', (s) => {
    expect(parseIp(s)).toBeUndefined();
    expect(canonicalIp(s)).toBeUndefined();
  });

  test('SAN bytes: 4 for IPv4 and mapped, 16 for IPv6; 16 mapped bytes read back as IPv4', () => {
    expect([...ipToBytes(ip('::ffff:10.1.2.3'))]).toEqual([10, 1, 2, 3]);
    expect(ipToBytes(ip('fd00::1'))).toHaveLength(16);
    const mapped = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 0, 1]);
    expect(formatIp(ipFromBytes(mapped) as Ip)).toBe('192.168.0.1');
    expect(ipFromBytes(Uint8Array.from([1, 2, 3]))).toBeUndefined();
  });

  test('classification as net.IP.IsLoopback / IsUnspecified / IsGlobalUnicast', () => {
    expect(isLoopback(ip('127.0.0.2'))).toBe(true);
    expect(isLoopback(ip('::ffff:127.0.0.1'))).toBe(true);
    expect(isLoopback(ip('::1'))).toBe(true);
    expect(isLoopback(ip('::2'))).toBe(false);
    expect(isUnspecified(ip('0.0.0.0'))).toBe(true);
    expect(isUnspecified(ip('::'))).toBe(true);
    expect(isGlobalUnicast(ip('10.0.0.1'))).toBe(true);
    expect(isGlobalUnicast(ip('169.254.1.1'))).toBe(false);
    expect(isGlobalUnicast(ip('fe80::1'))).toBe(false);
    expect(isGlobalUnicast(ip('ff02::1'))).toBe(false);
    expect(isGlobalUnicast(ip('2001:db8::1'))).toBe(true);
  });
});

describe('parseCidr: net.ParseCIDR and IPNet.Mask.Size', () => {
  test.each([
    ['10.96.0.0/12', 4, 12, 32, '10.96.0.0'],
    ['10.96.5.7/12', 4, 12, 32, '10.96.0.0'],
    ['10.96.0.0/012', 4, 12, 32, '10.96.0.0'], // dtoi: leading zeros in the length are fine
    ['fd00:10:96::/108', 6, 108, 128, 'fd00:10:96::'],
    // The mask length follows the text form: a mapped address gets a 128-bit mask, but the network is IPv4.
    ['::ffff:10.96.0.0/108', 4, 108, 128, '10.96.0.0'],
    // …unless the mask clears the ffff marker: then it is the IPv6 network ::/80.
    ['::ffff:10.96.0.0/80', 6, 80, 128, '::'],
  ])('%s: IPv%i, ones %i of %i, network %s', (text, family, prefix, bits, network) => {
    const c = cidr(text);
    expect({ family: c.family, prefix: c.prefix, bits: c.bits }).toEqual({ family, prefix, bits });
    const net: Ip = c.bits === 32 || c.family === 6 ? { family: c.family, value: c.network } : { family: 4, value: c.network & 0xffffffffn };
    expect(formatIp(net)).toBe(network);
    expect(hostBits(c)).toBe(bits - prefix);
  });

  test.each(['10.96.0.0/33', '10.96.0.0/', '10.96.0.0/+8', '10.96.0.0', 'nonsense', 'fe80::%eth0/64', '010.96.0.0/12', '::/129'])('%j is not a CIDR', (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });

  test('sizes and containment', () => {
    expect(rangeSize(cidr('10.0.0.0/30'))).toBe(4n);
    expect(rangeSize(cidr('fd00::/64'))).toBe(1n << 64n);
    expect(cidrContains(cidr('10.0.0.0/8'), ip('10.255.0.1'))).toBe(true);
    expect(cidrContains(cidr('10.0.0.0/8'), ip('::ffff:10.1.1.1'))).toBe(true);
    expect(cidrContains(cidr('::ffff:10.0.0.0/104'), ip('10.1.1.1'))).toBe(true);
    expect(cidrContains(cidr('10.0.0.0/8'), ip('11.0.0.0'))).toBe(false);
    expect(cidrContains(cidr('::/0'), ip('10.0.0.1'))).toBe(false);
    expect(cidrsOverlap(cidr('10.0.0.0/8'), cidr('10.96.0.0/12'))).toBe(true);
    expect(cidrsOverlap(cidr('10.96.0.0/12'), cidr('10.0.0.0/8'))).toBe(true);
    expect(cidrsOverlap(cidr('10.0.0.0/16'), cidr('10.1.0.0/16'))).toBe(false);
    expect(cidrsOverlap(cidr('10.0.0.0/8'), cidr('fd00::/8'))).toBe(false);
  });
});

describe('indexedIp: kubeadm GetIndexedIP (service VIP = 1, DNS = 10)', () => {
  const nth = (c: string, n: number): string | undefined => {
    const r = indexedIp(cidr(c), n);
    return r && formatIp(r);
  };
  test.each([
    ['10.96.0.0/12', '10.96.0.1', '10.96.0.10'],
    ['10.96.5.7/12', '10.96.0.1', '10.96.0.10'],
    ['192.168.0.0/30', '192.168.0.1', undefined],
    ['fd00:10:96::/108', 'fd00:10:96::1', 'fd00:10:96::a'],
    ['10.0.0.0/32', undefined, undefined],
    ['10.0.0.0/31', '10.0.0.1', undefined],
    ['fd00::/128', undefined, undefined],
    ['fd00::/127', 'fd00::1', undefined],
    // Overflow past the last address leaves the subnet (and, for IPv4, the mapped range).
    ['255.255.255.255/32', undefined, undefined],
    ['255.255.255.254/31', '255.255.255.255', undefined],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', undefined, undefined],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', undefined],
    ['::ffff:10.96.0.0/108', '10.96.0.1', '10.96.0.10'],
    ['::ffff:10.96.0.0/80', '::1', '::a'],
  ])('%s: 1st %s, 10th %s', (c, first, tenth) => {
    expect(nth(c, 1)).toBe(first);
    expect(nth(c, 10)).toBe(tenth);
  });

  test('a negative or fractional index has no address', () => {
    expect(indexedIp(cidr('10.0.0.0/8'), -1)).toBeUndefined();
    expect(indexedIp(cidr('10.0.0.0/8'), 1.5)).toBeUndefined();
  });
});
