/**
 * The lifecycle inventory against kubeadm's own list (the `certs renew` subcommands of the
 * reference kubeadm), the restart mapping, the renewal template and the kubeconfig credential
 * helpers (pure parts).
 */
import { generateKeyPair } from '../../../src/pki/keys.js';
import { randomSerial } from '../../../src/pki/serial.js';
import { signCertificate } from '../../../src/pki/sign.js';
import type { Certificate } from '../../../src/pki/certificate.js';
import { componentsToRestart, inventory, renewableNames } from '../../../src/certs-lifecycle/inventory.js';
import { readClientCredentials, withClientCredentials } from '../../../src/certs-lifecycle/kubeconfig-credentials.js';
import { renewalTemplate } from '../../../src/certs-lifecycle/renew-template.js';
import { renderKubeconfig } from '../../../src/kubeconfig/render.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { kubeadm } from '../../helpers/certs-lifecycle.js';
import { testWithOracles, oracles } from '../../helpers/oracle.js';

describe('inventory', () => {
  testWithOracles([oracles.kubeadm])('renewable names are kubeadm 1.20\'s `certs renew` subcommands (+ super-admin.conf of 1.29+)', () => {
    const help = kubeadm(['certs', 'renew', '--help']).stdout;
    const theirs = [...help.matchAll(/^ {2}(\S+)\s+Renew/gm)].map((m) => m[1]).filter((n) => n !== 'all');
    expect(theirs).toHaveLength(10);
    expect(renewableNames().filter((n) => n !== 'super-admin.conf')).toEqual(theirs);
    expect(renewableNames()).toContain('super-admin.conf');
  });

  test('external etcd drops the etcd certificates and the etcd CA', () => {
    const inv = inventory({ externalEtcd: true });
    expect(inv.certificates.map((c) => c.name)).toEqual(['admin.conf', 'apiserver', 'apiserver-kubelet-client', 'controller-manager.conf', 'front-proxy-client', 'scheduler.conf', 'super-admin.conf']);
    expect(inv.cas.map((c) => c.name)).toEqual(['ca', 'front-proxy-ca']);
    expect(inventory({ externalEtcd: false }).cas.map((c) => c.name)).toEqual(['ca', 'etcd-ca', 'front-proxy-ca']);
  });

  test('which static pods read which certificate', () => {
    const by = (names: string[]) => componentsToRestart(inventory({ externalEtcd: false }).certificates.filter((c) => names.includes(c.name)));
    expect(by(['apiserver-etcd-client', 'front-proxy-client'])).toEqual(['kube-apiserver']);
    expect(by(['etcd-peer'])).toEqual(['etcd']);
    expect(by(['etcd-healthcheck-client', 'admin.conf', 'super-admin.conf'])).toEqual([]);
    expect(by(['scheduler.conf', 'controller-manager.conf', 'etcd-server'])).toEqual(['etcd', 'kube-controller-manager', 'kube-scheduler']);
  });
});

describe('renewalTemplate', () => {
  let ca: Certificate;
  let caKey: Awaited<ReturnType<typeof generateKeyPair>>;
  let leaf: Certificate;
  const t0 = new Date('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    caKey = await generateKeyPair('ECDSA-P256');
    ca = signCertificate({ subject: { commonName: 'ca', organization: [] }, serial: 0n, notBefore: t0, notAfter: new Date('2026-06-01T00:00:00Z'), isCA: true, extKeyUsage: [], dnsNames: [], ipAddresses: [] }, caKey.publicKey, { privateKey: caKey.privateKey });
    const k = await generateKeyPair('ECDSA-P256');
    leaf = signCertificate({
      subject: { commonName: 'n', organization: ['x'] }, serial: randomSerial(), notBefore: t0, notAfter: new Date('2026-02-01T00:00:00Z'),
      isCA: false, leafBasicConstraints: true, extKeyUsage: ['serverAuth', 'clientAuth'], dnsNames: ['b', 'a'], ipAddresses: ['10.0.0.1'],
    }, k.publicKey, { privateKey: caKey.privateKey, certificate: ca });
  });

  test('keeps subject bytes, SAN order, usages, BasicConstraints; a new serial; never outlives the CA', () => {
    const { template, warnings } = renewalTemplate(leaf, ca, { startTime: new Date('2026-03-01T00:00:00Z'), versions: profileFor('v1.20.2'), cluster: { certificateValidityMs: 365 * 86_400_000, caCertificateValidityMs: 0 } }, 42n);
    expect(template).toMatchObject({ rawSubject: leaf.rawSubject, serial: 42n, dnsNames: ['b', 'a'], ipAddresses: ['10.0.0.1'], extKeyUsage: ['serverAuth', 'clientAuth'], leafBasicConstraints: true, isCA: false });
    expect(template.notBefore).toEqual(t0); // 1.20: the CA's NotBefore
    expect(template.notAfter).toEqual(ca.notAfter);
    expect(warnings).toEqual(['the CA expires on 2026-06-01T00:00:00.000Z; the renewed certificate cannot outlive it and expires then too']);
  });

  test('modern versions backdate 5 minutes from the renewal', () => {
    const start = new Date('2026-03-01T00:00:00Z');
    const { template, warnings } = renewalTemplate(leaf, ca, { startTime: start, versions: profileFor('v1.31.0'), cluster: { certificateValidityMs: 30 * 86_400_000, caCertificateValidityMs: 0 } });
    expect(template.notBefore).toEqual(new Date(start.getTime() - 5 * 60_000));
    expect(template.notAfter).toEqual(new Date(start.getTime() + 30 * 86_400_000));
    expect(warnings).toEqual([]);
  });
});

describe('kubeconfig client credentials', () => {
  const text = renderKubeconfig({ clusterName: 'c', server: 'https://s:6443', caPem: 'CA', userName: 'u', auth: { kind: 'client-certificate', certificatePem: 'CERT', keyPem: 'KEY' } });

  test('reads the current context\'s user and replaces only its credentials and the CA', () => {
    expect(readClientCredentials(text, 'f')).toEqual({ userName: 'u', clusterName: 'c', server: 'https://s:6443', certPem: Buffer.from('CERT'), keyPem: Buffer.from('KEY') });
    const out = withClientCredentials(text, 'f', { certPem: 'NEW', keyPem: 'KEY', caPem: 'CA2' });
    expect(out).toBe(text.replace(Buffer.from('CERT').toString('base64'), Buffer.from('NEW').toString('base64')).replace(Buffer.from('CA').toString('base64'), Buffer.from('CA2').toString('base64')));
  });

  test('file references (the kubelet\'s style) and broken files', () => {
    const files = renderKubeconfig({ clusterName: 'c', server: 's', caPem: 'CA', userName: 'u', auth: { kind: 'client-certificate-files', certificateFile: '/p/c.pem', keyFile: '/p/c.pem' } });
    expect(readClientCredentials(files, 'f')).toMatchObject({ certFile: '/p/c.pem', keyFile: '/p/c.pem' });
    expect(withClientCredentials(files, 'f', { certPem: 'C', keyPem: 'K' })).not.toContain('/p/c.pem');
    expect(readClientCredentials('current-context: x\ncontexts: []\n', 'f')).toBe('invalid kubeConfig file f: missing context x');
    // Invalid for Go's YAML reader and js-yaml alike (js-yaml 5 reads ': : :' as nested empty keys).
    expect(readClientCredentials('a: b: c', 'f')).toMatch(/^invalid kubeConfig file f: not valid YAML/);
  });
});
