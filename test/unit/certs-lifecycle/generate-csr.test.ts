/**
 * `tsadm certs generate-csr` and the external-CA workflow: the same files, modes and CSR
 * contents as the reference kubeadm's generate-csr; then an outside CA made with openssl signs
 * every CSR, and tsadm's certs and kubeconfig phases (external-CA mode: ca.crt without ca.key)
 * accept the result without writing a byte, as kubeadm's own init phases do.
 */
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { initCtxFor } from '../../helpers/phase-ctx.js';
import { listTree, openssl, runCerts, runKubeconfigs, verifyWith } from '../../helpers/pki-test-utils.js';
import { KC,  PKI, kubeadm, runCli, writeConfig } from '../../helpers/certs-lifecycle.js';
import { describeWithOracles, oracles } from '../../helpers/oracle.js';

jest.setTimeout(180_000);

const describeWithKubeadm = describeWithOracles([oracles.kubeadm]);

/** What the outside CA puts in each certificate: kubeadm's usages (docs/kubeadm-reference.md §2.1). */
const LEAF_EKU: Record<string, string> = {
  apiserver: 'serverAuth',
  'apiserver-kubelet-client': 'clientAuth',
  'front-proxy-client': 'clientAuth',
  'etcd/server': 'serverAuth,clientAuth',
  'etcd/peer': 'serverAuth,clientAuth',
  'etcd/healthcheck-client': 'clientAuth',
  'apiserver-etcd-client': 'clientAuth',
};
const SIGNED_BY: Record<string, string> = {
  apiserver: 'ca', 'apiserver-kubelet-client': 'ca', 'front-proxy-client': 'front-proxy-ca',
  'etcd/server': 'etcd/ca', 'etcd/peer': 'etcd/ca', 'etcd/healthcheck-client': 'etcd/ca', 'apiserver-etcd-client': 'etcd/ca',
};
const CONFS = ['admin.conf', 'kubelet.conf', 'controller-manager.conf', 'scheduler.conf'];

const generateCsr = (root: TempRoot, ...extra: string[]) =>
  runCli(['certs', 'generate-csr', '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml'), ...extra]);

/** `openssl req -text` without the key and signature bytes. */
function csrText(file: string): string[] {
  return openssl(['req', '-in', file, '-noout', '-text'])
    .split('\n').filter((l) => !/^\s+([0-9a-fA-F]{2}:)+[0-9a-fA-F]{0,2}$/.test(l)).filter((l) => l.trim() !== '');
}

const maskData = (text: string): string => text.replace(/(-data: ).*/g, '$1<data>');

/** An outside CA, as an organisation's PKI would be: openssl, its own names, keys kept elsewhere. */
function outsideCA(dir: string, name: string, cn: string): { crt: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const crt = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '3650', '-subj', `/O=Example Corp/CN=${cn}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign']);
  return { crt, key };
}

function sign(csr: string, ca: { crt: string; key: string }, eku: string, out: string): void {
  const ext = `${out}.ext`;
  writeFileSync(ext, `keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=${eku}\n`);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.crt, '-CAkey', ca.key, '-set_serial', `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6)}`,
    '-days', '365', '-copy_extensions', 'copyall', '-extfile', ext, '-out', out]);
  rmSync(ext);
}

describeWithKubeadm('certs generate-csr against kubeadm\'s', () => {
  let ours: TempRoot;
  let theirs: TempRoot;
  beforeAll(async () => {
    ours = tempRoot();
    theirs = tempRoot();
    writeConfig(ours);
    writeConfig(theirs);
    const r = await generateCsr(ours);
    if (r.code !== 0) throw new Error(r.stderr);
    const k = kubeadm(['certs', 'generate-csr', '--rootfs', theirs.dir, '--config', '/kubeadm.yaml']);
    if (k.code !== 0) throw new Error(k.stderr);
  });
  afterAll(() => {
    ours.cleanup();
    theirs.cleanup();
  });

  test('the same files with the same modes (plus sa.key/sa.pub, which an external-CA init needs too)', () => {
    const list = (r: TempRoot) => [...listTree(r.at(KC))].map(([p, f]) => [p, f.mode.toString(8)]);
    expect(list(ours)).toEqual([...list(theirs), ['pki/sa.key', '600'], ['pki/sa.pub', '600']].sort((a, b) => (a[0] as string).localeCompare(b[0] as string)));
    expect(list(ours)).toHaveLength(7 * 2 + 4 * 2 + 2);
  });

  test('every CSR asks for the same subject and SANs as kubeadm\'s, signed with its key', () => {
    const csrs = [...listTree(theirs.at(KC)).keys()].filter((f) => f.endsWith('.csr'));
    expect(csrs).toHaveLength(11);
    for (const f of csrs) {
      expect([f, csrText(ours.at(`${KC}/${f}`))]).toEqual([f, csrText(theirs.at(`${KC}/${f}`))]);
      openssl(['req', '-in', ours.at(`${KC}/${f}`), '-noout', '-verify']);
      const keyFile = f.endsWith('.conf.csr') ? undefined : ours.at(`${KC}/${f.replace(/\.csr$/, '.key')}`);
      if (keyFile) expect(openssl(['rsa', '-in', keyFile, '-noout', '-modulus'])).toBe(openssl(['req', '-in', ours.at(`${KC}/${f}`), '-noout', '-modulus']));
    }
  });

  test('partial kubeconfigs are kubeadm\'s: the client key, no certificate (and no CA when there is none yet)', () => {
    for (const f of CONFS) {
      expect([f, maskData(readFileSync(ours.at(`${KC}/${f}`), 'utf8'))]).toEqual([f, maskData(readFileSync(theirs.at(`${KC}/${f}`), 'utf8'))]);
      const key = Buffer.from(/client-key-data: (\S+)/.exec(readFileSync(ours.at(`${KC}/${f}`), 'utf8'))?.[1] ?? '', 'base64');
      const keyFile = ours.at(`/${f}.key`);
      writeFileSync(keyFile, key);
      expect(openssl(['rsa', '-in', keyFile, '-noout', '-modulus'])).toBe(openssl(['req', '-in', ours.at(`${KC}/${f}.csr`), '-noout', '-modulus']));
    }
  });

  test('a second run keeps every key and CSR (kubeadm stops with "file already exists")', async () => {
    const before = listTree(ours.at(KC));
    const r = await generateCsr(ours);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Generating');
    expect(listTree(ours.at(KC))).toEqual(before);
    expect(kubeadm(['certs', 'generate-csr', '--rootfs', theirs.dir, '--config', '/kubeadm.yaml']).stderr).toContain('file already exists');
  });

  test('--dry-run writes nothing', async () => {
    const dry = tempRoot();
    try {
      writeConfig(dry);
      const r = await generateCsr(dry, '--dry-run');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[dryrun]   /etc/kubernetes/pki/apiserver.csr  0600');
      expect([...listTree(dry.dir).keys()]).toEqual(['kubeadm.yaml']);
    } finally {
      dry.cleanup();
    }
  });
});

describeWithKubeadm('external-CA workflow: generate-csr, sign with openssl, init phases accept', () => {
  let root: TempRoot;
  let signed: ReturnType<typeof listTree>;
  const outside = (): string => root.at('/outside-pki');
  beforeAll(async () => {
    root = tempRoot();
    writeConfig(root);
    // The organisation's CAs; only their certificates go to the node.
    const cas = { ca: outsideCA(outside(), 'ca', 'kubernetes'), 'front-proxy-ca': outsideCA(outside(), 'front-proxy-ca', 'front-proxy-ca'), 'etcd/ca': outsideCA(path.join(outside(), 'etcd'), 'ca', 'etcd-ca') };
    mkdirSync(root.at(`${PKI}/etcd`), { recursive: true });
    for (const [name, ca] of Object.entries(cas)) cpSync(ca.crt, root.at(`${PKI}/${name}.crt`));
    const r = await generateCsr(root);
    if (r.code !== 0) throw new Error(r.stderr + r.stdout);
    for (const [leaf, eku] of Object.entries(LEAF_EKU)) {
      sign(root.at(`${PKI}/${leaf}.csr`), cas[SIGNED_BY[leaf] as keyof typeof cas], eku, root.at(`${PKI}/${leaf}.crt`));
    }
    for (const conf of CONFS) {
      const crt = root.at(`${KC}/${conf}.crt`);
      sign(root.at(`${KC}/${conf}.csr`), cas.ca, 'clientAuth', crt);
      // what the docs tell the user: base64 the certificate into users > user > client-certificate-data
      const doc = yaml.load(readFileSync(root.at(`${KC}/${conf}`), 'utf8')) as { users: { user: Record<string, string> }[] };
      (doc.users[0] as { user: Record<string, string> }).user['client-certificate-data'] = readFileSync(crt).toString('base64');
      writeFileSync(root.at(`${KC}/${conf}`), yaml.dump(doc));
      rmSync(crt);
    }
    signed = listTree(root.at(KC));
  });
  afterAll(() => root.cleanup());

  test('the partial kubeconfigs already carried the CA, so only client-certificate-data had to be added', () => {
    for (const conf of CONFS) {
      const doc = yaml.load(readFileSync(root.at(`${KC}/${conf}`), 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
      const data = doc.clusters[0]?.cluster['certificate-authority-data'];
      expect(Buffer.from(data ?? '', 'base64').equals(readFileSync(root.at(`${PKI}/ca.crt`)))).toBe(true);
    }
  });

  test('the signed certificates carry the subjects and SANs tsadm asked for', () => {
    expect(openssl(['x509', '-in', root.at(`${PKI}/apiserver.crt`), '-noout', '-ext', 'subjectAltName'])).toContain(
      'DNS:cp1, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, IP Address:10.96.0.1, IP Address:10.0.0.5');
    expect(verifyWith(root.at(`${PKI}/etcd/ca.crt`), root.at(`${PKI}/etcd/server.crt`))).toBe(true);
  });

  test('tsadm\'s certs and kubeconfig phases in external-CA mode use every file as it is', async () => {
    const cfg = fixtureInitConfig({ init: { localAPIEndpoint: { advertiseAddress: '10.0.0.5', bindPort: 6443 } } });
    const { ctx, reporter } = initCtxFor(cfg, root.dir);
    await runCerts(ctx);
    await runKubeconfigs(ctx);
    expect(listTree(root.at(KC))).toEqual(signed);
    const lines = reporter.lines();
    expect(lines.filter((l) => /Generating|Writing/.test(l))).toEqual([]);
    expect(lines).toEqual(expect.arrayContaining([
      'Using existing ca keyless certificate authority',
      'Using existing apiserver certificate and key on disk',
      'Using existing etcd/server certificate and key on disk',
      'External CA mode: Using user provided admin.conf',
      'External CA mode: Using user provided scheduler.conf',
    ]));
    expect(lines.filter((l) => l.startsWith('Using existing') && l.endsWith('on disk'))).toHaveLength(7);
  });

  test('kubeadm\'s init phases accept the same files in external-CA mode', () => {
    const certs = kubeadm(['init', 'phase', 'certs', 'all', '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
    const confs = kubeadm(['init', 'phase', 'kubeconfig', 'all', '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
    expect([certs.code, confs.code]).toEqual([0, 0]);
    expect(`${certs.stdout}${confs.stdout}`).not.toMatch(/Generating|Writing/);
    expect(confs.stdout).toContain('[kubeconfig] External CA mode: Using user provided admin.conf');
    expect(listTree(root.at(KC))).toEqual(signed);
  });

  test('check-expiration reports them as externally managed; renew refuses them', async () => {
    const check = JSON.parse((await runCli(['certs', 'check-expiration', '--rootfs', root.dir, '-o', 'json'])).stdout) as { certificates: { name: string; externallyManaged: boolean }[] };
    expect(check.certificates.filter((c) => c.externallyManaged).map((c) => c.name)).toEqual(
      ['admin.conf', 'apiserver', 'apiserver-etcd-client', 'apiserver-kubelet-client', 'controller-manager.conf', 'etcd-healthcheck-client', 'etcd-peer', 'etcd-server', 'front-proxy-client', 'scheduler.conf']);
    const renew = await runCli(['certs', 'renew', 'all', '--rootfs', root.dir]);
    expect(renew.code).toBe(1);
    expect(renew.stderr).toContain('10 certificate(s) not renewed: their CA key is not on this node (external CA)');
    expect(listTree(root.at(KC))).toEqual(signed);
  });
});

test('openssl is available for the external-CA tests', () => {
  expect(execFileSync('openssl', ['version'], { encoding: 'utf8' })).toMatch(/^OpenSSL 3/);
});
