/**
 * `tsadm certs renew` on PKI made by tsadm and by the reference kubeadm: every leaf is extended,
 * keeps its subject, SANs, usages and key, is signed by its CA; kubeconfigs change in exactly
 * their client-certificate-data; nothing else is touched. kubeadm is the oracle twice over: its
 * own renewal yields certificates that read the same in openssl (random parts masked), and it
 * accepts tsadm's renewed files as "existing" and lists their new dates.
 */
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { encodePrivateKeyPem, generateKeyPair } from '../../../src/pki/keys.js';
import { parseCertificatePem, type Certificate } from '../../../src/pki/certificate.js';
import { kubeadmDate } from '../../../src/certs-lifecycle/expiration-format.js';
import { acquireMachineLock } from '../../../src/host/lock.js';
import { listTree, opensslText, verifyWith } from '../../helpers/pki-test-utils.js';
import { KC,  PKI, kubeadm, kubeadmExpiration, kubeadmPki, runCli, tsadmPki } from '../../helpers/certs-lifecycle.js';
import { describeWithOracles, oracles } from '../../helpers/oracle.js';

jest.setTimeout(180_000);

const describeWithKubeadm = describeWithOracles([oracles.kubeadm]);

const LEAVES: Record<string, string> = {
  apiserver: 'ca', 'apiserver-kubelet-client': 'ca', 'front-proxy-client': 'front-proxy-ca', 'apiserver-etcd-client': 'etcd/ca',
  'etcd/server': 'etcd/ca', 'etcd/peer': 'etcd/ca', 'etcd/healthcheck-client': 'etcd/ca',
};
const CONFS = ['admin.conf', 'controller-manager.conf', 'scheduler.conf'];
const DAY = 86_400_000;

const clientCertOf = (conf: string): Certificate =>
  parseCertificatePem(Buffer.from(/client-certificate-data: (\S+)/.exec(conf)?.[1] ?? '', 'base64'));

function certsOf(root: TempRoot): Map<string, Certificate> {
  const out = new Map<string, Certificate>();
  for (const leaf of Object.keys(LEAVES)) out.set(leaf, parseCertificatePem(readFileSync(root.at(`${PKI}/${leaf}.crt`))));
  for (const conf of CONFS) out.set(conf, clientCertOf(readFileSync(root.at(`${KC}/${conf}`), 'utf8')));
  return out;
}

/** openssl's reading with everything random or time-dependent masked. */
function shape(cert: Certificate, dir: string): string[] {
  const file = `${dir}/shape-${Math.random().toString(36).slice(2)}.crt`;
  writeFileSync(file, cert.pem);
  return opensslText(file).split('\n')
    .filter((l) => !/^\s+([0-9a-fA-F]{2}:)+[0-9a-fA-F]{0,2}$/.test(l))
    .map((l) => l.replace(/Serial Number:.*/, 'Serial Number: <random>').replace(/(Not Before|Not After) ?: .*/, '$1: <date>'))
    .filter((l) => l.trim() !== '');
}

async function renew(root: TempRoot, ...args: string[]) {
  return runCli(['certs', 'renew', ...args, '--rootfs', root.dir, '--config', root.at('/kubeadm.yaml')]);
}

describeWithKubeadm.each(['tsadm', 'kubeadm'] as const)('renew all on a PKI made by %s', (maker) => {
  let root: TempRoot;
  let kubeadmRenewed: TempRoot;
  let before: ReturnType<typeof listTree>;
  let old: Map<string, Certificate>;
  let out: Awaited<ReturnType<typeof renew>>;
  let started: number;
  beforeAll(async () => {
    root = tempRoot();
    kubeadmRenewed = tempRoot();
    // tsadm's PKI is made 30 days in the past, so the renewal visibly extends it
    if (maker === 'tsadm') await tsadmPki(root, new Date(Date.now() - 30 * DAY));
    else kubeadmPki(root);
    cpSync(root.dir, kubeadmRenewed.dir, { recursive: true });
    before = listTree(root.at(KC));
    old = certsOf(root);
    await new Promise((r) => setTimeout(r, 1100)); // a renewal in the same second as kubeadm's issue would not move NotAfter
    started = Math.floor(Date.now() / 1000) * 1000;
    out = await renew(root, 'all');
    const k = kubeadm(['certs', 'renew', 'all', '--rootfs', kubeadmRenewed.dir, '--config', '/kubeadm.yaml']);
    if (k.code !== 0) throw new Error(k.stderr);
  });
  afterAll(() => {
    root.cleanup();
    kubeadmRenewed.cleanup();
  });

  test('says what kubeadm says per certificate, then which components must restart', () => {
    expect(out.code).toBe(0);
    const theirs = kubeadm(['certs', 'renew', 'all', '--rootfs', kubeadmRenewed.dir, '--config', '/kubeadm.yaml']).stdout
      .split('\n').filter((l) => l.endsWith(' renewed'));
    const ours = out.stdout.split('\n').filter((l) => l.endsWith(' renewed')).map((l) => l.replace(/^\[renew\] /, ''));
    expect(ours).toEqual(theirs);
    expect(ours).toHaveLength(10);
    expect(out.stdout).toContain('You must restart etcd, kube-apiserver, kube-controller-manager and kube-scheduler, so that they can use the new certificates');
  });

  test('every leaf is extended to a year from now, keeps subject, SANs, usages and key, and is signed by its CA', () => {
    const renewed = certsOf(root);
    for (const [name, o] of old) {
      const n = renewed.get(name) as Certificate;
      expect([name, n.rawSubject.toString('hex')]).toEqual([name, o.rawSubject.toString('hex')]);
      expect([name, n.dnsNames, n.ipAddresses]).toEqual([name, o.dnsNames, o.ipAddresses]);
      expect([name, n.extKeyUsage, n.keyUsage, n.basicConstraintsPresent, n.criticalExtensions]).toEqual([name, o.extKeyUsage, o.keyUsage, o.basicConstraintsPresent, o.criticalExtensions]);
      expect([name, n.spki.equals(o.spki)]).toEqual([name, true]);
      expect([name, n.serial === o.serial]).toEqual([name, false]);
      expect(n.notAfter.getTime()).toBeGreaterThanOrEqual(started + 365 * DAY);
      expect(n.notAfter.getTime()).toBeLessThan(Date.now() + 365 * DAY + 1000);
      if (maker === 'tsadm') expect(n.notAfter.getTime() - o.notAfter.getTime()).toBeGreaterThan(29 * DAY);
      else expect(n.notAfter.getTime()).toBeGreaterThan(o.notAfter.getTime());
      // 1.20 (the --config's version): leaves start when their CA started
      expect([name, n.notBefore]).toEqual([name, o.notBefore]);
      const caFile = name.endsWith('.conf') ? 'ca' : LEAVES[name];
      const certFile = name.endsWith('.conf') ? `${root.dir}/${name}.renewed.crt` : root.at(`${PKI}/${name}.crt`);
      if (name.endsWith('.conf')) writeFileSync(certFile, n.pem);
      expect([name, verifyWith(root.at(`${PKI}/${caFile}.crt`), certFile)]).toEqual([name, true]);
    }
  });

  test('kubeadm\'s own renewal produces certificates that read the same in openssl', () => {
    const theirs = certsOf(kubeadmRenewed);
    for (const [name, n] of certsOf(root)) {
      expect([name, shape(n, root.dir)]).toEqual([name, shape(theirs.get(name) as Certificate, root.dir)]);
    }
  });

  test('only the certificates changed: kubeconfigs differ in client-certificate-data alone; keys, CAs, sa, kubelet.conf untouched', () => {
    const after = listTree(root.at(KC));
    expect([...after.keys()]).toEqual([...before.keys()]);
    const changed = [...after].filter(([p, f]) => !f.content.equals(before.get(p)?.content ?? Buffer.alloc(0))).map(([p]) => p);
    expect(changed.sort()).toEqual([...CONFS, ...Object.keys(LEAVES).map((l) => `pki/${l}.crt`)].sort());
    for (const [p, f] of after) expect([p, f.mode]).toEqual([p, before.get(p)?.mode]);
    for (const conf of CONFS) {
      const a = (before.get(conf)?.content.toString() ?? '').split('\n');
      const b = (after.get(conf)?.content.toString() ?? '').split('\n');
      const diff = a.map((l, i) => (l === b[i] ? undefined : l.replace(/: .*/, ''))).filter(Boolean);
      expect([conf, diff, a.length]).toEqual([conf, ['    client-certificate-data'], b.length]);
    }
  });

  test('kubeadm lists the new dates and reuses every renewed file as it is', () => {
    const listed = kubeadmExpiration(root).certificates;
    const renewed = new Map([...certsOf(root)].map(([k, c]) => [k.replace('/', '-'), c]));
    expect(listed).toHaveLength(10);
    for (const row of listed) expect([row.name, row.expires]).toEqual([row.name, kubeadmDate((renewed.get(row.name) as Certificate).notAfter)]);
    const snapshot = listTree(root.at(KC));
    const certs = kubeadm(['init', 'phase', 'certs', 'all', '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
    const confs = kubeadm(['init', 'phase', 'kubeconfig', 'all', '--rootfs', root.dir, '--config', '/kubeadm.yaml']);
    expect(`${certs.stdout}${confs.stdout}`).not.toMatch(/Generating|Writing/);
    expect(listTree(root.at(KC))).toEqual(snapshot);
  });
});

describeWithKubeadm('renew: single certificates, options and refusals', () => {
  let base: TempRoot;
  beforeAll(() => {
    base = tempRoot();
    kubeadmPki(base);
  });
  afterAll(() => base.cleanup());

  const copy = (): TempRoot => {
    const r = tempRoot();
    cpSync(base.dir, r.dir, { recursive: true });
    return r;
  };

  test('renew apiserver changes apiserver.crt only and names kube-apiserver', async () => {
    const root = copy();
    try {
      const before = listTree(root.at(KC));
      const r = await renew(root, 'apiserver');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[renew] certificate for serving the Kubernetes API renewed');
      expect(r.stdout).toContain('You must restart kube-apiserver, so that they can use the new certificates (or run again with --restart)');
      const after = listTree(root.at(KC));
      expect([...after].filter(([p, f]) => !f.content.equals(before.get(p)?.content ?? Buffer.alloc(0))).map(([p]) => p)).toEqual(['pki/apiserver.crt']);
    } finally {
      root.cleanup();
    }
  });

  test('--new-key issues for a new key, as kubeadm does, and writes key and certificate', async () => {
    const root = copy();
    try {
      const oldKey = readFileSync(root.at(`${PKI}/etcd/peer.key`));
      const oldConf = readFileSync(root.at(`${KC}/admin.conf`), 'utf8');
      expect((await renew(root, 'etcd-peer', '--new-key')).code).toBe(0);
      expect((await renew(root, 'admin.conf', '--new-key')).code).toBe(0);
      const newKey = readFileSync(root.at(`${PKI}/etcd/peer.key`));
      expect(newKey.equals(oldKey)).toBe(false);
      expect(newKey.toString()).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
      const mod = (args: string[]): string => execFileSync('openssl', args, { encoding: 'utf8' });
      expect(mod(['rsa', '-in', root.at(`${PKI}/etcd/peer.key`), '-noout', '-modulus'])).toBe(mod(['x509', '-in', root.at(`${PKI}/etcd/peer.crt`), '-noout', '-modulus']));
      const newConf = readFileSync(root.at(`${KC}/admin.conf`), 'utf8');
      expect(/client-key-data: (\S+)/.exec(newConf)?.[1]).not.toBe(/client-key-data: (\S+)/.exec(oldConf)?.[1]);
      expect(clientCertOf(newConf).subject.text).toBe(clientCertOf(oldConf).subject.text);
    } finally {
      root.cleanup();
    }
  });

  test('--dry-run writes nothing and lists what it would write', async () => {
    const root = copy();
    try {
      const before = listTree(root.at(KC));
      const r = await renew(root, 'all', '--dry-run');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[renew] certificate for serving the Kubernetes API would be renewed');
      expect(r.stdout).toContain('[dryrun]   /etc/kubernetes/pki/apiserver.crt  0644');
      expect(r.stdout).toContain('[dryrun]   /etc/kubernetes/admin.conf  0600');
      expect(listTree(root.at(KC))).toEqual(before);
    } finally {
      root.cleanup();
    }
  });

  test('external CA: certificates of a CA without its key are not renewed (exit 1, kubeadm\'s message); the others are', async () => {
    const root = copy();
    try {
      rmSync(root.at(`${PKI}/ca.key`));
      const before = listTree(root.at(KC));
      const r = await renew(root, 'all');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("[WARNING] [renew] Detected external ca, certificate for serving the Kubernetes API can't be renewed");
      expect(r.stderr).toContain('error: 5 certificate(s) not renewed: their CA key is not on this node (external CA): admin.conf, apiserver, apiserver-kubelet-client, controller-manager.conf, scheduler.conf');
      const after = listTree(root.at(KC));
      const changed = [...after].filter(([p, f]) => !f.content.equals(before.get(p)?.content ?? Buffer.alloc(0))).map(([p]) => p).sort();
      expect(changed).toEqual(['pki/apiserver-etcd-client.crt', 'pki/etcd/healthcheck-client.crt', 'pki/etcd/peer.crt', 'pki/etcd/server.crt', 'pki/front-proxy-client.crt']);
      const one = await renew(root, 'apiserver');
      expect(one.code).toBe(1);
      expect(one.stderr).toContain("Detected external ca, certificate for serving the Kubernetes API can't be renewed");
    } finally {
      root.cleanup();
    }
  });

  test('a key that does not match its certificate stops the whole renewal before anything is written', async () => {
    const root = copy();
    try {
      writeFileSync(root.at(`${PKI}/front-proxy-client.key`), encodePrivateKeyPem((await generateKeyPair('RSA-2048')).privateKey));
      const before = listTree(root.at(KC));
      const r = await renew(root, 'all');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error: front-proxy-client: the private key does not match the certificate /etc/kubernetes/pki/front-proxy-client.crt');
      expect(r.stderr).toContain('--new-key');
      expect(listTree(root.at(KC))).toEqual(before);
    } finally {
      root.cleanup();
    }
  });

  test('another tsadm holding the machine lock stops a renewal before it reads anything', async () => {
    const root = copy();
    const lock = acquireMachineLock(root.dir, 'init');
    try {
      const before = listTree(root.at(KC));
      const r = await renew(root, 'all');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/init/);
      expect(listTree(root.at(KC))).toEqual(before);
      lock.release();
      expect((await renew(root, 'apiserver')).code).toBe(0);
    } finally {
      root.cleanup();
    }
  });

  test('unknown and missing names', async () => {
    const root = copy();
    try {
      const unknown = await renew(root, 'kubelet.conf');
      expect(unknown.code).toBe(3);
      expect(unknown.stderr).toContain('kubelet.conf is not a valid certificate for this cluster');
      rmSync(root.at(`${KC}/scheduler.conf`));
      const one = await renew(root, 'scheduler.conf');
      expect(one.code).toBe(1);
      expect(one.stderr).toContain('does not exist on this node');
      const all = await renew(root, 'all');
      expect(all.code).toBe(0);
      expect(all.stderr).toContain('MISSING! certificate embedded in the kubeconfig file for the scheduler manager to use');
      expect(all.stdout.match(/ renewed$/gm)).toHaveLength(9);
    } finally {
      root.cleanup();
    }
  });
});
