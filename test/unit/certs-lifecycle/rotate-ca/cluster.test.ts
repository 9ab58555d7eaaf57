/**
 * The one pure piece of the API part: whether a legacy service-account token was signed by the
 * old key. Tokens are signed by openssl (RS256) and node:crypto (ES256), not by tsadm. The rest of
 * cluster.ts is exercised only by the e2e on the HA harness (docs/certs.md).
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { signedBy } from '../../../../src/certs-lifecycle/rotate-ca/cluster.js';

const b64u = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const PAYLOAD = { iss: 'kubernetes/serviceaccount', sub: 'system:serviceaccount:kube-system:default' };

test('RS256 tokens signed by openssl verify with their key only', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-jws-'));
  try {
    const a = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const b = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const input = `${b64u({ alg: 'RS256', kid: 'x' })}.${b64u(PAYLOAD)}`;
    writeFileSync(path.join(dir, 'in'), input);
    writeFileSync(path.join(dir, 'k.pem'), a.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const r = spawnSync('openssl', ['dgst', '-sha256', '-sign', path.join(dir, 'k.pem'), path.join(dir, 'in')]);
    expect(r.status).toBe(0);
    const token = `${input}.${r.stdout.toString('base64url')}`;
    expect(signedBy(token, a.publicKey)).toBe(true);
    expect(signedBy(token, b.publicKey)).toBe(false);
    expect(signedBy(`${input}.${Buffer.from('x').toString('base64url')}`, a.publicKey)).toBe(false);
    expect(signedBy('not-a-token', a.publicKey)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ES256 tokens (JOSE r‖s signatures) verify; an unknown alg never does', () => {
  const a = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = `${b64u({ alg: 'ES256' })}.${b64u(PAYLOAD)}`;
  const sig = sign('sha256', Buffer.from(input), { key: a.privateKey, dsaEncoding: 'ieee-p1363' });
  expect(signedBy(`${input}.${sig.toString('base64url')}`, a.publicKey)).toBe(true);
  expect(signedBy(`${b64u({ alg: 'none' })}.${b64u(PAYLOAD)}.`, a.publicKey)).toBe(false);
});
