/**
 * What one node step of a CA rotation changes on one node, pure: the files (their new content,
 * or removal), which certificates a control plane re-issues with the new CA, what goes through
 * the API (the kubelet's certificates), and what must restart, in order. Computed from the
 * rotation's public material, the new private keys staged on a control plane, and the files
 * present on the node, with the lists of certificates and kubeconfigs taken from the renewal
 * inventory (./inventory.ts) rather than written again here.
 *
 * The desired content never depends on what the step already wrote (the old material comes from
 * the rotation's state, not from ca.crt), so a run killed midway and run again converges.
 */
import path from 'node:path';
import { KUBECONFIG_FILES, MODES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { FileKind } from '../../host/host.js';
import { manifestPath } from '../../manifest/write.js';
import { pkiFiles, publicKeyPath } from '../../certs/paths.js';
import { inventory, type CertEntry, type Component } from '../inventory.js';
import { withClusterCA } from '../kubeconfig-credentials.js';
import { bundlePem, publicKeyBundlePem } from './bundle.js';
import type { Material, NodeRole, NodeStep, Rotated } from './state.js';

/** What restarts to read changed files: the static pods, and the kubelet (a service). */
export type Reader = Component | 'kubelet';
const RESTART_ORDER: readonly Reader[] = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet'];

/**
 * The certificate the controller-manager signs with during a rotation (its
 * --cluster-signing-cert-file). The CSR signer refuses a file holding more than one certificate
 * (kube-controller-manager's caProvider.setCA: "expected 1 certificate, found 2"), so while
 * ca.crt is a bundle the signer reads this copy of the CA that matches ca.key, as kubernetes.io's
 * "Manual Rotation of CA Certificates" advises. Under the certificate dir, which the
 * controller-manager's static pod already mounts.
 */
const SIGNING_CERT_FILE = 'ca-signing.crt';

/** Which CA row of the certificate table each rotated item is (service-account is a key pair). */
const CA_ROW: Readonly<Record<Exclude<Rotated, 'service-account'>, { row: string; baseName: string }>> = {
  cluster: { row: 'ca', baseName: 'ca' },
  'front-proxy': { row: 'front-proxy-ca', baseName: 'front-proxy-ca' },
  etcd: { row: 'etcd-ca', baseName: 'etcd/ca' },
};

interface FileChange {
  readonly path: string;
  /** New content; undefined removes the file. */
  readonly content?: string;
  readonly mode: number;
  readonly kind: FileKind;
  readonly description: string;
  readonly readers: readonly Reader[];
}

/** The kubelet's own certificates at sign-new: re-issued locally on a control plane (./node-files.ts), through CSRs on a worker (./kubelet-csr.ts). */
export type ApiAction = 'kubelet-client-certificate' | 'kubelet-serving-certificate';

export interface NodeStepPlan {
  readonly step: NodeStep;
  readonly role: NodeRole;
  /** In write order: CA files before the files that name them. */
  readonly changes: readonly FileChange[];
  /** sign-new on a control plane: the certificates and kubeconfig client certificates re-issued by the new CAs. */
  readonly reissue: readonly CertEntry[];
  readonly api: readonly ApiAction[];
  /** Every reader of a changed file or re-issued certificate, in restart order. */
  readonly restarts: readonly Reader[];
}

export interface NodeFacts {
  readonly role: NodeRole;
  readonly certDir: string;
  readonly kubeconfigDir: string;
  readonly externalEtcd: boolean;
  /** Text of the files of this node that the plan may change, by host path; a missing file is absent. */
  readonly files: ReadonlyMap<string, string>;
  /** The kubelet's serving certificate was issued by the cluster CA (serverTLSBootstrap), not self-signed. */
  readonly kubeletServingFromCluster: boolean;
}

/** The new private keys on a control plane (staged from the hand-off), PEM, by item. */
export type NewKeys = Readonly<Partial<Record<Rotated, string>>>;

/** Which trust a step gives: both with the old one signing, both with the new one signing, one alone. */
function trustOf(step: NodeStep, m: Material): { readonly signer: string; readonly trusted: readonly string[] } {
  switch (step) {
    case 'trust-both':
      return { signer: m.old, trusted: [m.old, m.new] };
    case 'sign-new':
      return { signer: m.new, trusted: [m.new, m.old] };
    case 'trust-new':
      return { signer: m.new, trusted: [m.new] };
    case 'rollback':
      return { signer: m.old, trusted: [m.old] };
  }
}

/** Which components read each CA file (the static pod flags of docs/kubeadm-reference.md §4; the kubelet's clientCAFile). */
const CA_READERS: Readonly<Record<Exclude<Rotated, 'service-account'>, readonly Reader[]>> = {
  // kube-apiserver --client-ca-file, kube-controller-manager --client-ca-file/--root-ca-file, kubelet clientCAFile
  cluster: ['kube-apiserver', 'kube-controller-manager', 'kubelet'],
  // kube-apiserver --requestheader-client-ca-file
  'front-proxy': ['kube-apiserver'],
  // etcd --trusted-ca-file/--peer-trusted-ca-file, kube-apiserver --etcd-cafile
  etcd: ['etcd', 'kube-apiserver'],
};

const KUBECONFIG_READERS: Readonly<Record<string, readonly Reader[]>> = {
  [KUBECONFIG_FILES.admin]: [],
  [KUBECONFIG_FILES.superAdmin]: [],
  [KUBECONFIG_FILES.controllerManager]: ['kube-controller-manager'],
  [KUBECONFIG_FILES.scheduler]: ['kube-scheduler'],
  [KUBECONFIG_FILES.kubelet]: ['kubelet'],
};

/** The kubeconfig files a rotation of the cluster CA touches: the inventory's, and kubelet.conf (which the inventory leaves out). */
function kubeconfigFiles(kubeconfigDir: string): string[] {
  const fromInventory = inventory({ externalEtcd: false }).certificates.filter((e) => e.kind === 'kubeconfig').map((e) => e.file);
  return [...fromInventory, KUBECONFIG_FILES.kubelet].map((f) => path.posix.join(kubeconfigDir, f));
}

/**
 * The controller-manager manifest with --cluster-signing-cert-file set to FILE. Text-level, one
 * argument line, so the rest of the manifest stays byte for byte what kubeadm or tsadm wrote.
 */
export function withSigningCertFile(manifest: string, file: string, source: string): string {
  const re = /^(\s*- --cluster-signing-cert-file=)(.*)$/m;
  const m = re.exec(manifest);
  if (!m) throw new TsadmError('E_PRECONDITION', `${source} has no --cluster-signing-cert-file argument`, { hint: 'the cluster CA can be rotated only where the controller-manager signs with it (not in external-CA mode)' });
  if (m[2] === '') throw new TsadmError('E_PRECONDITION', `${source}: --cluster-signing-cert-file is empty (external-CA mode)`, { hint: 'rotate an external CA with your own CA tooling' });
  return manifest.replace(re, `$1${file}`);
}

/** The plan of STEP on this node. NEW_KEYS is needed for sign-new on a control plane. */
export function planNodeStep(step: NodeStep, items: Readonly<Partial<Record<Rotated, Material>>>, facts: NodeFacts, newKeys: NewKeys = {}): NodeStepPlan {
  const changes: FileChange[] = [];
  const cp = facts.role === 'control-plane';
  const has = (p: string): boolean => facts.files.has(p);
  const write = (p: string, content: string, mode: number, kind: FileKind, description: string, readers: readonly Reader[]): void => {
    if (facts.files.get(p) !== content) changes.push({ path: p, content, mode, kind, description, readers });
  };
  const keyFor = (item: Rotated): string => {
    const key = newKeys[item];
    if (key === undefined) {
      throw new TsadmError('E_PRECONDITION', `the new ${item} private key is not staged on this control plane`, { hint: 'run "tsadm certs rotate-ca node --rotation-key …" on this control plane during trust-both first (the key start printed)' });
    }
    return key;
  };

  // The controller-manager's signing certificate, a one-certificate copy while ca.crt is a bundle,
  // written right after the cluster CA's files so the signer's certificate and ca.key disagree only
  // between two renames.
  const signingChanges = (cluster: Material): void => {
    const signing = path.posix.join(facts.certDir, SIGNING_CERT_FILE);
    const manifest = manifestPath('kube-controller-manager');
    const text = facts.files.get(manifest);
    if (text === undefined) throw new TsadmError('E_PRECONDITION', `${manifest} is missing on this control plane`, { hint: 'restore the controller-manager manifest' });
    const bundled = step === 'trust-both' || step === 'sign-new';
    if (bundled) write(signing, bundlePem(trustOf(step, cluster).signer), MODES.certificate, 'certificate', 'the controller-manager\'s signing CA (one certificate)', ['kube-controller-manager']);
    const flag = bundled ? signing : pkiFiles(facts.certDir, 'ca').cert;
    write(manifest, withSigningCertFile(text, flag, manifest), MODES.manifest, 'manifest', 'static Pod manifest for "kube-controller-manager"', ['kube-controller-manager']);
    // Removed only after the manifest no longer names it.
    if (!bundled && has(signing)) changes.push({ path: signing, mode: MODES.certificate, kind: 'certificate', description: 'the controller-manager\'s signing CA copy (no longer used)', readers: [] });
  };

  // 1. The CA files, each a bundle (or one certificate) with the signing CA first.
  for (const item of ['cluster', 'front-proxy', 'etcd'] as const) {
    const m = items[item];
    if (!m) continue;
    if (item === 'etcd' && facts.externalEtcd) continue;
    // A worker has only the cluster CA (ca.crt, for the kubelet); the others live on control planes.
    if (!cp && item !== 'cluster') continue;
    const files = pkiFiles(facts.certDir, CA_ROW[item].baseName);
    if (!has(files.cert)) {
      if (item === 'cluster' || cp) throw new TsadmError('E_PRECONDITION', `${files.cert} is missing on this node`, { hint: 'this node is not set up as the rotation expects; restore the file' });
      continue;
    }
    const t = trustOf(step, m);
    write(files.cert, bundlePem(t.signer, ...t.trusted), MODES.certificate, 'certificate', `"${CA_ROW[item].baseName}" CA trust (${step})`, CA_READERS[item].filter((r) => cp || r === 'kubelet'));
    if (cp && step === 'sign-new') write(files.key, keyFor(item), MODES.key, 'private-key', `"${CA_ROW[item].baseName}" CA private key (new)`, item === 'cluster' ? ['kube-controller-manager'] : []);
    if (cp && item === 'cluster') signingChanges(m);
  }
  const sa = items['service-account'];
  if (sa && cp) {
    const t = trustOf(step, sa);
    // --service-account-key-file reads every key of the file: both verify while tokens of either may be presented.
    write(publicKeyPath(facts.certDir, 'sa'), publicKeyBundlePem(t.signer, ...t.trusted), MODES.publicKeySa, 'public-key', 'service-account public keys', ['kube-apiserver']);
    // --service-account-signing-key-file (kube-apiserver), --service-account-private-key-file (kube-controller-manager, legacy token Secrets)
    if (step === 'sign-new') write(path.posix.join(facts.certDir, 'sa.key'), keyFor('service-account'), MODES.key, 'private-key', 'service-account signing key (new)', ['kube-apiserver', 'kube-controller-manager']);
  }

  // 2. Every kubeconfig on the node trusts what ca.crt trusts.
  const cluster = items.cluster;
  if (cluster) {
    const t = trustOf(step, cluster);
    const trust = bundlePem(t.signer, ...t.trusted);
    for (const file of kubeconfigFiles(facts.kubeconfigDir)) {
      const text = facts.files.get(file);
      if (text === undefined) continue;
      write(file, withClusterCA(text, file, trust), MODES.kubeconfig, 'kubeconfig', `${path.posix.basename(file)} kubeconfig (CA ${step})`, KUBECONFIG_READERS[path.posix.basename(file)] ?? []);
    }
  }

  // 3. sign-new: leaves re-issued by the new CAs (control planes), the kubelet's certificates through the API.
  const rotatedRows = new Set((['cluster', 'front-proxy', 'etcd'] as const).filter((i) => items[i] && !(i === 'etcd' && facts.externalEtcd)).map((i) => CA_ROW[i].row));
  const reissue = step === 'sign-new' && cp
    ? inventory({ externalEtcd: facts.externalEtcd }).certificates.filter((e) => rotatedRows.has(e.caName) && has(e.kind === 'pki' ? pkiFiles(facts.certDir, e.baseName).cert : path.posix.join(facts.kubeconfigDir, e.file)))
    : [];
  const api: ApiAction[] = step === 'sign-new' && cluster ? ['kubelet-client-certificate', ...(facts.kubeletServingFromCluster ? ['kubelet-serving-certificate' as const] : [])] : [];

  const wanted = new Set<Reader>([...changes.flatMap((c) => c.readers), ...reissue.flatMap((e) => e.restart), ...(api.length > 0 ? ['kubelet' as const] : [])]);
  return { step, role: facts.role, changes, reissue, api, restarts: RESTART_ORDER.filter((r) => wanted.has(r)) };
}

/** Host paths whose text planNodeStep reads: what the effects layer loads into NodeFacts.files. */
export function filesToRead(certDir: string, kubeconfigDir: string, externalEtcd: boolean): string[] {
  const cas: string[] = [];
  for (const r of Object.values(CA_ROW)) {
    if (externalEtcd && r.row === 'etcd-ca') continue;
    const f = pkiFiles(certDir, r.baseName);
    cas.push(f.cert, f.key);
  }
  const pki: string[] = [
    ...cas,
    publicKeyPath(certDir, 'sa'),
    path.posix.join(certDir, 'sa.key'),
    path.posix.join(certDir, SIGNING_CERT_FILE),
  ];
  const leaves: string[] = [];
  for (const e of inventory({ externalEtcd }).certificates) if (e.kind === 'pki') leaves.push(pkiFiles(certDir, e.baseName).cert);
  return [...pki, ...leaves, ...kubeconfigFiles(kubeconfigDir), manifestPath('kube-controller-manager')];
}
