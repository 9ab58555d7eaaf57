import { decryptKubeadmCerts } from '../../../../src/phases/join/download-certs.js';
import { kubeadmCertsSecret } from '../../../../src/certs/kubeadm-certs-secret.js';

describe('kubeadm-certs', () => {
  test('decrypts to the paths and modes init uses; empty entries are files the cluster does not have', () => {
    const key = Buffer.from('b'.repeat(64), 'hex');
    const files = new Map<string, Buffer | undefined>([
      ['ca.crt', Buffer.from('CA CERT')], ['ca.key', Buffer.from('CA KEY')], ['sa.pub', Buffer.from('SA PUB')], ['sa.key', Buffer.from('SA KEY')],
      ['front-proxy-ca.crt', undefined], ['etcd-ca.crt', Buffer.from('ETCD CA')], ['etcd-ca.key', Buffer.from('ETCD KEY')],
    ]);
    const secret = kubeadmCertsSecret(files, key, { apiVersion: 'v1', kind: 'Secret', name: 'bootstrap-token-abcdef', uid: 'u' });
    const out = decryptKubeadmCerts(secret, 'b'.repeat(64), '/etc/kubernetes/pki', { mode: 'local' } as never);
    expect(out.map((f) => [f.path, f.mode.toString(8), f.content.toString()])).toEqual([
      ['/etc/kubernetes/pki/ca.crt', '644', 'CA CERT'], ['/etc/kubernetes/pki/ca.key', '600', 'CA KEY'],
      ['/etc/kubernetes/pki/sa.pub', '600', 'SA PUB'], ['/etc/kubernetes/pki/sa.key', '600', 'SA KEY'],
      ['/etc/kubernetes/pki/etcd/ca.crt', '644', 'ETCD CA'], ['/etc/kubernetes/pki/etcd/ca.key', '600', 'ETCD KEY'],
    ]);
    expect(() => decryptKubeadmCerts(secret, 'c'.repeat(64), '/etc/kubernetes/pki', { mode: 'local' } as never)).toThrow('wrong certificate key');
    expect(() => decryptKubeadmCerts(secret, 'xyz', '/etc/kubernetes/pki', { mode: 'local' } as never)).toThrow('64 hexadecimal characters');
  });
});
