/**
 * The node-local effects of a CA rotation, through the host seam (so `--rootfs` and `--dry-run`
 * work as for every command): making the new CAs (`start`), staging their private keys on a
 * control plane, and one node step: back up the files it replaces, write each atomically, and on
 * a control plane at sign-new re-issue the leaves with the new CAs through the renewal code.
 * Restarts and everything that goes through the API are the caller's (./run.ts).
 */
import path from 'node:path';
import { KUBELET_DIR, MODES, TMP_DIR } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import { certRow } from '../../certs/cert-table.js';
import { pkiFiles, publicKeyPath } from '../../certs/paths.js';
import { caSerial, caValidity } from '../../certs/validity.js';
import { parseCertificatePem, type Certificate } from '../../pki/certificate.js';
import { caCertHash } from '../../pki/hash.js';
import { encodePrivateKeyPem, encodePublicKeyPem, generateKeyPair, keyAlgorithmOf, parsePrivateKeyPem, parsePublicKeyPem } from '../../pki/keys.js';
import { decodePem, encodePem } from '../../pki/pem.js';
import { signCertificate } from '../../pki/sign.js';
import { isSignedBy, keyMatchesCertificate } from '../../pki/verify.js';
import { manifestPath } from '../../manifest/write.js';
import type { LifecycleCtx } from '../context.js';
import { withClusterCA } from '../kubeconfig-credentials.js';
import { loadEntry } from '../read.js';
import { planRenewal } from '../renew.js';
import { renewalTemplate } from '../renew-template.js';
import { bundlePem } from './bundle.js';
import { readProvided } from './from-dir.js';
import { filesToRead, planNodeStep, type ApiAction, type NewKeys, type NodeFacts, type NodeStepPlan } from './plan.js';
import type { Material, NodeRole, NodeStep, Rotated } from './state.js';

/** Everything a rotation keeps on a node: /etc/kubernetes/tmp/tsadm-rotate-ca-<id>/ (staged keys, backups). */
export function rotationDir(id: string): string {
  if (!/^[a-z0-9-]{1,63}$/.test(id)) throw new TsadmError('E_CONFLICT', `rotation id "${id}" is not a plain name`, { hint: 'the rotation state was edited by hand; restore it' });
  return path.posix.join(TMP_DIR, `tsadm-rotate-ca-${id}`);
}

const CA_BASE: Readonly<Record<Exclude<Rotated, 'service-account'>, string>> = { cluster: 'ca', 'front-proxy': 'front-proxy-ca', etcd: 'etcd-ca' };

/**
 * New CAs (and a new service-account key pair) for ITEMS, made as init makes them (init's subject
 * with "@<unix time>" added to the common name, the cluster's CA validity, the key algorithm of the
 * CA being replaced), or taken from FROM_DIR (`start --from`, an external CA: ./from-dir.ts), with
 * the old public material read from this control plane. Returns the public material and the private keys.
 */
export async function makeNewMaterial(ctx: LifecycleCtx, items: readonly Rotated[], fromDir?: string): Promise<{ material: Partial<Record<Rotated, Material>>; keys: NewKeys }> {
  const material: Partial<Record<Rotated, Material>> = {};
  const keys: Partial<Record<Rotated, string>> = {};
  for (const item of items) {
    if (item === 'service-account') {
      const pubFile = publicKeyPath(ctx.certDir, 'sa');
      const keyFile = path.posix.join(ctx.certDir, 'sa.key');
      const [pub, key] = [await ctx.host.readFile(pubFile), await ctx.host.readFile(keyFile)];
      if (!pub || !key) throw new TsadmError('E_PRECONDITION', `${pubFile} or ${keyFile} is missing`, { hint: 'run start on a control plane that holds the service-account key pair' });
      const oldPub = encodePublicKeyPem(parsePublicKeyPem(pub, pubFile));
      if (fromDir !== undefined) {
        const given = await readProvided(fromDir, item, oldPub, ctx.startTime);
        const privateKey = parsePrivateKeyPem(given.key, 'new service-account key');
        material[item] = { old: oldPub, new: encodePublicKeyPem(privateKey) };
        keys[item] = encodePrivateKeyPem(privateKey);
        continue;
      }
      const algorithm = keyAlgorithmOf(parsePrivateKeyPem(key, keyFile)) ?? 'RSA-2048';
      const pair = await generateKeyPair(algorithm);
      material[item] = { old: oldPub, new: encodePublicKeyPem(pair.publicKey) };
      keys[item] = encodePrivateKeyPem(pair.privateKey);
      continue;
    }
    if (item === 'etcd' && ctx.cfg.cluster.etcd.mode === 'external') throw new TsadmError('E_USAGE', 'etcd is external: its CA is not the cluster\'s to rotate', { hint: 'leave etcd out of --ca' });
    const row = certRow(CA_BASE[item]);
    const files = pkiFiles(ctx.certDir, row.baseName);
    const [certPem, keyPem] = [await ctx.host.readFile(files.cert), await ctx.host.readFile(files.key)];
    if (!certPem) throw new TsadmError('E_PRECONDITION', `${files.cert} is missing`, { hint: 'run start on a control plane' });
    if (!keyPem) throw new TsadmError('E_PRECONDITION', `${files.key} is missing: the ${row.baseName} CA is external`, { hint: 'an external CA is rotated with its own tooling; leave it out of --ca' });
    const old = parseCertificatePem(certPem, files.cert);
    if (fromDir !== undefined) {
      const given = await readProvided(fromDir, item, old.pem, ctx.startTime);
      const cert = parseCertificatePem(given.cert ?? '', `new ${item} CA`);
      material[item] = { old: old.pem, new: cert.pem, newHash: caCertHash(cert.pem) };
      keys[item] = encodePrivateKeyPem(parsePrivateKeyPem(given.key, `new ${item} CA key`));
      continue;
    }
    const algorithm = keyAlgorithmOf(parsePrivateKeyPem(keyPem, files.key)) ?? ctx.cfg.cluster.encryptionAlgorithm;
    const pair = await generateKeyPair(algorithm);
    // A name of its own ("kubernetes@1764410000", as k3s names its CAs): while both CAs are
    // trusted, a verifier that picks the issuer by name alone (OpenSSL for a leaf without an
    // authority key identifier) would otherwise try the wrong one of two "CN=kubernetes".
    const { subject: initSubject } = row.config(ctx.cfg, ctx.versions);
    const subject = { ...initSubject, commonName: `${initSubject.commonName}@${Math.floor(ctx.startTime.getTime() / 1000)}` };
    const cert = signCertificate(
      { subject, serial: caSerial(ctx.versions), ...caValidity({ ...ctx, cluster: ctx.cfg.cluster }), isCA: true, keyEnciphermentRsaOnly: ctx.versions.pki.keyEnciphermentRsaOnly, extKeyUsage: [], dnsNames: [], ipAddresses: [] },
      pair.publicKey,
      { privateKey: pair.privateKey },
    );
    material[item] = { old: old.pem, new: cert.pem, newHash: caCertHash(cert.pem) };
    keys[item] = encodePrivateKeyPem(pair.privateKey);
  }
  return { material, keys };
}

/** The staged new private keys of this control plane: <rotation dir>/new/<item>.key, 0600. */
function stagedKeyPath(id: string, item: Rotated): string {
  return path.posix.join(rotationDir(id), 'new', `${item}.key`);
}

export async function stageKeys(host: Host, id: string, keys: NewKeys): Promise<void> {
  for (const [item, pem] of Object.entries(keys)) {
    await host.writeFile(stagedKeyPath(id, item as Rotated), pem, { mode: MODES.key, kind: 'private-key', description: `new ${item} private key (staged for the CA rotation)` });
  }
}

/** The staged keys of ITEMS that are on this node, each checked against the rotation's new public material. */
export async function readStagedKeys(host: Host, id: string, material: Readonly<Partial<Record<Rotated, Material>>>): Promise<NewKeys> {
  const out: Partial<Record<Rotated, string>> = {};
  for (const [item, m] of Object.entries(material) as [Rotated, Material][]) {
    const file = stagedKeyPath(id, item);
    const pem = await host.readFile(file);
    if (!pem) continue;
    const key = parsePrivateKeyPem(pem, file);
    const pub = item === 'service-account' ? parsePublicKeyPem(m.new, 'new service-account key') : parseCertificatePem(m.new, `new ${item} CA`).publicKey;
    if (encodePublicKeyPem(key) !== encodePublicKeyPem(pub)) {
      throw new TsadmError('E_CONFLICT', `${file} does not belong to the new ${item} CA of this rotation`, { hint: `remove ${file} and stage the keys again` });
    }
    out[item] = pem.toString('utf8');
  }
  return out;
}

/** What planNodeStep needs to know about this node, read through the host. */
async function readNodeFacts(ctx: LifecycleCtx, role: NodeRole): Promise<NodeFacts> {
  const externalEtcd = ctx.cfg.cluster.etcd.mode === 'external';
  const files = new Map<string, string>();
  for (const p of filesToRead(ctx.certDir, ctx.kubeconfigDir, externalEtcd)) {
    const data = await ctx.host.readFile(p);
    if (data !== undefined) files.set(p, data.toString('utf8'));
  }
  const serving = await ctx.host.readFile(kubeletCurrent('kubelet-serving-certificate'));
  return { role, certDir: ctx.certDir, kubeconfigDir: ctx.kubeconfigDir, externalEtcd, files, kubeletServingFromCluster: serving !== undefined };
}

/** The role this machine has: a control plane runs a kube-apiserver static pod. */
export async function localRole(host: Host): Promise<NodeRole> {
  return (await host.stat(manifestPath('kube-apiserver'))) ? 'control-plane' : 'worker';
}

export interface NodeStepInput {
  readonly id: string;
  /** This node's Node name: the kubelet's client certificate is "system:node:<node>". */
  readonly node: string;
  readonly step: NodeStep;
  readonly role: NodeRole;
  readonly items: Readonly<Partial<Record<Rotated, Material>>>;
  readonly newKeys: NewKeys;
}

export interface NodeStepResult {
  readonly plan: NodeStepPlan;
  /** Where the replaced files were copied (undefined when nothing changed). */
  readonly backupDir: string | undefined;
  /** Inventory names of the certificates re-issued by a new CA in this run (and the kubelet's, by their store file names). */
  readonly reissued: readonly string[];
  /** The kubelet's certificates this node cannot re-issue itself (a worker has no CA key): still to do. */
  readonly kubeletPending: readonly ApiAction[];
}

/**
 * One node step: plan, back up, write, re-issue. Converges: a second run after a complete or an
 * interrupted one writes only what is still different and re-issues only what the new CA did not sign.
 */
export async function applyNodeStep(ctx: LifecycleCtx, input: NodeStepInput): Promise<NodeStepResult> {
  const facts = await readNodeFacts(ctx, input.role);
  const plan = planNodeStep(input.step, input.items, facts, input.newKeys);
  for (const c of plan.changes) if (c.content !== undefined) await ctx.host.assertWritable(c.path);

  const reissue = await stillToReissue(ctx, plan, input.items);
  const backupDir = await backUp(ctx.host, input, [...plan.changes.map((c) => c.path), ...reissue.map((r) => r.path)], facts);

  for (const c of plan.changes) {
    if (c.content === undefined) {
      await ctx.host.remove(c.path);
      continue;
    }
    // A file that exists keeps its mode (a rotation changes trust, not permissions); a new one gets kubeadm's.
    const st = await ctx.host.stat(c.path);
    await ctx.host.writeFile(c.path, c.content, { mode: st ? st.mode & 0o777 : c.mode, kind: c.kind, description: c.description });
  }
  const reissued = await reissueLeaves(ctx, reissue.map((r) => r.entry), input.items);
  const cluster = input.items.cluster;
  const caKey = input.newKeys.cluster;
  if (input.role === 'control-plane' && plan.api.length > 0 && cluster && caKey !== undefined) {
    const kubelet = await reissueKubeletPairs(ctx, { node: input.node, actions: plan.api, ca: parseCertificatePem(cluster.new, 'new cluster CA'), caKeyPem: caKey });
    return { plan, backupDir, reissued: [...reissued, ...kubelet], kubeletPending: [] };
  }
  return { plan, backupDir, reissued, kubeletPending: plan.api };
}

/** Where the kubelet keeps its certificates, and the name prefix of each pair (its certificate store's, client-go's fileStore). */
const KUBELET_PKI = path.posix.join(KUBELET_DIR, 'pki');
const KUBELET_PAIR: Readonly<Record<ApiAction, string>> = { 'kubelet-client-certificate': 'kubelet-client', 'kubelet-serving-certificate': 'kubelet-server' };

export function kubeletCurrent(action: ApiAction): string {
  return path.posix.join(KUBELET_PKI, `${KUBELET_PAIR[action]}-current.pem`);
}

/** The kubelet's dated file name: Go's time.Now().Format("2006-01-02-15-04-05"), the machine's local time. */
function storeStamp(t: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}-${p(t.getHours())}-${p(t.getMinutes())}-${p(t.getSeconds())}`;
}

/**
 * sign-new on a control plane, which holds the new cluster CA's key: the kubelet's client
 * certificate, and its serving certificate when the cluster CA issued it (serverTLSBootstrap),
 * re-issued here by the new CA with the kubelet's own keys, instead of through a CSR. Put in place
 * as the kubelet's certificate store does it (client-go's fileStore.Update): a new file
 * <prefix>-<date>.pem, 0600, the certificate then the key, and <prefix>-current.pem swapped to it
 * (a link under a temp name, renamed over). The link names the file relatively, not by the absolute
 * path the kubelet writes, so it means the same under --rootfs; the kubelet reads through either,
 * and its own next rotation puts an absolute one back. The previous dated file stays: it is the
 * backup. A certificate the new CA already signed is left alone, so a re-run converges.
 *
 * The client certificate is kubeadm's kubelet identity, O=system:nodes, CN=system:node:<node>,
 * client auth only (what the kubelet's own CSRs ask for); the serving certificate keeps its subject
 * and SANs. Both get the validity `certs renew` gives, capped at the CA's.
 */
async function reissueKubeletPairs(ctx: LifecycleCtx, input: { node: string; actions: readonly ApiAction[]; ca: Certificate; caKeyPem: string }): Promise<string[]> {
  const caKey = parsePrivateKeyPem(input.caKeyPem, 'new cluster CA key');
  const done: string[] = [];
  for (const action of input.actions) {
    const current = kubeletCurrent(action);
    const pair = await ctx.host.readFile(current);
    if (pair === undefined) {
      throw new TsadmError('E_PRECONDITION', `${current} is missing: the kubelet's ${action === 'kubelet-client-certificate' ? 'client' : 'serving'} certificate cannot be re-issued`, {
        hint: 'point kubelet.conf at the rotating client certificate ("tsadm init phase kubelet-finalize all"), then run node again',
      });
    }
    const cert = parseCertificatePem(pair, current);
    if (isSignedBy(cert, input.ca)) continue;
    const keyBlock = decodePem(pair).find((b) => /PRIVATE KEY$/.test(b.type));
    const key = parsePrivateKeyPem(pair, current);
    if (!keyBlock || !keyMatchesCertificate(cert, key)) {
      throw new TsadmError('E_PRECONDITION', `${current}: the private key does not belong to the certificate`, { hint: 'restart the kubelet so it writes its pair again, then run node again' });
    }
    const { template } = renewalTemplate(cert, input.ca, { startTime: ctx.startTime, versions: ctx.versions, cluster: ctx.cfg.cluster });
    const { rawSubject: _keptSubject, ...fresh } = template;
    const tpl = action === 'kubelet-client-certificate'
      ? { ...fresh, subject: { commonName: `system:node:${input.node}`, organization: ['system:nodes'] }, extKeyUsage: ['clientAuth' as const], dnsNames: [], ipAddresses: [] }
      : template;
    const signed = signCertificate(tpl, cert.publicKey, { privateKey: caKey, certificate: input.ca });
    done.push(await storeKubeletPair(ctx.host, ctx.startTime, action, signed.pem + encodePem(keyBlock.type, keyBlock.der)));
  }
  return done;
}

/**
 * PAIR (the certificate, then its key) put in place as the kubelet's certificate store does it
 * (client-go's fileStore.Update): <prefix>-<date>.pem, 0600, then <prefix>-current.pem swapped to
 * it through the host's atomic symlink. Returns the -current file's name. Both the control plane's
 * local re-issue above and a worker's CSR (./kubelet-csr.ts) store through here.
 */
export async function storeKubeletPair(host: Host, when: Date, action: ApiAction, pair: string): Promise<string> {
  const current = kubeletCurrent(action);
  const dated = path.posix.join(KUBELET_PKI, `${KUBELET_PAIR[action]}-${storeStamp(when)}.pem`);
  await host.writeFile(dated, pair, { mode: MODES.key, kind: 'private-key', description: `the kubelet's ${action.replace(/-/g, ' ')} and key (issued by the new CA)` });
  await host.symlink(current, path.posix.basename(dated));
  return path.posix.basename(current);
}

/** The planned re-issues whose certificate the new CA has not signed yet (a re-run skips the rest). */
async function stillToReissue(ctx: LifecycleCtx, plan: NodeStepPlan, items: NodeStepInput['items']): Promise<{ entry: NodeStepPlan['reissue'][number]; path: string }[]> {
  const out: { entry: NodeStepPlan['reissue'][number]; path: string }[] = [];
  for (const entry of plan.reissue) {
    const loaded = await loadEntry(ctx, entry);
    if (!loaded) continue;
    const m = items[itemOfCA(entry.caName)];
    if (m && isSignedBy(loaded.cert, parseCertificatePem(m.new, 'new CA'))) continue;
    out.push({ entry, path: loaded.path });
  }
  return out;
}

function itemOfCA(caName: string): Rotated {
  return caName === 'ca' ? 'cluster' : caName === 'front-proxy-ca' ? 'front-proxy' : 'etcd';
}

/**
 * Copies of the files this run replaces, under <rotation dir>/backup-<step>/<host path>, made once
 * per step: written under a temporary name and renamed into place whole, so a kill while copying
 * leaves no half backup, and a re-run (which sees the first run's changes) never overwrites it.
 */
async function backUp(host: Host, input: NodeStepInput, paths: readonly string[], facts: NodeFacts): Promise<string | undefined> {
  const dir = path.posix.join(rotationDir(input.id), `backup-${input.step}`);
  if (await host.stat(dir)) return dir;
  const existing: { path: string; content: Buffer; mode: number }[] = [];
  for (const p of new Set(paths)) {
    const st = await host.stat(p);
    const content = facts.files.has(p) ? Buffer.from(facts.files.get(p) as string) : await host.readFile(p);
    if (st && content) existing.push({ path: p, content, mode: st.mode & 0o777 });
  }
  // Keys that a step replaces are not in the planned paths' list when only their certificate changes; back up the CA keys of the step anyway.
  if (existing.length === 0) return undefined;
  const partial = `${dir}.partial`;
  if (await host.stat(partial)) await host.remove(partial);
  for (const f of existing) {
    await host.writeFile(path.posix.join(partial, f.path), f.content, { mode: f.mode, kind: 'other', description: `backup of ${f.path} (CA rotation ${input.step})` });
  }
  await host.rename(partial, dir);
  return dir;
}

/**
 * Re-issues ENTRIES with the CAs now on disk (the new ones: their keys were written first), with
 * the renewal code of `certs renew`: same subject, SANs, usages and private key. Kubeconfigs then
 * get the rotation's trust as their CA data (renewal writes ca.crt's first certificate alone).
 */
async function reissueLeaves(ctx: LifecycleCtx, entries: NodeStepPlan['reissue'], items: NodeStepInput['items']): Promise<string[]> {
  if (entries.length === 0) return [];
  // Every leaf was signed by the old CA: renewal's "not signed by the current CA" warning is expected here.
  const quiet: LifecycleCtx = { ...ctx, log: { info: ctx.log.info, warn: () => undefined } };
  const result = await planRenewal(quiet, entries, { newKey: false });
  const cluster = items.cluster;
  for (const r of result.renewed) {
    for (const w of r.writes) {
      const content = w.kind === 'kubeconfig' && cluster ? withClusterCA(w.content, w.path, bundlePem(cluster.new, cluster.old)) : w.content;
      await ctx.host.writeFile(w.path, content, { mode: w.mode, kind: w.kind, description: `${w.description} (re-issued by the new CA)` });
    }
  }
  return result.renewed.map((r) => r.entry.name);
}
