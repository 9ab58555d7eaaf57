import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Etcd } from '../config/types.js';
import { KUBE_SYSTEM, NODE_BOOTSTRAP_TOKEN_GROUP } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { KubeObject, OwnerReference, SecretObject } from '../kube/types.js';
import { getNamed, group, role, roleBinding } from '../kube/rbac.js';

/** What upload-certs stores (docs/kubeadm-reference.md §6.5, kubeadm phases/copycerts). */
export const KUBEADM_CERTS_SECRET = 'kubeadm-certs';
const KUBEADM_CERTS_RBAC = 'kubeadm:kubeadm-certs';
export const PROXY_TOKEN_DESCRIPTION = 'Proxy for managing TTL for the kubeadm-certs secret';

/** 32 random bytes as 64 lowercase hex characters (`tsadm certs certificate-key`). */
export function generateCertificateKey(random: (n: number) => Buffer = randomBytes): string {
  return random(32).toString('hex');
}

export function decodeCertificateKey(key: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(key)) {
    throw new TsadmError('E_CONFIG_INVALID', 'the certificate key must be 64 hexadecimal characters (32 bytes)', {
      hint: 'omit --certificate-key to generate one, or use the value printed by `tsadm init phase upload-certs --upload-certs`',
    });
  }
  return Buffer.from(key, 'hex');
}

/** One file to upload: its Secret key ("etcd/ca.crt" → "etcd-ca.crt") and host path. */
export interface CertFile {
  readonly key: string;
  readonly path: string;
}

/** kubeadm's certsToTransfer: CAs, SA keys and the etcd CA (or the external etcd client files). */
export function certFilesToUpload(certificatesDir: string, etcd: Etcd): CertFile[] {
  const names = ['ca.crt', 'ca.key', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'sa.pub', 'sa.key'];
  const files = names.map((n) => ({ key: n, path: path.posix.join(certificatesDir, n) }));
  if (etcd.mode === 'local') {
    files.push({ key: 'etcd-ca.crt', path: path.posix.join(certificatesDir, 'etcd/ca.crt') }, { key: 'etcd-ca.key', path: path.posix.join(certificatesDir, 'etcd/ca.key') });
  } else {
    files.push(
      { key: 'external-etcd-ca.crt', path: etcd.caFile },
      { key: 'external-etcd.crt', path: etcd.certFile },
      { key: 'external-etcd.key', path: etcd.keyFile },
    );
  }
  return files;
}

/** AES-256-GCM, random 12-byte nonce, output nonce ‖ ciphertext ‖ tag (Go's gcm.Seal(nonce, nonce, data, nil)). */
export function encryptBytes(plain: Buffer, key: Buffer, random: (n: number) => Buffer = randomBytes): Buffer {
  const nonce = random(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

export function decryptBytes(sealed: Buffer, key: Buffer): Buffer {
  if (sealed.length < 28) throw new TsadmError('E_TRUST', 'encrypted data is too short', { hint: 'the kubeadm-certs Secret is damaged; upload the certificates again' });
  const nonce = sealed.subarray(0, 12);
  const tag = sealed.subarray(sealed.length - 16);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
  } catch (err) {
    throw new TsadmError('E_TRUST', 'could not decrypt the control-plane certificates: wrong certificate key', { cause: err, hint: 'pass the key printed by init (--certificate-key)' });
  }
}

/**
 * The kubeadm-certs Secret: every file encrypted (a missing file is stored empty), owned by the
 * proxy token Secret so the garbage collector deletes it when the token expires.
 */
export function kubeadmCertsSecret(files: ReadonlyMap<string, Buffer | undefined>, key: Buffer, owner: OwnerReference, random?: (n: number) => Buffer): SecretObject {
  const data: Record<string, string> = {};
  for (const [name, content] of files) data[name] = content === undefined ? '' : encryptBytes(content, key, random).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: KUBEADM_CERTS_SECRET, namespace: KUBE_SYSTEM, ownerReferences: [owner] },
    type: 'Opaque',
    data,
  };
}

/** metav1.NewControllerRef to a Secret. */
export function secretControllerRef(secret: { readonly metadata: { readonly name: string; readonly uid?: string } }): OwnerReference {
  if (!secret.metadata.uid) throw new TsadmError('E_INTERNAL', `Secret ${secret.metadata.name} has no uid`);
  return { apiVersion: 'v1', kind: 'Secret', name: secret.metadata.name, uid: secret.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** Joining control planes (bootstrap-token authenticated) may read kubeadm-certs. */
export function kubeadmCertsRbac(): KubeObject[] {
  return [
    role(KUBEADM_CERTS_RBAC, KUBE_SYSTEM, [getNamed('secrets', [KUBEADM_CERTS_SECRET])]),
    roleBinding(KUBEADM_CERTS_RBAC, KUBE_SYSTEM, KUBEADM_CERTS_RBAC, [group(NODE_BOOTSTRAP_TOKEN_GROUP)]),
  ];
}
