import { jest } from '@jest/globals';
import { createPublicKey } from 'node:crypto';
import { describeKey, encodePrivateKeyPem, encodePublicKeyPem, generateKeyPair, keyAlgorithmOf, parsePrivateKeyPem, parsePublicKeyPem, sameKey, type KeyAlgorithm } from '../../../src/pki/keys.js';
import { TsadmError } from '../../../src/errors.js';
import { openssl, tempFile } from '../../helpers/pki-test-utils.js';

// RSA keys come from OpenSSL's generator, which takes seconds on a busy 2-core machine.
jest.setTimeout(60_000);

describe('key pairs', () => {
  test.each<[KeyAlgorithm, string, RegExp]>([
    ['RSA-2048', 'RSA PRIVATE KEY', /Private-Key: \(2048 bit/],
    ['RSA-3072', 'RSA PRIVATE KEY', /Private-Key: \(3072 bit/],
    ['ECDSA-P256', 'EC PRIVATE KEY', /ASN1 OID: prime256v1/],
    ['ECDSA-P384', 'EC PRIVATE KEY', /ASN1 OID: secp384r1/],
  ])('%s is written as %s (kubeadm keyutil format) and read back', async (alg, pemType, opensslSays) => {
    const pair = await generateKeyPair(alg);
    const pem = encodePrivateKeyPem(pair.privateKey);
    expect(pem.startsWith(`-----BEGIN ${pemType}-----\n`)).toBe(true);
    expect(keyAlgorithmOf(pair.privateKey)).toBe(alg);
    const back = parsePrivateKeyPem(pem, 'test.key');
    expect(sameKey(back, pair.publicKey)).toBe(true);
    expect(openssl(['pkey', '-noout', '-text', '-in', tempFile('k.key', pem)])).toMatch(opensslSays);
  });

  test('RSA-4096 is generated with e=65537', async () => {
    const pair = await generateKeyPair('RSA-4096');
    expect(pair.privateKey.asymmetricKeyDetails).toMatchObject({ modulusLength: 4096, publicExponent: 65537n });
  });

  test('public keys are PKIX "PUBLIC KEY" (sa.pub) and derive from a private key', async () => {
    const pair = await generateKeyPair('RSA-2048');
    const fromPrivate = encodePublicKeyPem(pair.privateKey);
    expect(fromPrivate).toBe(encodePublicKeyPem(pair.publicKey));
    expect(fromPrivate.startsWith('-----BEGIN PUBLIC KEY-----\n')).toBe(true);
    expect(fromPrivate.split('\n').every((l) => l.length <= 64)).toBe(true);
    expect(sameKey(parsePublicKeyPem(fromPrivate, 'sa.pub'), pair.privateKey)).toBe(true);
    // openssl agrees it is the same key
    const keyFile = tempFile('sa.key', encodePrivateKeyPem(pair.privateKey));
    expect(openssl(['pkey', '-in', keyFile, '-pubout'])).toBe(fromPrivate);
  });

  test('PKCS#8 keys (as other tools write them) are accepted', async () => {
    const pair = await generateKeyPair('ECDSA-P256');
    const pkcs8 = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(sameKey(parsePrivateKeyPem(pkcs8, 'x.key'), pair.privateKey)).toBe(true);
  });

  test('garbage, encrypted and Ed25519 keys are refused with the file named', () => {
    expect(() => parsePrivateKeyPem('hello', '/etc/kubernetes/pki/ca.key')).toThrow(/\/etc\/kubernetes\/pki\/ca\.key: no PEM private key found/);
    const encrypted = openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024', '-aes128', '-pass', 'pass:x']);
    expect(() => parsePrivateKeyPem(encrypted, 'enc.key')).toThrow(/encrypted/);
    const ed = openssl(['genpkey', '-algorithm', 'ed25519']);
    const err = (() => { try { parsePrivateKeyPem(ed, 'ed.key'); } catch (e) { return e; } return undefined; })();
    expect(err).toBeInstanceOf(TsadmError);
    expect((err as Error).message).toMatch(/neither in RSA, ECDSA nor ML-DSA format/);
    expect(describeKey(createPublicKey(ed))).toBe('ed25519');
  });
});

describe('RSA keys from OpenSSL\'s own generator', () => {
  test.each(['RSA-2048', 'RSA-3072'] as const)('%s keys pass `openssl pkey -check` and have exactly the modulus size', async (alg) => {
    for (let i = 0; i < (alg === 'RSA-2048' ? 3 : 1); i++) {
      const pair = await generateKeyPair(alg);
      expect(pair.privateKey.asymmetricKeyDetails).toMatchObject({ modulusLength: Number(alg.slice(4)), publicExponent: 65537n });
      const out = openssl(['pkey', '-check', '-noout', '-in', tempFile('k.key', encodePrivateKeyPem(pair.privateKey))]);
      expect(out).toContain('Key is valid');
    }
  });

  test('keys made together are all different (generated in parallel on the thread pool)', async () => {
    const pairs = await Promise.all([1, 2, 3, 4].map(() => generateKeyPair('RSA-2048')));
    expect(new Set(pairs.map((p) => encodePublicKeyPem(p.publicKey))).size).toBe(4);
  });
});
