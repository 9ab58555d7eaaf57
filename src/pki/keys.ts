/**
 * Key pairs with Node's native crypto: OpenSSL's own generators (with its pairwise consistency
 * test) run on the libuv thread pool, so keys are made in parallel without blocking the event
 * loop; speed comes from that overlap (src/certs/key-pool.ts), never from a weaker
 * generator. PEM output matches Go's keyutil.MarshalPrivateKeyToPEM: RSA as PKCS#1
 * "RSA PRIVATE KEY", ECDSA as SEC1 "EC PRIVATE KEY". Keys read back are checked as
 * `openssl pkey -check` would (src/pki/key-check.ts).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair as generateKeyPairCb, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { TsadmError, errorMessage } from '../errors.js';
import { decodePem, encodePem } from './pem.js';
import { privateKeyProblem } from './key-check.js';

/**
 * The key types kubeadm's `encryptionAlgorithm` names (ClusterConfiguration, v1beta4); ML-DSA
 * (FIPS 204) from kubeadm 1.38 (PR #142037), which the version row gates (pki.mlDsa).
 */
export type KeyAlgorithm = 'RSA-2048' | 'RSA-3072' | 'RSA-4096' | 'ECDSA-P256' | 'ECDSA-P384' | MlDsaAlgorithm;
type MlDsaAlgorithm = 'ML-DSA-44' | 'ML-DSA-65' | 'ML-DSA-87';

/** node:crypto's key type names of the ML-DSA parameter sets (Node 24, OpenSSL 3.5). */
const ML_DSA: Readonly<Record<string, MlDsaAlgorithm>> = { 'ml-dsa-44': 'ML-DSA-44', 'ml-dsa-65': 'ML-DSA-65', 'ml-dsa-87': 'ML-DSA-87' };

export function isMlDsaKey(key: KeyObject): boolean {
  return ML_DSA[key.asymmetricKeyType ?? ''] !== undefined;
}

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

const generate = promisify(generateKeyPairCb);

const CURVES: Readonly<Record<string, KeyAlgorithm>> = { prime256v1: 'ECDSA-P256', secp384r1: 'ECDSA-P384' };

export async function generateKeyPair(algorithm: KeyAlgorithm): Promise<KeyPair> {
  switch (algorithm) {
    case 'RSA-2048':
    case 'RSA-3072':
    case 'RSA-4096':
      // e = 65537 as Go's rsa.GenerateKey; OpenSSL's keygen follows SP 800-56B.
      return generate('rsa', { modulusLength: Number(algorithm.slice(4)), publicExponent: 0x10001 });
    case 'ECDSA-P256':
      return generate('ec', { namedCurve: 'prime256v1' });
    case 'ECDSA-P384':
      return generate('ec', { namedCurve: 'secp384r1' });
    case 'ML-DSA-44':
      return generate('ml-dsa-44');
    case 'ML-DSA-65':
      return generate('ml-dsa-65');
    case 'ML-DSA-87':
      return generate('ml-dsa-87');
  }
}

/** The algorithm of a key, or undefined for a type kubeadm does not accept (Ed25519, DSA, P-521…). */
export function keyAlgorithmOf(key: KeyObject): KeyAlgorithm | undefined {
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details?.modulusLength;
    return bits === 2048 || bits === 3072 || bits === 4096 ? `RSA-${bits}` : undefined;
  }
  if (key.asymmetricKeyType === 'ec') return CURVES[details?.namedCurve ?? ''];
  return ML_DSA[key.asymmetricKeyType ?? ''];
}

/** "RSA 2048-bit", "EC prime256v1" — for messages about keys tsadm did not make. */
export function describeKey(key: KeyObject): string {
  const d = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa') return `RSA ${d?.modulusLength ?? '?'}-bit`;
  if (key.asymmetricKeyType === 'ec') return `EC ${d?.namedCurve ?? '?'}`;
  return key.asymmetricKeyType ?? 'unknown';
}

export function encodePrivateKeyPem(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return key.export({ type: 'pkcs1', format: 'pem' }) as string;
  if (key.asymmetricKeyType === 'ec') return key.export({ type: 'sec1', format: 'pem' }) as string;
  // PKCS#8 "PRIVATE KEY", the only encoding of ML-DSA keys (RFC 9881; Go's x509.MarshalPKCS8PrivateKey).
  if (isMlDsaKey(key)) return key.export({ type: 'pkcs8', format: 'pem' }) as string;
  throw new TsadmError('E_INTERNAL', `cannot encode a ${describeKey(key)} private key`);
}

/** PKIX SubjectPublicKeyInfo, PEM type "PUBLIC KEY" (kubeadm's sa.pub). Accepts a private key too. */
export function encodePublicKeyPem(key: KeyObject): string {
  return encodePem('PUBLIC KEY', spkiDer(key));
}

/** DER SubjectPublicKeyInfo of a public key, or of a private key's public half. */
export function spkiDer(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'der' });
}

export function sameKey(a: KeyObject, b: KeyObject): boolean {
  return spkiDer(a).equals(spkiDer(b));
}

/** "sha256:<hex>" of a DER SubjectPublicKeyInfo (RFC 7469 pin; kubeadm's pubkeypin.Hash). */
export function spkiSha256(spki: Uint8Array): string {
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/**
 * A private key from PEM (PKCS#1, SEC1 or PKCS#8, like Go's keyutil.ParsePrivateKeyPEM), limited
 * to RSA, ECDSA and ML-DSA as kubeadm is (ML-DSA from 1.38, client-go PR #142038), and consistent as `openssl pkey -check` requires (see
 * src/pki/key-check.ts for what is left out): a damaged key is refused here, naming the file,
 * instead of making an apiserver that cannot start.
 * `label` names the source in errors (e.g. the file path).
 */
export function parsePrivateKeyPem(pem: string | Uint8Array, label: string): KeyObject {
  const block = decodePem(pem).find((b) => /PRIVATE KEY$/.test(b.type));
  if (!block) throw invalid(label, 'no PEM private key found');
  if (block.encrypted || block.type === 'ENCRYPTED PRIVATE KEY') throw invalid(label, 'the private key is encrypted');
  let key: KeyObject;
  try {
    const type = block.type === 'RSA PRIVATE KEY' ? 'pkcs1' : block.type === 'EC PRIVATE KEY' ? 'sec1' : 'pkcs8';
    key = createPrivateKey({ key: block.der, format: 'der', type });
  } catch (err) {
    throw invalid(label, errorMessage(err));
  }
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec' && !isMlDsaKey(key)) {
    throw invalid(label, `the private key is neither in RSA, ECDSA nor ML-DSA format (${describeKey(key)})`);
  }
  const problem = privateKeyProblem(key);
  if (problem) throw invalid(label, `the private key is damaged: ${problem} (openssl pkey -check fails on it)`);
  return key;
}

export function parsePublicKeyPem(pem: string | Uint8Array, label: string): KeyObject {
  const block = decodePem(pem).find((b) => b.type === 'PUBLIC KEY' || b.type === 'RSA PUBLIC KEY');
  if (!block) throw invalid(label, 'no PEM public key found');
  try {
    return createPublicKey({ key: block.der, format: 'der', type: block.type === 'RSA PUBLIC KEY' ? 'pkcs1' : 'spki' });
  } catch (err) {
    throw invalid(label, errorMessage(err));
  }
}

function invalid(label: string, why: string): TsadmError {
  return new TsadmError('E_PRECONDITION', `${label}: ${why}`, { hint: `replace or remove ${label}` });
}
