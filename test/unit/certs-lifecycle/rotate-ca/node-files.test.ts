/**
 * The node-local steps of a CA rotation on a --rootfs tree made by tsadm's own certs and
 * kubeconfig phases (plus the v1.20.2 control-plane manifests kubeadm writes), judged by openssl:
 * trust-both trusts leaves of either CA, sign-new re-issues every leaf so that it chains to the new
 * CA and not the old, trust-new trusts the new CA alone. Each step backs up what it replaces,
 * converges when run again or after a kill midway, and writes nothing in a dry run.
 */
import { jest } from '@jest/globals';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { KC, PKI } from '../../../helpers/certs-lifecycle.js';
import { initCtxFor } from '../../../helpers/phase-ctx.js';
import { listTree, openssl, pkiTestConfig, runCerts, runKubeconfigs, sanLine, verifyWith } from '../../../helpers/pki-test-utils.js';
import type { LifecycleCtx } from '../../../../src/certs-lifecycle/context.js';
import type { Host } from '../../../../src/host/host.js';
import {
  applyNodeStep, localRole, makeNewMaterial, readStagedKeys, rotationDir, stageKeys,
} from '../../../../src/certs-lifecycle/rotate-ca/node-files.js';
import type { Material, NodeRole, NodeStep, Rotated } from '../../../../src/certs-lifecycle/rotate-ca/state.js';
import type { NewKeys } from '../../../../src/certs-lifecycle/rotate-ca/plan.js';

jest.setTimeout(120_000);

const FIXTURES = path.resolve('test/fixtures/manifests/v1.20.2/default');
const CM = '/etc/kubernetes/manifests/kube-controller-manager.yaml';
const ALL: Rotated[] = ['cluster', 'front-proxy', 'etcd', 'service-account'];
const LEAVES: Record<string, string> = {
  apiserver: 'ca', 'apiserver-kubelet-client': 'ca', 'front-proxy-client': 'front-proxy-ca', 'apiserver-etcd-client': 'etcd/ca',
  'etcd/server': 'etcd/ca', 'etcd/peer': 'etcd/ca', 'etcd/healthcheck-client': 'etcd/ca',
};
const CONFS = ['admin.conf', 'controller-manager.conf', 'scheduler.conf'];

let pristine: TempRoot;
const roots: TempRoot[] = [];

beforeAll(async () => {
  pristine = tempRoot();
  // tsadm's own certs and kubeconfig phases (ECDSA keys: decision 83; the rotation keeps each CA's key type)
  const { ctx } = initCtxFor(pkiTestConfig(), pristine.dir);
  await runCerts(ctx);
  await runKubeconfigs(ctx);
  mkdirSync(pristine.at('/etc/kubernetes/manifests'), { recursive: true });
  for (const c of ['kube-apiserver', 'kube-controller-manager']) cpSync(path.join(FIXTURES, `${c}.yaml`), pristine.at(`/etc/kubernetes/manifests/${c}.yaml`));
});
afterAll(() => {
  pristine.cleanup();
  for (const r of roots) r.cleanup();
});

function copyOf(src: TempRoot = pristine): TempRoot {
  const r = tempRoot();
  roots.push(r);
  cpSync(src.dir, r.dir, { recursive: true });
  return r;
}

function ctxFor(root: TempRoot, opts: { dryRun?: boolean; host?: (h: Host) => Host } = {}): LifecycleCtx {
  const { ctx } = initCtxFor(pkiTestConfig(), root.dir, opts.dryRun ? { dryRun: true } : {});
  return { ...ctx, host: opts.host ? opts.host(ctx.host) : ctx.host, kubeconfigDir: KC, certDir: PKI };
}

/** Writes PEM text to a scratch file of ROOT (outside /etc) for openssl. */
function scratch(root: TempRoot, name: string, text: string | Buffer): string {
  const file = path.join(root.dir, 'scratch', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const read = (root: TempRoot, p: string): string => readFileSync(root.at(p), 'utf8');
const certCount = (text: string): number => (text.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
const caDataOf = (conf: string): string => Buffer.from(/certificate-authority-data: (\S+)/.exec(conf)?.[1] ?? '', 'base64').toString('utf8');
const clientCertOf = (conf: string): string => Buffer.from(/client-certificate-data: (\S+)/.exec(conf)?.[1] ?? '', 'base64').toString('utf8');
/** openssl's fingerprint of the first certificate of a PEM file (its own reading, not tsadm's). */
const fingerprint = (file: string): string => openssl(['x509', '-in', file, '-noout', '-fingerprint', '-sha256']).trim();
const pubOfKey = (file: string): string => openssl(['pkey', '-in', file, '-pubout']);
const pubOfCert = (file: string): string => openssl(['x509', '-in', file, '-noout', '-pubkey']);

/** A leaf signed by openssl itself with CA/KEY (an independent issuer of "a certificate of that CA"). */
function opensslLeaf(root: TempRoot, name: string, caFile: string, keyFile: string): string {
  const dir = path.join(root.dir, 'scratch');
  mkdirSync(dir, { recursive: true });
  const csr = path.join(dir, `${name}.csr`);
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, `${name}.key`), '-subj', `/CN=${name}`, '-out', csr]);
  const crt = path.join(dir, `${name}.crt`);
  openssl(['x509', '-req', '-in', csr, '-CA', caFile, '-CAkey', keyFile, '-CAcreateserial', '-days', '1', '-out', crt]);
  return crt;
}

const KUBELET_PKI = '/var/lib/kubelet/pki';

/**
 * A kubelet certificate pair as the kubelet's store keeps it, issued by openssl with the cluster CA
 * of ROOT: <prefix>-2026-01-01-00-00-00.pem (certificate, then key, 0600) and <prefix>-current.pem
 * linking to it (relatively: an absolute link would name the test machine's own /var/lib/kubelet).
 */
function kubeletPair(root: TempRoot, prefix: 'kubelet-client' | 'kubelet-server', subj: string, ext: string): string {
  const dir = path.join(root.dir, 'scratch', prefix);
  mkdirSync(dir, { recursive: true });
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-subj', subj, '-out', path.join(dir, 'csr.pem')]);
  writeFileSync(path.join(dir, 'ext.cnf'), `${ext}\n`);
  openssl(['x509', '-req', '-in', path.join(dir, 'csr.pem'), '-CA', root.at(`${PKI}/ca.crt`), '-CAkey', root.at(`${PKI}/ca.key`), '-set_serial', '4242', '-days', '1', '-extfile', path.join(dir, 'ext.cnf'), '-out', path.join(dir, 'cert.pem')]);
  mkdirSync(root.at(KUBELET_PKI), { recursive: true });
  const dated = `${prefix}-2026-01-01-00-00-00.pem`;
  writeFileSync(root.at(`${KUBELET_PKI}/${dated}`), readFileSync(path.join(dir, 'cert.pem'), 'utf8') + readFileSync(path.join(dir, 'key.pem'), 'utf8'), { mode: 0o600 });
  symlinkSync(dated, root.at(`${KUBELET_PKI}/${prefix}-current.pem`));
  return path.join(dir, 'key.pem');
}

interface Rotation {
  readonly items: Partial<Record<Rotated, Material>>;
  readonly keys: NewKeys;
}

async function newRotation(root: TempRoot): Promise<Rotation> {
  const { material, keys } = await makeNewMaterial(ctxFor(root), ALL);
  return { items: material, keys };
}

async function step(root: TempRoot, rot: Rotation, s: NodeStep, role: NodeRole = 'control-plane', opts: Parameters<typeof ctxFor>[1] = {}) {
  return applyNodeStep(ctxFor(root, opts), { id: 'r1', node: 'cp1', step: s, role, items: rot.items, newKeys: role === 'control-plane' ? rot.keys : {} });
}

describe('a control plane through the three steps', () => {
  let root: TempRoot;
  let rot: Rotation;
  let oldCa: string;
  let newCa: string;
  let newCaKey: string;
  let before: Map<string, { content: Buffer }>;
  let kubeletKeys: Record<'client' | 'server', string>;
  const results: Record<string, Awaited<ReturnType<typeof step>>> = {};

  beforeAll(async () => {
    root = copyOf();
    // The kubelet's pairs from the old CA: a client certificate as kubeadm's kubelet gets one, a serving one as serverTLSBootstrap gets one.
    kubeletKeys = {
      client: kubeletPair(root, 'kubelet-client', '/O=system:nodes/CN=system:node:cp1', 'extendedKeyUsage=clientAuth'),
      server: kubeletPair(root, 'kubelet-server', '/O=system:nodes/CN=system:node:cp1', 'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:cp1,IP:10.0.0.11'),
    };
    before = listTree(root.at(KC));
    rot = await newRotation(root);
    oldCa = scratch(root, 'old-ca.crt', read(root, `${PKI}/ca.crt`));
    newCa = scratch(root, 'new-ca.crt', rot.items.cluster?.new ?? '');
    newCaKey = scratch(root, 'new-ca.key', rot.keys.cluster ?? '');
    await stageKeys(ctxFor(root).host, 'r1', rot.keys);
  });

  test('the new CAs are CAs of their own, named after the old ones, with their keys staged 0600 and checked when read back', async () => {
    expect(fingerprint(newCa)).not.toBe(fingerprint(oldCa));
    expect(openssl(['x509', '-in', oldCa, '-noout', '-subject']).trim()).toBe('subject=CN = kubernetes');
    expect(openssl(['x509', '-in', newCa, '-noout', '-subject']).trim()).toMatch(/^subject=CN = kubernetes@\d{10}$/);
    expect(openssl(['x509', '-in', newCa, '-noout', '-ext', 'basicConstraints'])).toMatch(/CA:TRUE/);
    expect(pubOfKey(newCaKey)).toBe(pubOfCert(newCa));
    expect(await readStagedKeys(ctxFor(root).host, 'r1', rot.items)).toEqual(rot.keys);
    const staged = root.at(`${rotationDir('r1')}/new/cluster.key`);
    expect(readFileSync(staged, 'utf8')).toBe(rot.keys.cluster);
    expect(listTree(path.dirname(staged)).get('cluster.key')?.mode).toBe(0o600);
    expect(await localRole(ctxFor(root).host)).toBe('control-plane');
  });

  describe('trust-both', () => {
    beforeAll(async () => {
      results['trust-both'] = await step(root, rot, 'trust-both');
    });

    test('ca.crt trusts leaves of either CA and keeps the old CA first, the one ca.key belongs to', () => {
      const bundle = root.at(`${PKI}/ca.crt`);
      expect(certCount(read(root, `${PKI}/ca.crt`))).toBe(2);
      expect(fingerprint(bundle)).toBe(fingerprint(oldCa));
      expect(pubOfCert(bundle)).toBe(pubOfKey(root.at(`${PKI}/ca.key`)));
      expect(verifyWith(bundle, root.at(`${PKI}/apiserver.crt`))).toBe(true);
      expect(verifyWith(bundle, opensslLeaf(root, 'by-new', newCa, newCaKey))).toBe(true);
      expect(verifyWith(oldCa, opensslLeaf(root, 'by-new-2', newCa, newCaKey))).toBe(false);
    });

    test('front-proxy and etcd CAs are bundles too; sa.pub holds both public keys', () => {
      for (const ca of ['front-proxy-ca', 'etcd/ca']) expect([ca, certCount(read(root, `${PKI}/${ca}.crt`))]).toEqual([ca, 2]);
      const keys = read(root, `${PKI}/sa.pub`).match(/-----BEGIN PUBLIC KEY-----/g) ?? [];
      expect(keys).toHaveLength(2);
      expect(read(root, `${PKI}/sa.pub`).startsWith(pubOfKey(root.at(`${PKI}/sa.key`)))).toBe(true);
    });

    test('the controller-manager signs with a one-certificate copy of the old CA; every kubeconfig trusts both', () => {
      expect(read(root, CM)).toContain(`--cluster-signing-cert-file=${PKI}/ca-signing.crt`);
      expect(read(root, CM).replace('ca-signing.crt', 'ca.crt')).toBe(before.get('manifests/kube-controller-manager.yaml')?.content.toString());
      expect(certCount(read(root, `${PKI}/ca-signing.crt`))).toBe(1);
      expect(fingerprint(root.at(`${PKI}/ca-signing.crt`))).toBe(fingerprint(oldCa));
      for (const conf of [...CONFS, 'kubelet.conf']) {
        const ca = scratch(root, `${conf}.ca`, caDataOf(read(root, `${KC}/${conf}`)));
        expect([conf, certCount(readFileSync(ca, 'utf8')), verifyWith(ca, opensslLeaf(root, `n-${conf}`, newCa, newCaKey))]).toEqual([conf, 2, true]);
        expect(clientCertOf(read(root, `${KC}/${conf}`))).toBe(clientCertOf(before.get(conf)?.content.toString() ?? ''));
      }
    });

    test('says what restarts, in order, and keeps the replaced files in the backup byte for byte', () => {
      const r = results['trust-both']!;
      expect(r.plan.restarts).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet']);
      expect(r.reissued).toEqual([]);
      expect(r.backupDir).toBe(`${rotationDir('r1')}/backup-trust-both`);
      expect(readFileSync(root.at(`${r.backupDir}${PKI}/ca.crt`))).toEqual(before.get('pki/ca.crt')?.content);
      expect(readFileSync(root.at(`${r.backupDir}${CM}`))).toEqual(before.get('manifests/kube-controller-manager.yaml')?.content);
      expect(existsSync(root.at(`${r.backupDir}.partial`))).toBe(false);
    });

    test('a second run changes nothing', async () => {
      const tree = listTree(root.at(KC));
      const again = await step(root, rot, 'trust-both');
      expect(again.plan.changes).toEqual([]);
      expect([...listTree(root.at(KC))].map(([p, f]) => [p, f.content.toString('hex')])).toEqual([...tree].map(([p, f]) => [p, f.content.toString('hex')]));
    });
  });

  describe('sign-new', () => {
    beforeAll(async () => {
      results['sign-new'] = await step(root, rot, 'sign-new');
    });

    test('every leaf and kubeconfig client certificate now chains to its new CA and not to the old, with its key kept', () => {
      const newOf: Record<string, string> = {
        ca: newCa,
        'front-proxy-ca': scratch(root, 'new-fp.crt', rot.items['front-proxy']?.new ?? ''),
        'etcd/ca': scratch(root, 'new-etcd.crt', rot.items.etcd?.new ?? ''),
      };
      const oldOf: Record<string, string> = {
        ca: oldCa,
        'front-proxy-ca': scratch(root, 'old-fp.crt', before.get('pki/front-proxy-ca.crt')?.content ?? ''),
        'etcd/ca': scratch(root, 'old-etcd.crt', before.get('pki/etcd/ca.crt')?.content ?? ''),
      };
      for (const [leaf, ca] of Object.entries(LEAVES)) {
        const file = root.at(`${PKI}/${leaf}.crt`);
        expect([leaf, verifyWith(newOf[ca]!, file), verifyWith(oldOf[ca]!, file)]).toEqual([leaf, true, false]);
        expect([leaf, pubOfCert(file)]).toEqual([leaf, pubOfKey(root.at(`${PKI}/${leaf}.key`))]);
      }
      for (const conf of CONFS) {
        const cert = scratch(root, `${conf}.client`, clientCertOf(read(root, `${KC}/${conf}`)));
        expect([conf, verifyWith(newCa, cert), verifyWith(oldCa, cert)]).toEqual([conf, true, false]);
        expect([conf, certCount(caDataOf(read(root, `${KC}/${conf}`)))]).toEqual([conf, 2]);
      }
      expect([...results['sign-new']!.reissued].sort()).toEqual([
        'admin.conf', 'apiserver', 'apiserver-etcd-client', 'apiserver-kubelet-client', 'controller-manager.conf', 'etcd-healthcheck-client', 'etcd-peer', 'etcd-server', 'front-proxy-client',
        'kubelet-client-current.pem', 'kubelet-server-current.pem', 'scheduler.conf',
      ]);
    });

    test('the kubelet\'s client and serving pairs: a new dated file (0600, certificate then its old key) of the new CA, the -current link swapped to it, the old file kept', () => {
      for (const [prefix, key] of [['kubelet-client', kubeletKeys.client], ['kubelet-server', kubeletKeys.server]] as const) {
        const current = root.at(`${KUBELET_PKI}/${prefix}-current.pem`);
        expect(lstatSync(current).isSymbolicLink()).toBe(true);
        const target = readlinkSync(current);
        expect(target).toMatch(new RegExp(`^${prefix}-\\d{4}(-\\d{2}){5}\\.pem$`));
        expect(target).not.toBe(`${prefix}-2026-01-01-00-00-00.pem`);
        expect(listTree(root.at(KUBELET_PKI)).get(target)?.mode).toBe(0o600);
        const cert = scratch(root, `${prefix}.crt`, readFileSync(current));
        expect([prefix, verifyWith(newCa, cert), verifyWith(oldCa, cert)]).toEqual([prefix, true, false]);
        expect(openssl(['verify', '-CAfile', newCa, cert]).trim()).toBe(`${cert}: OK`);
        expect(pubOfCert(cert)).toBe(pubOfKey(key));
        expect(pubOfKey(current)).toBe(pubOfKey(key));
        expect(existsSync(root.at(`${KUBELET_PKI}/${prefix}-2026-01-01-00-00-00.pem`))).toBe(true);
      }
      const client = scratch(root, 'kubelet-client.crt', readFileSync(root.at(`${KUBELET_PKI}/kubelet-client-current.pem`)));
      expect(openssl(['x509', '-in', client, '-noout', '-subject']).trim()).toBe('subject=O = system:nodes, CN = system:node:cp1');
      expect(openssl(['x509', '-in', client, '-noout', '-ext', 'extendedKeyUsage'])).toMatch(/TLS Web Client Authentication/);
      const server = scratch(root, 'kubelet-server.crt', readFileSync(root.at(`${KUBELET_PKI}/kubelet-server-current.pem`)));
      expect(sanLine(server)).toMatch(/DNS:cp1, IP Address:10\.0\.0\.11/);
      expect(openssl(['x509', '-in', server, '-noout', '-ext', 'extendedKeyUsage'])).toMatch(/TLS Web Server Authentication/);
      expect([results['sign-new']!.plan.restarts.at(-1), results['sign-new']!.kubeletPending]).toEqual(['kubelet', []]);
    });

    test('ca.crt puts the new CA first and ca.key is the new key; the controller-manager signs with the new CA alone', () => {
      expect(fingerprint(root.at(`${PKI}/ca.crt`))).toBe(fingerprint(newCa));
      expect(certCount(read(root, `${PKI}/ca.crt`))).toBe(2);
      expect(pubOfKey(root.at(`${PKI}/ca.key`))).toBe(pubOfCert(newCa));
      expect(fingerprint(root.at(`${PKI}/ca-signing.crt`))).toBe(fingerprint(newCa));
      expect(read(root, `${PKI}/sa.pub`).startsWith(pubOfKey(root.at(`${PKI}/sa.key`)))).toBe(true);
      expect(results['sign-new']!.plan.api).toEqual(['kubelet-client-certificate', 'kubelet-serving-certificate']);
      // the old CA key is kept in the step's backup, the only place it stays
      expect(readFileSync(root.at(`${results['sign-new']!.backupDir}${PKI}/ca.key`))).toEqual(before.get('pki/ca.key')?.content);
    });

    test('run again, it re-issues nothing and writes nothing', async () => {
      const again = await step(root, rot, 'sign-new');
      expect([again.plan.changes, again.reissued]).toEqual([[], []]);
    });
  });

  describe('trust-new', () => {
    beforeAll(async () => {
      results['trust-new'] = await step(root, rot, 'trust-new');
    });

    test('ca.crt and every kubeconfig trust the new CA alone; a leaf of the old CA is refused', () => {
      expect(certCount(read(root, `${PKI}/ca.crt`))).toBe(1);
      expect(fingerprint(root.at(`${PKI}/ca.crt`))).toBe(fingerprint(newCa));
      const oldLeaf = root.at(`${results['sign-new']!.backupDir}${PKI}/apiserver.crt`);
      expect(verifyWith(oldCa, oldLeaf)).toBe(true);
      expect(verifyWith(root.at(`${PKI}/ca.crt`), oldLeaf)).toBe(false);
      expect(verifyWith(root.at(`${PKI}/ca.crt`), root.at(`${PKI}/apiserver.crt`))).toBe(true);
      for (const conf of [...CONFS, 'kubelet.conf']) expect([conf, caDataOf(read(root, `${KC}/${conf}`))]).toEqual([conf, read(root, `${PKI}/ca.crt`)]);
      for (const ca of ['front-proxy-ca', 'etcd/ca']) expect([ca, certCount(read(root, `${PKI}/${ca}.crt`))]).toEqual([ca, 1]);
      expect(read(root, `${PKI}/sa.pub`)).toBe(pubOfKey(root.at(`${PKI}/sa.key`)));
    });

    test('the controller-manager is back on ca.crt, its manifest as before the rotation, and the signing copy is gone', () => {
      expect(read(root, CM)).toBe(before.get('manifests/kube-controller-manager.yaml')?.content.toString());
      expect(existsSync(root.at(`${PKI}/ca-signing.crt`))).toBe(false);
    });
  });
});

describe('a worker', () => {
  test('trust-both changes ca.crt and kubelet.conf only and restarts the kubelet; trust-new leaves the new CA alone', async () => {
    const root = tempRoot();
    roots.push(root);
    mkdirSync(root.at(PKI), { recursive: true });
    cpSync(pristine.at(`${PKI}/ca.crt`), root.at(`${PKI}/ca.crt`));
    cpSync(pristine.at(`${KC}/kubelet.conf`), root.at(`${KC}/kubelet.conf`));
    const rot = await newRotation(copyOf());
    const cluster = { cluster: rot.items.cluster! };
    expect(await localRole(ctxFor(root).host)).toBe('worker');
    const r = await applyNodeStep(ctxFor(root), { id: 'r1', node: 'w1', step: 'trust-both', role: 'worker', items: cluster, newKeys: {} });
    expect(r.plan.changes.map((c) => c.path)).toEqual([`${PKI}/ca.crt`, `${KC}/kubelet.conf`]);
    expect(r.plan.restarts).toEqual(['kubelet']);
    const newCa = scratch(root, 'new.crt', rot.items.cluster!.new);
    expect(verifyWith(root.at(`${PKI}/ca.crt`), pristine.at(`${PKI}/apiserver.crt`))).toBe(true);
    const signNew = await applyNodeStep(ctxFor(root), { id: 'r1', node: 'w1', step: 'sign-new', role: 'worker', items: cluster, newKeys: {} });
    // A worker has no CA key: its kubelet's certificate is left for the CSR (not built yet).
    expect([signNew.plan.api, signNew.plan.restarts, signNew.reissued, signNew.kubeletPending]).toEqual([['kubelet-client-certificate'], ['kubelet'], [], ['kubelet-client-certificate']]);
    await applyNodeStep(ctxFor(root), { id: 'r1', node: 'w1', step: 'trust-new', role: 'worker', items: cluster, newKeys: {} });
    expect(fingerprint(root.at(`${PKI}/ca.crt`))).toBe(fingerprint(newCa));
    expect(certCount(read(root, `${PKI}/ca.crt`))).toBe(1);
    expect(caDataOf(read(root, `${KC}/kubelet.conf`))).toBe(read(root, `${PKI}/ca.crt`));
  });
});

describe('kill safety and dry run', () => {
  let rot: Rotation;
  beforeAll(async () => {
    rot = await newRotation(copyOf());
  });

  test('a run killed after its third write, run again, leaves what an uninterrupted run leaves', async () => {
    const clean = copyOf();
    const killed = copyOf();
    await step(clean, rot, 'trust-both');
    let writes = 0;
    const dying = (h: Host): Host => new Proxy(h, {
      get(target, prop, receiver) {
        if (prop === 'writeFile') {
          return async (...args: Parameters<Host['writeFile']>) => {
            // the backup's copies are written first; count the step's own writes
            if (!String(args[0]).includes('tsadm-rotate-ca-') && ++writes === 3) throw new Error('killed');
            return target.writeFile(...args);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    await expect(step(killed, rot, 'trust-both', 'control-plane', { host: dying })).rejects.toThrow('killed');
    expect(certCount(read(killed, `${PKI}/ca.crt`))).toBe(2);
    expect(read(killed, CM)).not.toContain('ca-signing.crt');
    await step(killed, rot, 'trust-both');
    const tree = (r: TempRoot) => [...listTree(r.at(KC))].filter(([p]) => !p.startsWith('tmp/')).map(([p, f]) => [p, f.mode, f.content.toString('hex')]);
    expect(tree(killed)).toEqual(tree(clean));
    // the backup was made before the first write, so it holds the untouched files even after the kill
    expect(readFileSync(killed.at(`${rotationDir('r1')}/backup-trust-both${PKI}/ca.crt`))).toEqual(readFileSync(pristine.at(`${PKI}/ca.crt`)));
  });

  test('the rollback of an abort after trust-both gives back every file byte for byte', async () => {
    const root = copyOf();
    await step(root, rot, 'trust-both');
    const r = await step(root, rot, 'rollback');
    expect(r.plan.restarts).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet']);
    const tree = (x: TempRoot) => [...listTree(x.at(KC))].filter(([p]) => !p.startsWith('tmp/')).map(([p, f]) => [p, f.mode, f.content.toString('hex')]);
    expect(tree(root)).toEqual(tree(pristine));
  });

  test('a dry run writes nothing on disk and lists every file it would write', async () => {
    const root = copyOf();
    const before = listTree(root.dir);
    const ctx = ctxFor(root, { dryRun: true });
    const r = await applyNodeStep(ctx, { id: 'r1', node: 'cp1', step: 'trust-both', role: 'control-plane', items: rot.items, newKeys: rot.keys });
    expect([...listTree(root.dir).keys()]).toEqual([...before.keys()]);
    for (const [p, f] of listTree(root.dir)) expect([p, f.content.equals(before.get(p)!.content)]).toEqual([p, true]);
    const written = new Set(ctx.host.writes.map((w) => w.path));
    for (const c of r.plan.changes) expect([c.path, written.has(c.path)]).toEqual([c.path, true]);
  });
});
