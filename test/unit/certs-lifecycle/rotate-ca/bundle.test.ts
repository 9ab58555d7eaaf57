/**
 * Trust bundles: the signing CA first, each certificate (or public key) once, read back in order;
 * openssl's own reading of the written file is the oracle for what it holds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundlePem, parseBundle, publicKeyBundlePem, samePemBlocks } from '../../../../src/certs-lifecycle/rotate-ca/bundle.js';
import { makeChain } from '../../../helpers/cert-chain.js';
import { openssl } from '../../../helpers/pki-test-utils.js';
import { encodePublicKeyPem } from '../../../../src/pki/keys.js';
import { TsadmError } from '../../../../src/errors.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tsadm-bundle-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Subjects (openssl's reading) of every certificate in a PEM file, in order. */
function subjectsOf(pem: string): string[] {
  const file = path.join(dir, `b-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, pem);
  const p7 = openssl(['crl2pkcs7', '-nocrl', '-certfile', file]);
  return openssl(['pkcs7', '-print_certs', '-noout'], p7).split('\n').filter((l) => l.startsWith('subject=')).map((l) => l.trim());
}

test('old then new, deduplicated by DER even when the inputs are themselves bundles, and parsed back in order', async () => {
  const a = await makeChain('ECDSA-P256');
  const b = await makeChain('ECDSA-P256');
  const both = bundlePem(a.cert.pem, b.cert.pem);
  expect(subjectsOf(both)).toEqual(['subject=O = system:masters, CN = kube-apiserver-kubelet-client', 'subject=O = system:masters, CN = kube-apiserver-kubelet-client']);
  expect(bundlePem(both, a.cert.pem, `junk before\n${b.cert.pem.replace(/\n/g, '\r\n')}`)).toBe(both);
  expect(bundlePem(b.cert.pem, both)).toBe(b.cert.pem + a.cert.pem);
  expect(parseBundle(both, 'x').map((c) => c.serial)).toEqual([a.cert.serial, b.cert.serial]);
  expect(parseBundle(both, 'x').map((c) => c.der.equals(a.cert.der))).toEqual([true, false]);
  expect(samePemBlocks(both, `${a.cert.pem}\n\n${b.cert.pem}`)).toBe(true);
  expect(samePemBlocks(both, bundlePem(b.cert.pem, a.cert.pem))).toBe(false);
});

test('a text without a certificate is refused, naming it', () => {
  expect(() => parseBundle('nothing here', '/etc/kubernetes/pki/ca.crt')).toThrow(TsadmError);
  expect(() => parseBundle('nothing here', '/etc/kubernetes/pki/ca.crt')).toThrow('/etc/kubernetes/pki/ca.crt: no PEM certificate found');
  expect(() => bundlePem('nothing')).toThrow('a CA bundle with no certificate');
});

test('service-account public keys: one PUBLIC KEY block each, once, in order; openssl reads the first', async () => {
  const a = await makeChain('ECDSA-P256');
  const b = await makeChain('RSA-2048');
  const pa = encodePublicKeyPem(a.caKeys.publicKey);
  const pb = encodePublicKeyPem(b.caKeys.publicKey);
  const both = publicKeyBundlePem(pa, pb, pa);
  expect(both).toBe(pa + pb);
  expect(publicKeyBundlePem(both, pb)).toBe(both);
  const file = path.join(dir, 'sa.pub');
  writeFileSync(file, both);
  expect(openssl(['pkey', '-pubin', '-in', file, '-pubout'])).toBe(pa);
});
