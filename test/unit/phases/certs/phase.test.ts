import { jest } from '@jest/globals';
import { rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { prefetchCertKeys } from '../../../../src/certs/prefetch.js';
import { parseCertificatePem } from '../../../../src/pki/certificate.js';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { dirMode, listTree, opensslText, runCerts, sanLine, subjectOf, verifyWith, pkiTestConfig } from '../../../helpers/pki-test-utils.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';

// Key generation and openssl make these tests slower than jest's 5 s default.
jest.setTimeout(60_000);

const NOW = new Date('2026-03-01T10:00:00.400Z');
const PKI = '/etc/kubernetes/pki';

const LEAVES: ReadonlyArray<[file: string, ca: string, subject: string, eku: string]> = [
  ['apiserver', 'ca', 'CN=kube-apiserver', 'TLS Web Server Authentication'],
  ['apiserver-kubelet-client', 'ca', 'CN=kube-apiserver-kubelet-client,O=system:masters', 'TLS Web Client Authentication'],
  ['front-proxy-client', 'front-proxy-ca', 'CN=front-proxy-client', 'TLS Web Client Authentication'],
  ['etcd/server', 'etcd/ca', 'CN=cp1', 'TLS Web Server Authentication, TLS Web Client Authentication'],
  ['etcd/peer', 'etcd/ca', 'CN=cp1', 'TLS Web Server Authentication, TLS Web Client Authentication'],
  ['etcd/healthcheck-client', 'etcd/ca', 'CN=kube-etcd-healthcheck-client,O=system:masters', 'TLS Web Client Authentication'],
  ['apiserver-etcd-client', 'etcd/ca', 'CN=kube-apiserver-etcd-client,O=system:masters', 'TLS Web Client Authentication'],
];

async function certsAll(root: TempRoot, cfg = pkiTestConfig(), opts: { dryRun?: boolean; now?: Date } = {}) {
  const { ctx, reporter } = initCtxFor(cfg, root.dir, { now: NOW, ...opts });
  await runCerts(ctx);
  return { ctx, reporter };
}

describe('certs all (v1.20, RSA)', () => {
  let root: TempRoot;
  let lines: string[];
  const rsa = pkiTestConfig({ encryptionAlgorithm: 'RSA-2048' });
  beforeAll(async () => {
    root = tempRoot();
    const { reporter } = await certsAll(root, rsa);
    lines = reporter.lines();
  }, 60_000);
  afterAll(() => root.cleanup());
  const at = (p: string): string => root.at(`${PKI}/${p}`);

  test('writes the 22 files with kubeadm modes; dirs 0755', () => {
    const files = listTree(root.at(PKI));
    expect([...files.keys()].sort()).toEqual([
      'apiserver-etcd-client.crt', 'apiserver-etcd-client.key', 'apiserver-kubelet-client.crt', 'apiserver-kubelet-client.key',
      'apiserver.crt', 'apiserver.key', 'ca.crt', 'ca.key', 'etcd/ca.crt', 'etcd/ca.key', 'etcd/healthcheck-client.crt',
      'etcd/healthcheck-client.key', 'etcd/peer.crt', 'etcd/peer.key', 'etcd/server.crt', 'etcd/server.key', 'front-proxy-ca.crt',
      'front-proxy-ca.key', 'front-proxy-client.crt', 'front-proxy-client.key', 'sa.key', 'sa.pub',
    ]);
    for (const [name, f] of files) {
      expect([name, f.mode.toString(8)]).toEqual([name, name.endsWith('.crt') ? '644' : '600']);
      const first = f.content.toString().split('\n')[0];
      if (name.endsWith('.key')) expect(first).toBe('-----BEGIN RSA PRIVATE KEY-----');
      if (name === 'sa.pub') expect(first).toBe('-----BEGIN PUBLIC KEY-----');
    }
    expect(dirMode(root.at(PKI)).toString(8)).toBe('755');
    expect(dirMode(at('etcd')).toString(8)).toBe('755');
  });

  test('logs kubeadm\'s lines in kubeadm\'s order', () => {
    expect(lines).toEqual([
      `Using certificateDir folder "${PKI}"`,
      'Generating "ca" certificate and key',
      'Generating "apiserver" certificate and key',
      'apiserver serving cert is signed for DNS names [cp.example.com cp1 kubernetes kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster.local] and IPs [10.96.0.1 10.0.0.5]',
      'Generating "apiserver-kubelet-client" certificate and key',
      'Generating "front-proxy-ca" certificate and key',
      'Generating "front-proxy-client" certificate and key',
      'Generating "etcd/ca" certificate and key',
      'Generating "etcd/server" certificate and key',
      'etcd/server serving cert is signed for DNS names [cp1 localhost] and IPs [10.0.0.5 127.0.0.1 ::1]',
      'Generating "etcd/peer" certificate and key',
      'etcd/peer serving cert is signed for DNS names [cp1 localhost] and IPs [10.0.0.5 127.0.0.1 ::1]',
      'Generating "etcd/healthcheck-client" certificate and key',
      'Generating "apiserver-etcd-client" certificate and key',
      'Generating "sa" key and public key',
    ]);
  });

  test('CAs: self-signed, serial 0, CA:TRUE, 10 years from now', () => {
    for (const [ca, cn] of [['ca', 'kubernetes'], ['front-proxy-ca', 'front-proxy-ca'], ['etcd/ca', 'etcd-ca']] as const) {
      const text = opensslText(at(`${ca}.crt`));
      expect(subjectOf(at(`${ca}.crt`))).toBe(`CN=${cn}`);
      expect(text).toContain('Serial Number: 0 (0x0)');
      expect(text).toMatch(/Basic Constraints: critical\s+CA:TRUE/);
      expect(text).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment, Certificate Sign/);
      const c = parseCertificatePem(readFileSync(at(`${ca}.crt`)));
      expect(c.notBefore.toISOString()).toBe('2026-03-01T10:00:00.000Z');
      expect(c.notAfter.toISOString()).toBe('2036-02-27T10:00:00.000Z');
      expect(verifyWith(at(`${ca}.crt`), at(`${ca}.crt`))).toBe(true);
    }
  });

  test.each(LEAVES)('%s: signed by %s, subject %s, EKU %s, no basic constraints, NotBefore = CA NotBefore', (file, ca, subject, eku) => {
    expect(verifyWith(at(`${ca}.crt`), at(`${file}.crt`))).toBe(true);
    expect(subjectOf(at(`${file}.crt`))).toBe(subject);
    const text = opensslText(at(`${file}.crt`));
    expect(text).toMatch(new RegExp(`Extended Key Usage: \\s+${eku}\\n`));
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment\n/);
    expect(text).not.toContain('Basic Constraints');
    const leaf = parseCertificatePem(readFileSync(at(`${file}.crt`)));
    const caCert = parseCertificatePem(readFileSync(at(`${ca}.crt`)));
    expect(leaf.notBefore).toEqual(caCert.notBefore);
    expect(leaf.notAfter.toISOString()).toBe('2027-03-01T10:00:00.000Z');
    expect(leaf.authorityKeyId?.equals(caCert.subjectKeyId as Buffer)).toBe(true);
    expect(leaf.serial).toBeGreaterThan(0n);
  });

  test('SAN lists in kubeadm order', () => {
    expect(sanLine(at('apiserver.crt'))).toBe('DNS:cp.example.com, DNS:cp1, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, IP Address:10.96.0.1, IP Address:10.0.0.5');
    expect(sanLine(at('etcd/server.crt'))).toBe('DNS:cp1, DNS:localhost, IP Address:10.0.0.5, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(sanLine(at('etcd/peer.crt'))).toBe('DNS:cp1, DNS:localhost, IP Address:10.0.0.5, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  });

  test('a second run changes no byte and rewrites nothing', async () => {
    const before = listTree(root.at(PKI));
    const { ctx, reporter } = await certsAll(root, rsa);
    expect(listTree(root.at(PKI))).toEqual(before); // content, mode, mtime and inode
    expect(ctx.host.writes).toEqual([]);
    expect(ctx.state.pki.keys.pendingIds).toEqual([]);
    expect(reporter.lines()).toEqual([
      `Using certificateDir folder "${PKI}"`,
      'Using existing ca certificate authority',
      'Using existing apiserver certificate and key on disk',
      'Using existing apiserver-kubelet-client certificate and key on disk',
      'Using existing front-proxy-ca certificate authority',
      'Using existing front-proxy-client certificate and key on disk',
      'Using existing etcd/ca certificate authority',
      'Using existing etcd/server certificate and key on disk',
      'Using existing etcd/peer certificate and key on disk',
      'Using existing etcd/healthcheck-client certificate and key on disk',
      'Using existing apiserver-etcd-client certificate and key on disk',
      'Using the existing "sa" key',
    ]);
  });
});

describe('dry-run', () => {
  test('same code path: 22 planned writes, nothing on disk', async () => {
    const root = tempRoot();
    try {
      const { ctx, reporter } = await certsAll(root, pkiTestConfig(), { dryRun: true });
      expect(existsSync(root.at('/etc'))).toBe(false);
      expect(ctx.host.writes.map((w) => w.path)).toHaveLength(22);
      expect(ctx.host.writes.find((w) => w.path === `${PKI}/sa.pub`)?.mode).toBe(0o600);
      expect(reporter.lines()).toContain('Generating "ca" certificate and key');
    } finally {
      root.cleanup();
    }
  });

  test('over an existing PKI the dry run reuses everything and plans no write', async () => {
    const root = tempRoot();
    try {
      await certsAll(root);
      const { ctx } = await certsAll(root, pkiTestConfig(), { dryRun: true });
      expect(ctx.host.writes).toEqual([]);
    } finally {
      root.cleanup();
    }
  });
});

describe('reuse refused with E_CONFLICT naming the file and the difference', () => {
  let root: TempRoot;
  beforeEach(async () => {
    root = tempRoot();
    await certsAll(root);
  });
  afterEach(() => root.cleanup());

  test('a new advertise address is missing from the existing apiserver certificate', async () => {
    const cfg = pkiTestConfig({}, { localAPIEndpoint: { advertiseAddress: '10.0.0.6', bindPort: 6443 } });
    const err = await tsadmErrorOf(certsAll(root, cfg));
    expect(err.code).toBe('E_CONFLICT');
    expect(err.message).toMatch(/error execution phase certs\/apiserver: existing certificate \/etc\/kubernetes\/pki\/apiserver\.crt cannot be reused: missing SAN IP:10\.0\.0\.6$/);
    expect(err.hint).toMatch(/remove \/etc\/kubernetes\/pki\/apiserver\.crt and \/etc\/kubernetes\/pki\/apiserver\.key/);
  });

  test('an extra SAN and a changed node name', async () => {
    const cfg = pkiTestConfig(
      { apiServer: { extraArgs: [], extraVolumes: [], extraEnvs: [], timeoutForControlPlaneMs: 0, certSANs: ['lb.example.com'] } },
      { nodeRegistration: { ...fixtureInitConfig().init.nodeRegistration, name: 'cp2' } },
    );
    const err = await tsadmErrorOf(certsAll(root, cfg));
    expect(err.message).toContain('missing SAN DNS:cp2, DNS:lb.example.com');
  });

  test('a leaf signed by another CA', async () => {
    const other = tempRoot();
    try {
      await certsAll(other);
      writeFileSync(root.at(`${PKI}/front-proxy-client.crt`), readFileSync(other.at(`${PKI}/front-proxy-client.crt`)));
      writeFileSync(root.at(`${PKI}/front-proxy-client.key`), readFileSync(other.at(`${PKI}/front-proxy-client.key`)));
      const err = await tsadmErrorOf(certsAll(root));
      expect(err.message).toContain('front-proxy-client.crt cannot be reused: not signed by CA "CN=front-proxy-ca" (/etc/kubernetes/pki/front-proxy-ca.crt)');
    } finally {
      other.cleanup();
    }
  });

  test('a key that does not belong to the certificate', async () => {
    writeFileSync(root.at(`${PKI}/apiserver-kubelet-client.key`), readFileSync(root.at(`${PKI}/apiserver-etcd-client.key`)));
    const err = await tsadmErrorOf(certsAll(root));
    expect(err.message).toContain('apiserver-kubelet-client.crt cannot be reused: the private key does not match the certificate');
  });

  test('a damaged CA key (its public point replaced) is refused naming the file, before anything is signed with it', async () => {
    // SEC1 DER ends with the uncompressed P-256 public point (65 bytes): take another key's.
    const sec1 = (file: string): Buffer => createPrivateKey(readFileSync(root.at(file))).export({ type: 'sec1', format: 'der' });
    const ca = sec1(`${PKI}/ca.key`);
    const other = sec1(`${PKI}/apiserver.key`);
    const damaged = Buffer.concat([ca.subarray(0, ca.length - 65), other.subarray(other.length - 65)]);
    writeFileSync(root.at(`${PKI}/ca.key`), `-----BEGIN EC PRIVATE KEY-----\n${damaged.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END EC PRIVATE KEY-----\n`);
    rmSync(root.at(`${PKI}/apiserver.crt`));
    rmSync(root.at(`${PKI}/apiserver.key`));
    const err = await tsadmErrorOf(certsAll(root));
    expect(err.code).toBe('E_CONFLICT');
    expect(err.message).toContain('/etc/kubernetes/pki/ca.key: the private key is damaged: the EC public point is not the private scalar times the generator');
    expect(err.hint).toContain('/etc/kubernetes/pki/ca.key');
    expect(existsSync(root.at(`${PKI}/apiserver.crt`))).toBe(false);
  });

  test('a certificate without its key is refused; a key without its certificate gets its certificate', async () => {
    rmSync(root.at(`${PKI}/etcd/peer.key`));
    expect((await tsadmErrorOf(certsAll(root))).message).toContain('/etc/kubernetes/pki/etcd/peer.crt exists but its key /etc/kubernetes/pki/etcd/peer.key does not');
    rmSync(root.at(`${PKI}/etcd/peer.crt`));
    const orphanKey = readFileSync(root.at(`${PKI}/etcd/server.key`));
    writeFileSync(root.at(`${PKI}/etcd/peer.key`), orphanKey);
    // What a run killed between the key and the certificate leaves: re-running recovers.
    await certsAll(root);
    expect(readFileSync(root.at(`${PKI}/etcd/peer.key`))).toEqual(orphanKey);
    const peer = new X509Certificate(readFileSync(root.at(`${PKI}/etcd/peer.crt`)));
    expect(peer.checkPrivateKey(createPrivateKey(orphanKey))).toBe(true);
    expect(peer.verify(new X509Certificate(readFileSync(root.at(`${PKI}/etcd/ca.crt`))).publicKey)).toBe(true);
  });

  test('a CA key without its certificate gets a self-signed CA certificate for that key', async () => {
    const caKey = readFileSync(root.at(`${PKI}/front-proxy-ca.key`));
    for (const f of ['front-proxy-ca.crt', 'front-proxy-client.crt', 'front-proxy-client.key']) rmSync(root.at(`${PKI}/${f}`));
    await certsAll(root);
    const ca = new X509Certificate(readFileSync(root.at(`${PKI}/front-proxy-ca.crt`)));
    expect(ca.ca).toBe(true);
    expect(ca.checkPrivateKey(createPrivateKey(caKey))).toBe(true);
    expect(new X509Certificate(readFileSync(root.at(`${PKI}/front-proxy-client.crt`))).verify(ca.publicKey)).toBe(true);
  });

  test('an expired leaf', async () => {
    const later = new Date(NOW.getTime() + 400 * 24 * 3600 * 1000);
    const { ctx } = initCtxFor(pkiTestConfig(), root.dir, { now: later });
    const err = await tsadmErrorOf(runCerts(ctx));
    expect(err.message).toContain('apiserver.crt cannot be reused: expired on 2027-03-01T10:00:00.000Z');
  });

  test('an unreadable CA, a CA that is not a CA, a CA key that does not match', async () => {
    writeFileSync(root.at(`${PKI}/ca.crt`), 'garbage');
    let err = await tsadmErrorOf(certsAll(root));
    expect([err.code, err.message]).toEqual(['E_CONFLICT', 'error execution phase certs/ca: /etc/kubernetes/pki/ca.crt: no PEM certificate found']);
    writeFileSync(root.at(`${PKI}/ca.crt`), readFileSync(root.at(`${PKI}/apiserver.crt`)));
    err = await tsadmErrorOf(certsAll(root));
    expect(err.message).toContain('certificate /etc/kubernetes/pki/ca.crt is not a CA');
    writeFileSync(root.at(`${PKI}/ca.crt`), readFileSync(root.at(`${PKI}/etcd/ca.crt`)));
    err = await tsadmErrorOf(certsAll(root));
    expect(err.message).toContain('/etc/kubernetes/pki/ca.key does not match the certificate /etc/kubernetes/pki/ca.crt');
  });

  test('sa.pub that is not the public key of sa.key', async () => {
    writeFileSync(root.at(`${PKI}/sa.pub`), (await import('node:crypto')).createPublicKey(readFileSync(root.at(`${PKI}/ca.key`))).export({ type: 'spki', format: 'pem' }));
    const err = await tsadmErrorOf(certsAll(root));
    expect(err.message).toContain('/etc/kubernetes/pki/sa.pub is not the public key of /etc/kubernetes/pki/sa.key');
  });

  test('a missing sa.pub is derived from the existing sa.key', async () => {
    const pub = readFileSync(root.at(`${PKI}/sa.pub`));
    rmSync(root.at(`${PKI}/sa.pub`));
    await certsAll(root);
    expect(readFileSync(root.at(`${PKI}/sa.pub`))).toEqual(pub);
  });
});

describe('external CA mode (ca.crt without ca.key)', () => {
  test('existing leaves are used, nothing is signed, missing leaves are a clear error', async () => {
    const root = tempRoot();
    try {
      await certsAll(root);
      rmSync(root.at(`${PKI}/ca.key`));
      const before = listTree(root.at(PKI));
      const { reporter } = await certsAll(root);
      expect(listTree(root.at(PKI))).toEqual(before);
      expect(reporter.lines()).toContain('Using existing ca keyless certificate authority');
      expect(reporter.lines()).toContain('Using existing apiserver certificate and key on disk');
      expect(reporter.lines()).toContain('Using existing sa keys');

      rmSync(root.at(`${PKI}/apiserver.crt`));
      rmSync(root.at(`${PKI}/apiserver.key`));
      const err = await tsadmErrorOf(certsAll(root));
      expect(err.code).toBe('E_PRECONDITION');
      expect(err.message).toBe('error execution phase certs/apiserver: external CA mode: /etc/kubernetes/pki/apiserver.crt is missing and tsadm cannot sign it without /etc/kubernetes/pki/ca.key');
      expect(err.hint).toContain('--csr-only');
    } finally {
      root.cleanup();
    }
  });
});

describe('single phases', () => {
  test('a leaf before its CA fails clearly; one phase generates exactly one key', async () => {
    const root = tempRoot();
    try {
      const { ctx } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      const err = await tsadmErrorOf(runCerts(ctx, ['certs/apiserver']));
      expect(err.message).toContain("couldn't load the ca CA that signs \"apiserver\": /etc/kubernetes/pki/ca.crt does not exist");
      expect(err.hint).toContain('tsadm init phase certs ca');
      const one = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      await runCerts(one.ctx, ['certs/ca']);
      expect(one.ctx.state.pki.keys.pendingIds).toEqual([]);
      expect([...listTree(root.at(PKI)).keys()]).toEqual(['ca.crt', 'ca.key']);
      const two = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      await runCerts(two.ctx, ['certs/apiserver']);
      expect(verifyWith(root.at(`${PKI}/ca.crt`), root.at(`${PKI}/apiserver.crt`))).toBe(true);
    } finally {
      root.cleanup();
    }
  });

  test('prefetch plans keys only for files that will be created and phases not skipped', async () => {
    const root = tempRoot();
    try {
      await certsAll(root);
      rmSync(root.at(`${PKI}/apiserver.crt`));
      rmSync(root.at(`${PKI}/apiserver.key`));
      rmSync(root.at(`${PKI}/etcd/peer.crt`));
      rmSync(root.at(`${PKI}/etcd/peer.key`));
      rmSync(root.at(`${PKI}/sa.key`));
      const { ctx } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      expect(await prefetchCertKeys(ctx, 'ca')).toEqual(['apiserver', 'etcd-peer', 'sa']);
      const skipping = initCtxFor(pkiTestConfig({}, { skipPhases: ['certs/etcd-peer', 'certs sa'] }), root.dir, { now: NOW });
      expect(await prefetchCertKeys(skipping.ctx, 'ca')).toEqual(['apiserver']);
      await runCerts(ctx); // takes the prefetched keys
      expect(ctx.state.pki.keys.pendingIds).toEqual([]);
    } finally {
      root.cleanup();
    }
  });
});

describe('ECDSA', () => {
  test.each(['ECDSA-P256', 'ECDSA-P384'] as const)('%s: EC PRIVATE KEY files, ecdsa signatures, chains verify', async (alg) => {
    const root = tempRoot();
    try {
      await certsAll(root, pkiTestConfig({ encryptionAlgorithm: alg }));
      const files = listTree(root.at(PKI));
      for (const [name, f] of files) if (name.endsWith('.key')) expect(f.content.toString()).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n/);
      expect(files.get('sa.pub')?.content.toString()).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
      expect(opensslText(root.at(`${PKI}/apiserver.crt`))).toContain(`Signature Algorithm: ${alg === 'ECDSA-P256' ? 'ecdsa-with-SHA256' : 'ecdsa-with-SHA384'}`);
      for (const [file, ca] of LEAVES) expect(verifyWith(root.at(`${PKI}/${ca}.crt`), root.at(`${PKI}/${file}.crt`))).toBe(true);
      const before = listTree(root.at(PKI));
      await certsAll(root, pkiTestConfig({ encryptionAlgorithm: alg }));
      expect(listTree(root.at(PKI))).toEqual(before);
    } finally {
      root.cleanup();
    }
  });
});

describe('ML-DSA (v1.38 pre-release, kubeadm PR #142037)', () => {
  test('ML-DSA-65: PKCS#8 key files, every leaf verifies under its CA (OpenSSL 3.5 in Node), no keyEncipherment; a second run reuses everything', async () => {
    const root = tempRoot();
    const cfg = pkiTestConfig({ kubernetesVersion: 'v1.38.0-rc.0', encryptionAlgorithm: 'ML-DSA-65' });
    try {
      await certsAll(root, cfg);
      const files = listTree(root.at(PKI));
      for (const [name, f] of files) if (name.endsWith('.key')) expect(f.content.toString()).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      const cert = (p: string): X509Certificate => new X509Certificate(readFileSync(root.at(`${PKI}/${p}.crt`)));
      for (const [file, ca] of LEAVES) {
        expect([file, cert(file).verify(cert(ca).publicKey), cert(file).checkIssued(cert(ca))]).toEqual([file, true, true]);
        expect(createPrivateKey(readFileSync(root.at(`${PKI}/${file}.key`))).asymmetricKeyType).toBe('ml-dsa-65');
      }
      // RFC 9881's id-ml-dsa-65, read by the system openssl (3.0), which names it by OID only.
      expect(opensslText(root.at(`${PKI}/apiserver.crt`))).toContain('Signature Algorithm: 2.16.840.1.101.3.4.3.18');
      expect(opensslText(root.at(`${PKI}/apiserver.crt`))).toMatch(/X509v3 Key Usage: critical\s+Digital Signature\n/);
      const before = listTree(root.at(PKI));
      await certsAll(root, cfg);
      expect(listTree(root.at(PKI))).toEqual(before);
    } finally {
      root.cleanup();
    }
  });
});

describe('v1.37: apiserver-kubelet-client without O (kubeadm PR #138957: its rights come from the kubeadm:apiserver-kubelet-client ClusterRoleBinding)', () => {
  test('the subject is CN only; a v1.36 certificate (O=kubeadm:cluster-admins) is not reused', async () => {
    const root = tempRoot();
    try {
      await certsAll(root, pkiTestConfig({ kubernetesVersion: 'v1.37.0' }));
      expect(subjectOf(root.at(`${PKI}/apiserver-kubelet-client.crt`))).toBe('CN=kube-apiserver-kubelet-client');
      const old = tempRoot();
      try {
        await certsAll(old, pkiTestConfig({ kubernetesVersion: 'v1.36.0' }));
        expect(subjectOf(old.at(`${PKI}/apiserver-kubelet-client.crt`))).toBe('CN=kube-apiserver-kubelet-client,O=kubeadm:cluster-admins');
        const err = await tsadmErrorOf(certsAll(old, pkiTestConfig({ kubernetesVersion: 'v1.37.0' })));
        expect(err.message).toContain('apiserver-kubelet-client.crt cannot be reused: subject O is [kubeadm:cluster-admins], want []');
      } finally {
        old.cleanup();
      }
    } finally {
      root.cleanup();
    }
  });
});

describe('kubeadm PR #138957 by patch release: apiserver-kubelet-client loses O at v1.35.5 and v1.36.1 (cherry-picks #138959, #138958)', () => {
  test.each([
    ['v1.35.4', 'CN=kube-apiserver-kubelet-client,O=kubeadm:cluster-admins'],
    ['v1.35.5', 'CN=kube-apiserver-kubelet-client'],
    ['v1.36.0', 'CN=kube-apiserver-kubelet-client,O=kubeadm:cluster-admins'],
    ['v1.36.1', 'CN=kube-apiserver-kubelet-client'],
  ])('%s: %s', async (version, subject) => {
    const root = tempRoot();
    try {
      await certsAll(root, pkiTestConfig({ kubernetesVersion: version }));
      expect(subjectOf(root.at(`${PKI}/apiserver-kubelet-client.crt`))).toBe(subject);
    } finally {
      root.cleanup();
    }
  });
});

describe('modern versions (v1.34)', () => {
  test('kubeadm:cluster-admins, no O on etcd clients, backdated validity, CA:FALSE on leaves, random CA serial', async () => {
    const root = tempRoot();
    try {
      const cfg = pkiTestConfig({ kubernetesVersion: 'v1.34.1', certificateValidityMs: 30 * 24 * 3600 * 1000, caCertificateValidityMs: 5 * 365 * 24 * 3600 * 1000 });
      await certsAll(root, cfg);
      const at = (p: string): string => root.at(`${PKI}/${p}`);
      expect(subjectOf(at('apiserver-kubelet-client.crt'))).toBe('CN=kube-apiserver-kubelet-client,O=kubeadm:cluster-admins');
      expect(subjectOf(at('etcd/healthcheck-client.crt'))).toBe('CN=kube-etcd-healthcheck-client');
      expect(subjectOf(at('apiserver-etcd-client.crt'))).toBe('CN=kube-apiserver-etcd-client');
      const ca = parseCertificatePem(readFileSync(at('ca.crt')));
      expect(ca.serial).not.toBe(0n);
      expect(ca.notBefore.toISOString()).toBe('2026-03-01T09:55:00.000Z');
      expect(ca.notAfter.toISOString()).toBe('2031-02-28T10:00:00.000Z');
      for (const [file] of LEAVES) {
        const leaf = parseCertificatePem(readFileSync(at(`${file}.crt`)));
        expect(leaf.notBefore.toISOString()).toBe('2026-03-01T09:55:00.000Z');
        expect(leaf.notAfter.toISOString()).toBe('2026-03-31T10:00:00.000Z');
        expect(opensslText(at(`${file}.crt`))).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
      }
      // a 1.20 PKI re-used by a 1.34 run is refused where the subject changed (O of the kubelet client)
      const old = tempRoot();
      try {
        await certsAll(old);
        const err = await tsadmErrorOf(certsAll(old, cfg));
        expect(err.message).toContain('apiserver-kubelet-client.crt cannot be reused: subject O is [system:masters], want [kubeadm:cluster-admins]');
      } finally {
        old.cleanup();
      }
    } finally {
      root.cleanup();
    }
  });
});

describe('external etcd', () => {
  test('etcd certificates are skipped with kubeadm\'s messages', async () => {
    const root = tempRoot();
    try {
      const cfg = pkiTestConfig({ etcd: { mode: 'external', endpoints: ['https://10.0.0.9:2379'], caFile: '', certFile: '', keyFile: '' } });
      const { reporter } = await certsAll(root, cfg);
      expect(listTree(root.at(PKI)).size).toBe(12);
      expect(reporter.lines()).toContain('External etcd mode: Skipping etcd/ca certificate authority generation');
      expect(reporter.lines()).toContain('External etcd mode: Skipping apiserver-etcd-client certificate generation');
    } finally {
      root.cleanup();
    }
  });
});

describe('--csr-only', () => {
  test('writes key and CSR for leaves (CAs and sa as usual), then reuses them', async () => {
    const root = tempRoot();
    try {
      const cfg = pkiTestConfig();
      const { ctx, reporter } = initCtxFor(cfg, root.dir, { now: NOW });
      const csrCtx = { ...ctx, options: { ...ctx.options, csrOnly: true, csrDir: '/tmp/csrs' } };
      await runCerts(csrCtx);
      const csrs = listTree(root.at('/tmp/csrs'));
      expect([...csrs.keys()].filter((f) => f.endsWith('.csr'))).toHaveLength(7);
      expect(csrs.get('apiserver.csr')?.mode).toBe(0o600);
      const text = (await import('../../../helpers/pki-test-utils.js')).openssl(['req', '-in', root.at('/tmp/csrs/apiserver.csr'), '-noout', '-text', '-verify']);
      expect(text).toContain('DNS:cp.example.com, DNS:cp1, DNS:kubernetes');
      expect(reporter.lines()).toContain('Generating CSR for apiserver instead of certificate');
      expect(reporter.lines()).toContain('Generating "apiserver" key and CSR');
      expect(existsSync(root.at(`${PKI}/ca.crt`))).toBe(true);
      expect(existsSync(root.at(`${PKI}/apiserver.crt`))).toBe(false);
      const again = initCtxFor(cfg, root.dir, { now: NOW });
      await runCerts({ ...again.ctx, options: { ...again.ctx.options, csrOnly: true, csrDir: '/tmp/csrs' } });
      expect(again.reporter.lines()).toContain('Using the existing "apiserver" CSR');
      expect(listTree(root.at('/tmp/csrs'))).toEqual(csrs);
    } finally {
      root.cleanup();
    }
  });

  test('a key beside its CSR waits for the external CA: a run without --csr-only refuses to sign it', async () => {
    const root = tempRoot();
    try {
      const { ctx } = initCtxFor(pkiTestConfig(), root.dir, { now: NOW });
      await runCerts({ ...ctx, options: { ...ctx.options, csrOnly: true } });
      expect(existsSync(root.at(`${PKI}/apiserver.csr`))).toBe(true);
      const key = readFileSync(root.at(`${PKI}/apiserver.key`));
      const err = await tsadmErrorOf(certsAll(root));
      expect(err.message).toContain('/etc/kubernetes/pki/apiserver.key and its CSR exist but its certificate /etc/kubernetes/pki/apiserver.crt does not');
      expect(existsSync(root.at(`${PKI}/apiserver.crt`))).toBe(false);
      expect(readFileSync(root.at(`${PKI}/apiserver.key`))).toEqual(key);
    } finally {
      root.cleanup();
    }
  });
});

describe('extra SAN warnings', () => {
  test('invalid SANs are reported and left out', async () => {
    const root = tempRoot();
    try {
      const { reporter } = await certsAll(root, pkiTestConfig({ apiServer: { extraArgs: [], extraVolumes: [], extraEnvs: [], timeoutForControlPlaneMs: 0, certSANs: ['not_valid', '10.1.1.1'] } }));
      expect(reporter.events.some((e) => e.type === 'log' && e.level === 'warn' && e.message.includes("'not_valid' was not added to the 'apiserver' SAN"))).toBe(true);
      expect(sanLine(root.at(`${PKI}/apiserver.crt`))).toMatch(/IP Address:10\.0\.0\.5, IP Address:10\.1\.1\.1$/);
    } finally {
      root.cleanup();
    }
  });
});

describe('phase tree', () => {
  test('one child per certificate plus sa, valid names and flags (the CLI adds "all")', async () => {
    const { certsPhase } = await import('../../../../src/phases/certs/phase.js');
    const { kubeconfigPhase } = await import('../../../../src/phases/kubeconfig/phase.js');
    const { validateTree, flagsOf } = await import('../../../../src/engine/phase.js');
    const { FLAG_NAMES } = await import('../../../../src/flags.js');
    expect(() => validateTree([certsPhase, kubeconfigPhase], FLAG_NAMES)).not.toThrow();
    expect(certsPhase.children?.map((c) => c.name)).toEqual([
      'ca', 'apiserver', 'apiserver-kubelet-client', 'front-proxy-ca', 'front-proxy-client',
      'etcd-ca', 'etcd-server', 'etcd-peer', 'etcd-healthcheck-client', 'apiserver-etcd-client', 'sa',
    ]);
    expect(kubeconfigPhase.children?.map((c) => c.name)).toEqual(['admin', 'super-admin', 'kubelet', 'controller-manager', 'scheduler']);
    const apiserver = certsPhase.children?.find((c) => c.name === 'apiserver');
    expect(apiserver?.flags).toEqual(expect.arrayContaining(['cert-dir', 'apiserver-advertise-address', 'control-plane-endpoint', 'apiserver-cert-extra-sans', 'service-cidr', 'service-dns-domain', 'kubernetes-version', 'node-name', 'config', 'csr-only', 'csr-dir']));
    expect(certsPhase.children?.find((c) => c.name === 'ca')?.flags).toEqual(['cert-dir', 'config', 'kubernetes-version']);
    expect(flagsOf(kubeconfigPhase)).toEqual(['apiserver-advertise-address', 'control-plane-endpoint', 'apiserver-bind-port', 'cert-dir', 'config', 'kubeconfig-dir', 'kubernetes-version', 'node-name']);
  });
});

describe('starting from an existing CA (test/fixtures/pki)', () => {
  test('the CA is reused byte for byte, leaves are signed by it, its hash is the published pin', async () => {
    const fixture = (f: string): string => readFileSync(new URL(`../../../fixtures/pki/${f}`, import.meta.url), 'utf8');
    const root = tempRoot({ [`${PKI}/ca.crt`]: fixture('ca.crt'), [`${PKI}/ca.key`]: { content: fixture('ca.key'), mode: 0o600 } });
    try {
      const { reporter } = await certsAll(root);
      expect(readFileSync(root.at(`${PKI}/ca.crt`), 'utf8')).toBe(fixture('ca.crt'));
      expect(reporter.lines()).toContain('Using existing ca certificate authority');
      expect(verifyWith(root.at(`${PKI}/ca.crt`), root.at(`${PKI}/apiserver.crt`))).toBe(true);
      const { caCertHash } = await import('../../../../src/pki/hash.js');
      expect(caCertHash(fixture('ca.crt'))).toBe(fixture('ca.hash').trim());
    } finally {
      root.cleanup();
    }
  });
});
