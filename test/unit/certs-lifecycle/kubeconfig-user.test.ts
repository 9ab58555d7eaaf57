/**
 * `tsadm kubeconfig user` (and kubeadm 1.20's `alpha kubeconfig user` spelling) against the
 * reference kubeadm's output for the same cluster, and the certificate it signs checked with openssl.
 */
import { jest } from '@jest/globals';
import { rmSync, writeFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { parseCertificatePem } from '../../../src/pki/certificate.js';
import { parsePrivateKeyPem } from '../../../src/pki/keys.js';
import { keyMatchesCertificate } from '../../../src/pki/verify.js';
import { openssl, verifyWith } from '../../helpers/pki-test-utils.js';
import { PKI, kubeadm, runCli, tsadmPki } from '../../helpers/certs-lifecycle.js';
import { testWithOracles, oracles } from '../../helpers/oracle.js';

jest.setTimeout(120_000);

type Kubeconfig = {
  clusters: { name: string; cluster: Record<string, string> }[];
  contexts: { name: string; context: Record<string, string> }[];
  users: { name: string; user: Record<string, string> }[];
  'current-context': string;
};

const maskData = (text: string): string => text.replace(/(-data: ).*/g, "$1<data>").trimEnd(); // kubeadm adds a blank line

describe('kubeconfig user', () => {
  let root: TempRoot;
  beforeAll(async () => {
    root = tempRoot();
    await tsadmPki(root);
  });
  afterAll(() => root.cleanup());

  const user = (...args: string[]) => runCli(['kubeconfig', 'user', '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml'), ...args]);

  test('a client certificate for CN=<client-name>, O=<orgs>, clientAuth, signed by the cluster CA, for the control-plane endpoint', async () => {
    const r = await user('--client-name', 'jane', '--org', 'devs', '--org', 'ops');
    expect(r.code).toBe(0);
    const kc = yaml.load(r.stdout) as Kubeconfig;
    expect(kc['current-context']).toBe('jane@kubernetes');
    expect(kc.clusters[0]?.cluster.server).toBe('https://10.0.0.5:6443');
    expect(Buffer.from(kc.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString()).toBe(
      (await import('node:fs')).readFileSync(root.at(`${PKI}/ca.crt`), 'utf8'));
    const certPem = Buffer.from(kc.users[0]?.user['client-certificate-data'] ?? '', 'base64');
    const cert = parseCertificatePem(certPem);
    expect(cert.subject.commonName).toBe('jane');
    expect(cert.subject.organization).toEqual(['devs', 'ops']);
    expect(cert.extKeyUsage).toEqual(['clientAuth']);
    expect(keyMatchesCertificate(cert, parsePrivateKeyPem(Buffer.from(kc.users[0]?.user['client-key-data'] ?? '', 'base64'), 'key'))).toBe(true);
    const file = root.at('/jane.crt');
    writeFileSync(file, certPem);
    expect(verifyWith(root.at(`${PKI}/ca.crt`), file)).toBe(true);
    expect(Math.round((cert.notAfter.getTime() - Date.now()) / 86_400_000)).toBe(365);
  });

  test('--validity-period sets how long the certificate lives', async () => {
    const r = await user('--client-name', 'ci', '--validity-period', '24h');
    const kc = yaml.load(r.stdout) as Kubeconfig;
    const cert = parseCertificatePem(Buffer.from(kc.users[0]?.user['client-certificate-data'] ?? '', 'base64'));
    expect(Math.abs(cert.notAfter.getTime() - Date.now() - 86_400_000)).toBeLessThan(60_000);
    expect((await user('--client-name', 'ci', '--validity-period', 'forever')).code).toBe(3);
  });

  test('--token: token authentication, no certificate, and it works without the CA key', async () => {
    const ext = tempRoot();
    try {
      (await import('node:fs')).cpSync(root.dir, ext.dir, { recursive: true });
      rmSync(ext.at(`${PKI}/ca.key`));
      const r = await runCli(['kubeconfig', 'user', '--rootfs', ext.dir, '--config', ext.at('/kubeadm.yaml'), '--client-name', 'bot', '--token', 'abcdef.0123456789abcdef']);
      expect(r.code).toBe(0);
      const kc = yaml.load(r.stdout) as Kubeconfig;
      expect(kc.users).toEqual([{ name: 'bot', user: { token: 'abcdef.0123456789abcdef' } }]);
      const noKey = await runCli(['kubeconfig', 'user', '--rootfs', ext.dir, '--config', ext.at('/kubeadm.yaml'), '--client-name', 'bot']);
      expect(noKey.code).toBe(1);
      expect(noKey.stderr).toContain('external CA mode');
    } finally {
      ext.cleanup();
    }
  });

  test('--client-name is required', async () => {
    const r = await user();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('client-name');
  });

  testWithOracles([oracles.kubeadm])('the same document as kubeadm alpha kubeconfig user (data masked), also under "alpha"', async () => {
    const ours = await runCli(['alpha', 'kubeconfig', 'user', '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml'), '--client-name', 'foo', '--org', 'a']);
    const theirs = kubeadm(['alpha', 'kubeconfig', 'user', '--rootfs', root.dir, '--config', '/kubeadm.yaml', '--client-name', 'foo', '--org', 'a']);
    expect(theirs.code).toBe(0);
    expect(maskData(ours.stdout)).toBe(maskData(theirs.stdout));
    const subject = (out: string): string => {
      const f = root.at(`/s-${Math.random()}.crt`);
      writeFileSync(f, Buffer.from(/client-certificate-data: (\S+)/.exec(out)?.[1] ?? '', 'base64'));
      return openssl(['x509', '-in', f, '-noout', '-subject', '-ext', 'extendedKeyUsage,keyUsage']);
    };
    expect(subject(ours.stdout)).toBe(subject(theirs.stdout));
    const tokenOurs = await user('--client-name', 'foo', '--token', 'abc.def');
    const tokenTheirs = kubeadm(['alpha', 'kubeconfig', 'user', '--rootfs', root.dir, '--config', '/kubeadm.yaml', '--client-name', 'foo', '--token', 'abc.def']);
    expect(maskData(tokenOurs.stdout)).toBe(maskData(tokenTheirs.stdout));
  });
});
