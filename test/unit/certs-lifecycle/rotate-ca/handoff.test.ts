/**
 * The key hand-off Secret: each new key sealed with the rotation key (AES-256-GCM, decrypted here
 * with node:crypto directly as the oracle of the format upload-certs uses), owned for its expiry,
 * refused with a wrong key or for another rotation.
 */
import { createDecipheriv } from 'node:crypto';
import { generateRotationKey, keysFromSecret, keysSecret, KEYS_SECRET } from '../../../../src/certs-lifecycle/rotate-ca/handoff.js';
import { tsadmErrorOfCall } from '../../../helpers/tsadm-error.js';

const OWNER = { apiVersion: 'v1', kind: 'Secret', name: 'bootstrap-token-abcdef', uid: 'u-1', controller: true, blockOwnerDeletion: true };
const KEYS = { cluster: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', 'service-account': '-----BEGIN RSA PRIVATE KEY-----\nBBBB\n-----END RSA PRIVATE KEY-----\n' };


test('each key is sealed nonce ‖ ciphertext ‖ tag under the rotation key, with no plaintext in the Secret', () => {
  const rk = generateRotationKey();
  expect(rk).toMatch(/^[0-9a-f]{64}$/);
  const s = keysSecret('r1', KEYS, rk, OWNER);
  expect([s.metadata.name, s.metadata.namespace, s.metadata.ownerReferences]).toEqual([KEYS_SECRET, 'kube-system', [OWNER]]);
  expect(Object.keys(s.data ?? {}).sort()).toEqual(['cluster.key', 'id', 'service-account.key']);
  expect(JSON.stringify(s)).not.toContain(Buffer.from(KEYS.cluster).toString('base64').slice(0, 20));
  const sealed = Buffer.from(s.data?.['cluster.key'] ?? '', 'base64');
  const d = createDecipheriv('aes-256-gcm', Buffer.from(rk, 'hex'), sealed.subarray(0, 12));
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  expect(Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]).toString()).toBe(KEYS.cluster);
  expect(keysFromSecret(s, 'r1', rk)).toEqual(KEYS);
});

test('a wrong rotation key, a malformed one, or another rotation\'s Secret is refused', () => {
  const s = keysSecret('r1', KEYS, generateRotationKey(), OWNER);
  const wrong = tsadmErrorOfCall(() => keysFromSecret(s, 'r1', generateRotationKey()));
  expect([wrong.code, wrong.message]).toEqual(['E_TRUST', 'could not decrypt the new CA keys: wrong rotation key']);
  expect(tsadmErrorOfCall(() => keysFromSecret(s, 'r1', 'abc')).code).toBe('E_USAGE');
  const other = tsadmErrorOfCall(() => keysFromSecret(s, 'r2', generateRotationKey()));
  expect([other.code, other.message]).toEqual(['E_CONFLICT', 'Secret kube-system/tsadm-rotate-ca-keys belongs to rotation r1, not r2']);
});
