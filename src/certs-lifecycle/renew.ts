/**
 * `certs renew <name>|all` (kubeadm's RenewUsingLocalCA): re-sign existing certificates with the
 * CA on disk, keeping their subject, SANs and usages (kubeconfigs: their identity) and, unlike
 * kubeadm, their private key unless --new-key is given, so a renewal replaces exactly one file
 * per certificate (the .crt, or the kubeconfig) with an atomic rename.
 *
 * Everything is read, checked and signed first; files are written only once every selected
 * certificate has been renewed in memory, so a problem with one leaves all files untouched.
 * A certificate whose CA has no key on disk (external CA) is never renewed.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { MODES } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { FileKind } from '../host/host.js';
import { certRow } from '../certs/cert-table.js';
import { loadCA, type LoadedCA } from '../certs/ca.js';
import { pkiFiles } from '../certs/paths.js';
import { encodePrivateKeyPem, generateKeyPair, keyAlgorithmOf } from '../pki/keys.js';
import { isSignedBy, keyMatchesCertificate } from '../pki/verify.js';
import { signCertificate } from '../pki/sign.js';
import type { Certificate } from '../pki/certificate.js';
import type { LifecycleCtx } from './context.js';
import { componentsToRestart, inventory, type CertEntry, type Component } from './inventory.js';
import { withClientCredentials } from './kubeconfig-credentials.js';
import { isExternallyManaged, loadEntry, type LoadedEntry } from './read.js';
import { renewalTemplate } from './renew-template.js';

export interface RenewOptions {
  /** Generate a new private key for each certificate (kubeadm's behaviour). */
  readonly newKey: boolean;
}

interface PlannedWrite {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
  readonly kind: FileKind;
  readonly description: string;
}

interface RenewedCertificate {
  readonly entry: CertEntry;
  readonly path: string;
  readonly old: Certificate;
  readonly renewed: Certificate;
  readonly newKey: boolean;
  readonly writes: readonly PlannedWrite[];
}

export interface RenewResult {
  readonly renewed: readonly RenewedCertificate[];
  /** Entries whose CA is external (no CA key): not renewed. */
  readonly external: readonly CertEntry[];
  /** Entries with no file on this node (only with "all"). */
  readonly missing: readonly CertEntry[];
  readonly restart: readonly Component[];
}

/** Resolves "all" or one name to inventory entries; unknown names are a usage error. */
export function selectEntries(ctx: Pick<LifecycleCtx, 'cfg'>, name: string): CertEntry[] {
  const inv = inventory({ externalEtcd: ctx.cfg.cluster.etcd.mode === 'external' });
  if (name === 'all') return [...inv.certificates];
  const entry = inv.certificates.find((e) => e.name === name);
  if (!entry) {
    throw new TsadmError('E_USAGE', `${name} is not a valid certificate for this cluster`, {
      hint: `use one of: all, ${inv.certificates.map((e) => e.name).join(', ')}`,
    });
  }
  return [entry];
}

async function keyFor(ctx: LifecycleCtx, loaded: LoadedEntry, opts: RenewOptions): Promise<{ key: KeyObject; fresh: boolean }> {
  if (opts.newKey) {
    const algorithm = (loaded.key && keyAlgorithmOf(loaded.key)) || ctx.cfg.cluster.encryptionAlgorithm;
    return { key: (await generateKeyPair(algorithm)).privateKey, fresh: true };
  }
  if (!loaded.key) {
    throw new TsadmError('E_CONFLICT', `${loaded.entry.name}: the private key of ${loaded.path} is missing, so it cannot be kept`, {
      hint: `restore the key, or renew with --new-key to issue the certificate for a new key`,
    });
  }
  if (!keyMatchesCertificate(loaded.cert, loaded.key)) {
    throw new TsadmError('E_CONFLICT', `${loaded.entry.name}: the private key does not match the certificate ${loaded.path}`, {
      hint: 'restore the matching key, or renew with --new-key to issue the certificate for a new key',
    });
  }
  return { key: loaded.key, fresh: false };
}

async function renewOne(ctx: LifecycleCtx, loaded: LoadedEntry, ca: LoadedCA & { key: KeyObject }, opts: RenewOptions): Promise<RenewedCertificate> {
  const { entry } = loaded;
  if (!isSignedBy(loaded.cert, ca.cert)) {
    ctx.log.warn(`${entry.name}: ${loaded.path} was not signed by the current CA ${ca.certFile}; the renewed certificate will be`);
  }
  const { key, fresh } = await keyFor(ctx, loaded, opts);
  const { template, warnings } = renewalTemplate(loaded.cert, ca.cert, { startTime: ctx.startTime, versions: ctx.versions, cluster: ctx.cfg.cluster });
  for (const w of warnings) ctx.log.warn(`${entry.name}: ${w}`);
  const renewed = signCertificate(template, createPublicKey(key), { privateKey: ca.key, certificate: ca.cert });
  return { entry, path: loaded.path, old: loaded.cert, renewed, newKey: fresh, writes: writesFor(ctx.certDir, loaded, renewed, key, fresh, ca.cert) };
}

function writesFor(certDir: string, loaded: LoadedEntry, renewed: Certificate, key: KeyObject, fresh: boolean, ca: Certificate): PlannedWrite[] {
  const { entry } = loaded;
  if (entry.kind === 'kubeconfig') {
    const content = withClientCredentials(loaded.kubeconfigText ?? '', loaded.path, { certPem: renewed.pem, keyPem: encodePrivateKeyPem(key), caPem: ca.pem });
    return [{ path: loaded.path, content, mode: MODES.kubeconfig, kind: 'kubeconfig', description: `${entry.file} kubeconfig` }];
  }
  const keyFile = pkiFiles(certDir, entry.baseName).key;
  return [
    // kubeadm's WriteCertAndKey order: the key first, then the certificate
    ...(fresh ? [{ path: keyFile, content: encodePrivateKeyPem(key), mode: MODES.key, kind: 'private-key' as const, description: `"${entry.baseName}" private key` }] : []),
    { path: loaded.path, content: renewed.pem, mode: MODES.certificate, kind: 'certificate', description: `"${entry.baseName}" certificate` },
  ];
}

/** Reads, checks and signs every selected certificate; writes nothing. */
export async function planRenewal(ctx: LifecycleCtx, entries: readonly CertEntry[], opts: RenewOptions): Promise<RenewResult> {
  const renewed: RenewedCertificate[] = [];
  const external: CertEntry[] = [];
  const missing: CertEntry[] = [];
  for (const entry of entries) {
    const loaded = await loadEntry(ctx, entry);
    if (!loaded) {
      if (entries.length === 1) {
        throw new TsadmError('E_PRECONDITION', `${entry.longName} does not exist on this node`, {
          hint: entry.kind === 'pki' ? `expected ${pkiFiles(ctx.certDir, entry.baseName).cert}` : `expected ${entry.file} in ${ctx.kubeconfigDir}`,
        });
      }
      if (!(entry.kind === 'kubeconfig' && entry.onlyIfPresent)) missing.push(entry);
      continue;
    }
    if (await isExternallyManaged(ctx.host, ctx.certDir, entry.caBaseName)) {
      external.push(entry);
      continue;
    }
    const ca = await loadCA(ctx, certRow(entry.caName));
    if (!ca?.key) {
      throw new TsadmError('E_PRECONDITION', `cannot renew ${entry.name}: the ${entry.caBaseName} CA does not exist (${pkiFiles(ctx.certDir, entry.caBaseName).cert})`, {
        hint: 'restore the CA certificate and key of this cluster',
      });
    }
    renewed.push(await renewOne(ctx, loaded, { ...ca, key: ca.key }, opts));
  }
  return { renewed, external, missing, restart: componentsToRestart(renewed.map((r) => r.entry)) };
}

/** Writes the planned files (each atomically through the host). */
export async function applyRenewal(ctx: LifecycleCtx, result: RenewResult): Promise<void> {
  for (const r of result.renewed) {
    for (const w of r.writes) await ctx.host.writeFile(w.path, w.content, { mode: w.mode, kind: w.kind, description: w.description });
  }
}
