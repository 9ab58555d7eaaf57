import { expect } from '@jest/globals';
import { renderClosingText, renderInitDone } from '../../../src/phases/cluster/show-join-command.js';
import { pointAtRotatingCert } from '../../../src/phases/cluster/kubelet-finalize.js';
import {
  certFilesToUpload, decodeCertificateKey, decryptBytes, encryptBytes, generateCertificateKey, kubeadmCertsRbac, kubeadmCertsSecret, secretControllerRef,
} from '../../../src/phases/cluster/upload-certs-render.js';
import { fixtureText } from './kubeadm-fixtures.js';

describe('closing text of init (kubeadm\'s initDoneTempl)', () => {
  const target = { endpoint: '10.250.0.11:6443', caCertHashes: ['sha256:9ba9cee3dbd9546c872952bce82c382282d2857453e7a61f44ee4e70b3987d93'] };
  const base = { target, tokens: ['6y93s7.6izlgr6grp9t59gz'], kubeconfigPath: '/etc/kubernetes/admin.conf', controlPlaneEndpoint: '10.250.0.11:6443', uploadCerts: false, certificateKey: undefined, skipTokenPrint: false, skipCertificateKeyPrint: false };

  test('byte-identical to a real kubeadm v1.20.2 init (controlPlaneEndpoint set, no --upload-certs), with "tsadm join"', () => {
    const expected = fixtureText('cluster/fixtures/kubeadm-1.20-init-done.txt').replaceAll('kubeadm join', 'tsadm join');
    expect(renderClosingText(base).text).toBe(expected);
  });

  test('no controlPlaneEndpoint: only the worker command', () => {
    const text = renderClosingText({ ...base, controlPlaneEndpoint: '' }).text;
    expect(text).not.toContain('control-plane nodes');
    expect(text).toContain('/addons/\n\nThen you can join any number of worker nodes');
  });

  test('--upload-certs: the control-plane command carries the certificate key, with the two-hour warning', () => {
    const { text, controlPlane, worker } = renderClosingText({ ...base, uploadCerts: true, certificateKey: 'ab'.repeat(32) });
    expect(controlPlane).toBe(`tsadm join 10.250.0.11:6443 --token 6y93s7.6izlgr6grp9t59gz \\\n    --discovery-token-ca-cert-hash ${target.caCertHashes[0]} \\\n    --control-plane --certificate-key ${'ab'.repeat(32)}`);
    expect(worker).toBe(`tsadm join 10.250.0.11:6443 --token 6y93s7.6izlgr6grp9t59gz \\\n    --discovery-token-ca-cert-hash ${target.caCertHashes[0]} `);
    expect(text).toContain('You can now join any number of the control-plane node running the following command on each as root:\n\n  tsadm join');
    expect(text).toContain('"tsadm init phase upload-certs --upload-certs" to reload certs afterward.\n\nThen you can join');
  });

  test('--skip-token-print and --skip-certificate-key-print withhold the secrets', () => {
    const { text } = renderClosingText({ ...base, uploadCerts: true, certificateKey: 'ab'.repeat(32), skipTokenPrint: true, skipCertificateKeyPrint: true });
    expect(text).not.toContain('6y93s7');
    expect(text).not.toContain('abab');
    expect(text).toContain('--token <value withheld>');
    expect(text).toContain('--certificate-key <value withheld>');
  });

  test('one closing text per token, as kubeadm prints it', () => {
    expect(renderClosingText({ ...base, tokens: ['aaaaaa.0123456789abcdef', 'bbbbbb.0123456789abcdef'] }).text.match(/initialized successfully/g)).toHaveLength(2);
    expect(renderInitDone({ kubeconfigPath: '/k', controlPlaneEndpoint: '', uploadCerts: false, joinControlPlaneCommand: 'x', joinWorkerCommand: 'w' }).endsWith('as root:\n\nw\n')).toBe(true);
  });
});

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

describe('kubelet-finalize rewrite', () => {
  const conf = [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    '    certificate-authority-data: Q0E=',
    '    server: https://10.0.0.1:6443',
    '  name: kubernetes',
    'contexts:',
    '- context:',
    '    cluster: kubernetes',
    '    user: system:node:cp1',
    '  name: system:node:cp1@kubernetes',
    'current-context: system:node:cp1@kubernetes',
    'kind: Config',
    'preferences: {}',
    'users:',
    '- name: system:node:cp1',
    '  user:',
    '    client-certificate-data: Q0VSVA==',
    '    client-key-data: S0VZ',
    '',
  ].join('\n');
  const pem = '/var/lib/kubelet/pki/kubelet-client-current.pem';

  test('the node user points at the rotating PEM; embedded data is dropped; nothing else changes', () => {
    const r = pointAtRotatingCert(conf, 'cp1', pem, '/etc/kubernetes/kubelet.conf');
    expect(r.changed).toBe(true);
    expect(r.text).toBe(conf.replace('    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n', `    client-certificate: ${pem}\n    client-key: ${pem}\n`));
    expect(pointAtRotatingCert(r.text, 'cp1', pem, '/etc/kubernetes/kubelet.conf')).toEqual({ text: r.text, changed: false });
  });

  test('a kubelet.conf for another node is refused', () => {
    expect(() => pointAtRotatingCert(conf, 'cp2', pem, '/etc/kubernetes/kubelet.conf')).toThrow('the file "/etc/kubernetes/kubelet.conf" does not contain authentication for user "cp2"');
  });
});
