/**
 * Handing the new private keys from the control plane that ran `start` to the other control
 * planes, pure: the Secret kube-system/tsadm-rotate-ca-keys holds each key encrypted with
 * AES-256-GCM under a random 32-byte rotation key, exactly as upload-certs stores the CAs for
 * `join --control-plane` (src/certs/kubeadm-certs-secret.ts). The rotation key is never
 * in the cluster: `start` prints it once (or writes it to a 0600 file), and `node` on each other
 * control plane is given it. So a reader of Secrets, or a holder of the old CA key who mints
 * themselves an admin certificate (the reason for many rotations), gets ciphertext only. The
 * Secret is owned by a bootstrap-token Secret with an expiry, so the garbage collector removes it
 * when the token cleaner removes the token, and the node that closes trust-both deletes it.
 */
import { KUBE_SYSTEM } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { OwnerReference, SecretObject } from '../../kube/types.js';
import { decodeCertificateKey, decryptBytes, encryptBytes, generateCertificateKey } from '../../certs/kubeadm-certs-secret.js';
import { ROTATABLE, type Rotated } from './state.js';
import type { NewKeys } from './plan.js';

export const KEYS_SECRET = 'tsadm-rotate-ca-keys';
export const KEYS_TOKEN_DESCRIPTION = 'Proxy for managing TTL for the tsadm-rotate-ca-keys secret';

/** A new rotation key: 64 hex characters, as `tsadm certs certificate-key` prints. */
export const generateRotationKey = generateCertificateKey;

export function keysSecret(id: string, keys: NewKeys, rotationKey: string, owner: OwnerReference, random?: (n: number) => Buffer): SecretObject {
  const key = decodeRotationKey(rotationKey);
  const data: Record<string, string> = { id: Buffer.from(id).toString('base64') };
  for (const [item, pem] of Object.entries(keys)) data[`${item}.key`] = encryptBytes(Buffer.from(pem), key, random).toString('base64');
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: KEYS_SECRET, namespace: KUBE_SYSTEM, ownerReferences: [owner] }, type: 'Opaque', data };
}

/** The keys of rotation ID from the Secret; a wrong rotation key or another rotation's Secret is refused. */
export function keysFromSecret(secret: SecretObject, id: string, rotationKey: string): NewKeys {
  const data = secret.data ?? {};
  const stored = data.id === undefined ? undefined : Buffer.from(data.id, 'base64').toString('utf8');
  if (stored !== id) {
    throw new TsadmError('E_CONFLICT', `Secret ${KUBE_SYSTEM}/${KEYS_SECRET} belongs to rotation ${stored ?? '(none)'}, not ${id}`, { hint: 'run "tsadm certs rotate-ca start" again on the control plane that started this rotation to upload its keys' });
  }
  const key = decodeRotationKey(rotationKey);
  const out: Partial<Record<Rotated, string>> = {};
  for (const item of ROTATABLE) {
    const sealed = data[`${item}.key`];
    if (sealed === undefined) continue;
    try {
      out[item] = decryptBytes(Buffer.from(sealed, 'base64'), key).toString('utf8');
    } catch (err) {
      throw new TsadmError('E_TRUST', 'could not decrypt the new CA keys: wrong rotation key', { cause: err, hint: 'pass the rotation key "tsadm certs rotate-ca start" printed (--rotation-key or --rotation-key-file)' });
    }
  }
  return out;
}

function decodeRotationKey(text: string): Buffer {
  try {
    return decodeCertificateKey(text.trim());
  } catch {
    throw new TsadmError('E_USAGE', 'the rotation key must be 64 hexadecimal characters (32 bytes)', { hint: 'pass the key "tsadm certs rotate-ca start" printed' });
  }
}
