/**
 * The consistency checks `openssl pkey -check` makes on a private key, for keys read from disk
 * before they are reused. Node (OpenSSL) loads an RSA key whose CRT values are wrong and signs
 * with it by silently falling back to the slow path, and the apiserver only fails later; a key
 * with a wrong public half signs certificates nobody can verify. Pure: the key's components in,
 * the first problem found out.
 *
 * Not checked, unlike openssl: that p and q are prime. OpenSSL 3 runs at least 64 Miller-Rabin
 * rounds per prime (~40 ms per RSA-2048 key, ten times that for RSA-4096, on every read of every
 * key), and damage (a flipped bit, a truncated or mixed-up file) already breaks n = p·q or one of
 * the relations below; only a key crafted to pass them could have composite factors, and whoever
 * can write the CA key needs no such trick.
 */
import { createECDH, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** What is wrong with the key, or undefined when it is consistent. RSA, EC and ML-DSA keys only. */
export function privateKeyProblem(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType === 'rsa') return rsaProblem(key);
  if (key.asymmetricKeyType === 'ec') return ecProblem(key);
  // ML-DSA: OpenSSL 3.5 refuses on import a PKCS#8 key whose seed and expanded key disagree, and
  // a seed-only key has nothing to disagree with; what is left is a key that signs and verifies.
  if (/^ml-dsa-(44|65|87)$/.test(key.asymmetricKeyType ?? '')) return mlDsaProblem(key);
  return `cannot check a ${key.asymmetricKeyType ?? 'unknown'} key`;
}

/** OpenSSL's RSA_check_key_ex without the primality tests: modulus, exponents and CRT values agree. */
function rsaProblem(key: KeyObject): string | undefined {
  const jwk = key.export({ format: 'jwk' });
  const [n, e, d, p, q, dp, dq, qi] = [jwk.n, jwk.e, jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi].map(toBigInt);
  if (n === undefined || e === undefined || d === undefined || p === undefined || q === undefined || dp === undefined || dq === undefined || qi === undefined) {
    return 'the RSA key lacks its primes or CRT values';
  }
  if (e <= 1n || e % 2n === 0n) return 'the RSA public exponent is not an odd number above 1';
  if (p <= 1n || q <= 1n) return 'the RSA primes are not above 1';
  if (p * q !== n) return 'the RSA modulus is not p·q';
  // d·e ≡ 1 mod lcm(p−1, q−1) holds exactly when it holds mod p−1 and mod q−1.
  if ((d * e) % (p - 1n) !== 1n || (d * e) % (q - 1n) !== 1n) return 'the RSA private exponent d does not invert e';
  if (dp !== d % (p - 1n)) return 'the RSA CRT exponent dP is not d mod (p−1)';
  if (dq !== d % (q - 1n)) return 'the RSA CRT exponent dQ is not d mod (q−1)';
  if (qi >= p || (qi * q) % p !== 1n) return 'the RSA CRT coefficient qInv is not q⁻¹ mod p';
  return undefined;
}

const EC_CURVES: Readonly<Record<string, string>> = { 'P-256': 'prime256v1', 'P-384': 'secp384r1', 'P-521': 'secp521r1' };

/** The public point must be d·G (which also puts it on the curve); d must be in [1, n−1]. */
function ecProblem(key: KeyObject): string | undefined {
  const jwk = key.export({ format: 'jwk' });
  const curve = EC_CURVES[jwk.crv ?? ''];
  if (!curve || !jwk.d || !jwk.x || !jwk.y) return `cannot check an EC key on curve ${jwk.crv ?? '?'}`;
  const ecdh = createECDH(curve);
  try {
    ecdh.setPrivateKey(Buffer.from(jwk.d, 'base64url')); // OpenSSL refuses d = 0 or d ≥ n here
  } catch {
    return 'the EC private scalar is out of range for its curve';
  }
  const derived = ecdh.getPublicKey();
  const stored = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')]);
  return derived.equals(stored) ? undefined : 'the EC public point is not the private scalar times the generator';
}

function toBigInt(b64url: string | undefined): bigint | undefined {
  if (b64url === undefined) return undefined;
  const hex = Buffer.from(b64url, 'base64url').toString('hex');
  return hex === '' ? 0n : BigInt(`0x${hex}`);
}

/** A probe signature made with the private key verifies under its public half. */
function mlDsaProblem(key: KeyObject): string | undefined {
  const probe = Buffer.from('tsadm ML-DSA key check');
  return verify(null, probe, createPublicKey(key), sign(null, probe, key)) ? undefined : 'the ML-DSA private key does not match its public key';
}
