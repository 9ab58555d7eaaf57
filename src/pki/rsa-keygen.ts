/**
 * RSA key generation from two OpenSSL-generated primes. OpenSSL 3's RSA keygen (what
 * crypto.generateKeyPair uses) follows SP 800-56B and is about 3x slower than generating the
 * two primes with crypto.generatePrime, which dominated `certs all`. The key is assembled the
 * textbook way (as Go's rsa.GenerateKey does) with the FIPS 186-4 B.3.1 checks, then proven with
 * a signature round trip before use.
 */
import { createPrivateKey, createPublicKey, generatePrime as generatePrimeCb, sign, verify, type KeyObject } from 'node:crypto';
import { TsadmError } from '../errors.js';
import { encodeDer, integer, seq } from './asn1.js';

function generatePrime(bits: number): Promise<bigint> {
  return new Promise((resolve, reject) => {
    generatePrimeCb(bits, { bigint: true }, (err, prime) => (err ? reject(err) : resolve(prime)));
  });
}

const E = 65537n;

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** a⁻¹ mod m by the extended Euclidean algorithm; a and m coprime. */
export function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [((a % m) + m) % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1n) throw new RangeError('not invertible');
  return ((oldS % m) + m) % m;
}

/** A prime of `bits` bits (top two bits set, so p·q has exactly 2·bits) with gcd(e, p−1) = 1. */
async function rsaPrime(bits: number): Promise<bigint> {
  for (;;) {
    const p = await generatePrime(bits);
    if ((p - 1n) % E !== 0n && bitLength(p) === bits) return p;
  }
}

export async function generateRsaKeyPair(modulusBits: number): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  const half = modulusBits / 2;
  for (let attempt = 0; attempt < 16; attempt++) {
    const [p, q] = await Promise.all([rsaPrime(half), rsaPrime(half)]);
    const diff = p > q ? p - q : q - p;
    if (diff <= 1n << BigInt(half - 100)) continue; // FIPS 186-4 B.3.1: |p − q| > 2^(nlen/2 − 100)
    const n = p * q;
    if (bitLength(n) !== modulusBits) continue;
    const lambda = ((p - 1n) * (q - 1n)) / gcd(p - 1n, q - 1n);
    const d = modInverse(E, lambda);
    if (d <= 1n << BigInt(half)) continue; // FIPS 186-4 B.3.1: d > 2^(nlen/2)
    const der = encodeDer(seq([0n, n, E, d, p, q, d % (p - 1n), d % (q - 1n), modInverse(q, p)].map(integer)));
    const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
    const publicKey = createPublicKey(privateKey);
    const probe = Buffer.from('tsadm rsa key self-test');
    if (verify('sha256', probe, publicKey, sign('sha256', probe, privateKey))) return { privateKey, publicKey };
  }
  throw new TsadmError('E_INTERNAL', `could not generate a valid RSA-${modulusBits} key`);
}
