import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { jest } from '@jest/globals';
import { privateKeyProblem } from '../../../src/pki/key-check.js';
import { parsePrivateKeyPem } from '../../../src/pki/keys.js';
import { TsadmError } from '../../../src/errors.js';
import { openssl, tempFile } from '../../helpers/pki-test-utils.js';

jest.setTimeout(60_000);

/** `openssl pkey -check` is the oracle: does OpenSSL itself call the key valid? */
function opensslAccepts(pem: string): boolean {
  const r = spawnSync('openssl', ['pkey', '-check', '-noout', '-in', tempFile('k.key', pem)], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('Key is valid');
}

const big = (b64url: string): bigint => BigInt(`0x${Buffer.from(b64url, 'base64url').toString('hex')}`);
const b64url = (n: bigint): string => {
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
};

/** The key with one JWK component changed, written as kubeadm writes RSA keys (PKCS#1). */
function rsaWith(key: KeyObject, field: 'qi' | 'dp' | 'dq' | 'd' | 'p', change: (v: bigint) => bigint): string {
  const jwk = key.export({ format: 'jwk' }) as JsonWebKey & Record<string, string>;
  const damaged = { ...jwk, [field]: b64url(change(big(jwk[field]!))) };
  return createPrivateKey({ key: damaged, format: 'jwk' }).export({ type: 'pkcs1', format: 'pem' }) as string;
}

describe('RSA keys made by openssl, then damaged', () => {
  let goodPem: string;
  let good: KeyObject;
  beforeAll(() => {
    goodPem = openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']);
    good = createPrivateKey(goodPem);
  });

  test('the undamaged key passes, as openssl says', () => {
    expect(opensslAccepts(goodPem)).toBe(true);
    expect(privateKeyProblem(good)).toBeUndefined();
    expect(parsePrivateKeyPem(goodPem, '/etc/kubernetes/pki/ca.key').asymmetricKeyType).toBe('rsa');
  });

  test.each<[string, 'qi' | 'dp' | 'dq' | 'd' | 'p', (v: bigint) => bigint, RegExp]>([
    ['qInv+1', 'qi', (v) => v + 1n, /qInv/],
    ['dP+2', 'dp', (v) => v + 2n, /dP/],
    ['dQ+2', 'dq', (v) => v + 2n, /dQ/],
    ['d+2', 'd', (v) => v + 2n, /private exponent d/],
    ['p+2', 'p', (v) => v + 2n, /prime p|modulus/],
  ])('%s is refused with the file named, and openssl refuses it too', (_name, field, change, why) => {
    const pem = rsaWith(good, field, change);
    expect(opensslAccepts(pem)).toBe(false);
    expect(privateKeyProblem(createPrivateKey(pem))).toMatch(why);
    let err: unknown;
    try {
      parsePrivateKeyPem(pem, '/etc/kubernetes/pki/ca.key');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TsadmError);
    expect((err as TsadmError).message).toMatch(/^\/etc\/kubernetes\/pki\/ca\.key: the private key is damaged: .*openssl pkey -check/);
    expect((err as TsadmError).message).toMatch(why);
    expect((err as TsadmError).hint).toContain('/etc/kubernetes/pki/ca.key');
  });
});

describe('EC keys', () => {
  /** SEC1 DER ends with the public point as a BIT STRING: the uncompressed point is its last bytes. */
  function withPublicPointOf(pem: string, other: string): string {
    const der = createPrivateKey(pem).export({ type: 'sec1', format: 'der' });
    const otherDer = createPrivateKey(other).export({ type: 'sec1', format: 'der' });
    const pointLength = 65;
    const damaged = Buffer.concat([der.subarray(0, der.length - pointLength), otherDer.subarray(otherDer.length - pointLength)]);
    return `-----BEGIN EC PRIVATE KEY-----\n${damaged.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END EC PRIVATE KEY-----\n`;
  }

  test('a P-256 key passes; the same key with another key\'s public point is refused, as openssl does', () => {
    const a = openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-pkeyopt', 'ec_param_enc:named_curve']);
    const b = openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-pkeyopt', 'ec_param_enc:named_curve']);
    expect(opensslAccepts(a)).toBe(true);
    expect(privateKeyProblem(createPrivateKey(a))).toBeUndefined();
    const damaged = withPublicPointOf(a, b);
    expect(opensslAccepts(damaged)).toBe(false);
    expect(() => parsePrivateKeyPem(damaged, '/etc/kubernetes/pki/etcd/ca.key')).toThrow(
      /^\/etc\/kubernetes\/pki\/etcd\/ca\.key: the private key is damaged: the EC public point is not the private scalar times the generator/,
    );
  });

  test('a P-384 key passes', () => {
    const pem = openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384', '-pkeyopt', 'ec_param_enc:named_curve']);
    expect(privateKeyProblem(createPrivateKey(pem))).toBeUndefined();
  });
});

test('Ed25519 is not checked here: kubeadm accepts only RSA and ECDSA, and parsing refuses it first', () => {
  const ed = createPrivateKey(openssl(['genpkey', '-algorithm', 'ed25519']));
  expect(privateKeyProblem(ed)).toMatch(/cannot check a ed25519 key/);
});
