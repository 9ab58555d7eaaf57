import { expect } from '@jest/globals';
import {
  certFilesToUpload, decodeCertificateKey, decryptBytes, encryptBytes, generateCertificateKey, kubeadmCertsRbac, kubeadmCertsSecret, secretControllerRef,
} from '../../../src/certs/kubeadm-certs-secret.js';

describe('upload-certs payload (kubeadm copycerts)', () => {
  test('certificate keys: 64 hex characters; anything else is refused', () => {
    expect(generateCertificateKey()).toMatch(/^[0-9a-f]{64}$/);
    expect(decodeCertificateKey('AB'.repeat(32))).toHaveLength(32);
    expect(() => decodeCertificateKey('abc')).toThrow(expect.objectContaining({ code: 'E_CONFIG_INVALID' }));
  });

  test('AES-256-GCM as nonce ‖ ciphertext ‖ tag; wrong key → E_TRUST', () => {
    const key = Buffer.alloc(32, 7);
    const sealed = encryptBytes(Buffer.from('hello'), key, (n) => Buffer.alloc(n, 1));
    expect(sealed.length).toBe(12 + 5 + 16);
    expect(sealed.subarray(0, 12)).toEqual(Buffer.alloc(12, 1));
    expect(decryptBytes(sealed, key).toString()).toBe('hello');
    expect(() => decryptBytes(sealed, Buffer.alloc(32, 8))).toThrow(expect.objectContaining({ code: 'E_TRUST' }));
  });

  test('files: CAs, SA keys and the etcd CA (local) or the external etcd client files', () => {
    expect(certFilesToUpload('/pki', { mode: 'local', imageRepository: '', imageTag: '', dataDir: '', extraArgs: [], extraEnvs: [], serverCertSANs: [], peerCertSANs: [] }).map((f) => `${f.key}=${f.path}`)).toEqual([
      'ca.crt=/pki/ca.crt', 'ca.key=/pki/ca.key', 'front-proxy-ca.crt=/pki/front-proxy-ca.crt', 'front-proxy-ca.key=/pki/front-proxy-ca.key',
      'sa.pub=/pki/sa.pub', 'sa.key=/pki/sa.key', 'etcd-ca.crt=/pki/etcd/ca.crt', 'etcd-ca.key=/pki/etcd/ca.key',
    ]);
    expect(certFilesToUpload('/pki', { mode: 'external', endpoints: [], caFile: '/e/ca', certFile: '/e/c', keyFile: '/e/k' }).slice(6).map((f) => f.key)).toEqual(['external-etcd-ca.crt', 'external-etcd.crt', 'external-etcd.key']);
  });

  test('the Secret: owned by the proxy token, missing files stored empty', () => {
    const owner = secretControllerRef({ metadata: { name: 'bootstrap-token-abcdef', uid: 'u-1' } });
    const s = kubeadmCertsSecret(new Map([['ca.crt', Buffer.from('pem')], ['ca.key', undefined]]), Buffer.alloc(32, 3), owner);
    expect(s.metadata).toEqual({ name: 'kubeadm-certs', namespace: 'kube-system', ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'bootstrap-token-abcdef', uid: 'u-1', controller: true, blockOwnerDeletion: true }] });
    expect(s.type).toBe('Opaque');
    expect(s.data?.['ca.key']).toBe('');
    expect(decryptBytes(Buffer.from(s.data?.['ca.crt'] ?? '', 'base64'), Buffer.alloc(32, 3)).toString()).toBe('pem');
    expect(kubeadmCertsRbac().map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Role/kubeadm:kubeadm-certs', 'RoleBinding/kubeadm:kubeadm-certs']);
  });
});
