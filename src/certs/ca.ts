/**
 * Certificate authorities (kubeadm's runCAPhase). An existing CA is reused as long as it is a CA
 * and its key, when present, matches; a CA certificate without its key is an external CA, which
 * tsadm uses but never signs with.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { TsadmError } from '../errors.js';
import { encodePrivateKeyPem } from '../pki/keys.js';
import { keyMatchesCertificate, validityProblem } from '../pki/verify.js';
import { signCertificate } from '../pki/sign.js';
import type { Certificate } from '../pki/certificate.js';
import type { CertRow } from './cert-table.js';
import type { PkiCtx } from './context.js';
import { readPair } from './load.js';
import { pkiFiles, type PkiFiles } from './paths.js';
import { caSerial, caValidity } from './validity.js';
import { writeCertOnly, writeKeyAndCert } from './write.js';

export interface LoadedCA {
  readonly row: CertRow;
  readonly cert: Certificate;
  /** Undefined for an external CA. */
  readonly key: KeyObject | undefined;
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * The CA as found on disk, checked; undefined when neither file exists. `orphanKey` lets the
 * caller that creates CAs pick up a key whose certificate was never written (see ensureCA).
 */
export async function loadCA(ctx: PkiCtx, row: CertRow, opts: { orphanKey?: (key: KeyObject) => void } = {}): Promise<LoadedCA | undefined> {
  const files = pkiFiles(ctx.cfg.cluster.certificatesDir, row.baseName);
  const { cert, key } = await readPair(ctx.host, files);
  if (!cert && !key) return undefined;
  if (!cert && key && opts.orphanKey) {
    opts.orphanKey(key);
    return undefined;
  }
  if (!cert) {
    throw new TsadmError('E_CONFLICT', `${files.key} exists but ${files.cert} does not`, {
      hint: `restore ${files.cert}, or remove ${files.key} to let tsadm create a new ${row.baseName} CA`,
    });
  }
  if (!cert.isCA) {
    throw new TsadmError('E_CONFLICT', `certificate ${files.cert} is not a CA`, { hint: `replace ${files.cert} with the ${row.baseName} CA certificate` });
  }
  if (key && !keyMatchesCertificate(cert, key)) {
    throw new TsadmError('E_CONFLICT', `${files.key} does not match the certificate ${files.cert}`, { hint: `restore the key that belongs to ${files.cert}` });
  }
  return { row, cert, key, certFile: files.cert, keyFile: files.key };
}

/** The `certs/<ca>` phase. */
export async function ensureCA(ctx: PkiCtx, row: CertRow): Promise<void> {
  let orphan: KeyObject | undefined;
  const existing = await loadCA(ctx, row, { orphanKey: (key) => { orphan = key; } });
  if (existing) {
    const validity = validityProblem(existing.cert, ctx.startTime);
    if (validity) ctx.log.warn(`could not validate bounds for certificate ${row.baseName}: the certificate ${validity}`);
    ctx.log.info(existing.key ? `Using existing ${row.baseName} certificate authority` : `Using existing ${row.baseName} keyless certificate authority`);
    return;
  }
  const { subject } = row.config(ctx.cfg, ctx.versions);
  const files = pkiFiles(ctx.cfg.cluster.certificatesDir, row.baseName);
  const pair = orphan ? orphanKeyPair(ctx, files, orphan) : await ctx.state.pki.keys.take(`certs/${row.name}`, ctx.cfg.cluster.encryptionAlgorithm);
  const cert = signCertificate(
    { subject, serial: caSerial(ctx.versions), ...caValidity({ ...ctx, cluster: ctx.cfg.cluster }), isCA: true, keyEnciphermentRsaOnly: ctx.versions.pki.keyEnciphermentRsaOnly, extKeyUsage: [], dnsNames: [], ipAddresses: [] },
    pair.publicKey,
    { privateKey: pair.privateKey },
  );
  if (orphan) {
    ctx.log.info(`Generating "${row.baseName}" certificate for the existing key`);
    await writeCertOnly(ctx.host, files, cert.pem, row.baseName);
    return;
  }
  ctx.log.info(`Generating "${row.baseName}" certificate and key`);
  await writeKeyAndCert(ctx.host, files, encodePrivateKeyPem(pair.privateKey), cert.pem, row.baseName);
}

/**
 * A key on disk without its certificate. Keys are written before certificates (as kubeadm
 * does), so this is what a run interrupted between the two writes leaves behind; kubeadm then
 * refuses until the key is removed by hand. tsadm issues the certificate for that key instead,
 * with a warning, so re-running the phase is enough to recover.
 */
export function orphanKeyPair(ctx: PkiCtx, files: PkiFiles, privateKey: KeyObject): { privateKey: KeyObject; publicKey: KeyObject } {
  ctx.log.warn(`${files.key} exists without its certificate ${files.cert} (an interrupted run?): issuing the certificate for that key`);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}
