/**
 * Leaf certificates (kubeadm's runCertPhase). An existing pair is reused only if it still fits
 * (see check.ts), otherwise the run stops with E_CONFLICT naming the file and what differs;
 * without the CA key (external CA) tsadm never signs, so a missing leaf is an error. A key
 * without its certificate (an interrupted run) gets its certificate issued.
 */
import type { KeyObject } from 'node:crypto';
import { TsadmError } from '../errors.js';
import { encodePrivateKeyPem } from '../pki/keys.js';
import { randomSerial } from '../pki/serial.js';
import { signCertificate } from '../pki/sign.js';
import type { Certificate } from '../pki/certificate.js';
import { loadCA, orphanKeyPair, type LoadedCA } from './ca.js';
import { certRow, type CertConfig, type CertRow } from './cert-table.js';
import { leafProblems } from './leaf-problems.js';
import type { PkiCtx } from './context.js';
import { ensureCsr } from './csr-only.js';
import { readPair } from './load.js';
import { csrPath, pkiFiles, type PkiFiles } from './paths.js';
import { leafValidity } from './validity.js';
import { writeCertOnly, writeKeyAndCert } from './write.js';

export async function ensureLeaf(ctx: PkiCtx, row: CertRow): Promise<void> {
  const files = pkiFiles(ctx.cfg.cluster.certificatesDir, row.baseName);
  const want = row.config(ctx.cfg, ctx.versions);
  for (const w of want.altNames.warnings) ctx.log.warn(w);
  const { cert, key } = await readPair(ctx.host, files);
  if (cert) return reuse(ctx, row, files, cert, key, want);
  if (ctx.options.csrOnly) return ensureCsr(ctx, row, want);
  if (key && (await ctx.host.readFile(csrPath(ctx.cfg.cluster.certificatesDir, row.baseName))) !== undefined) {
    // A key beside a CSR is waiting for an external CA's signature: not an interrupted run.
    throw new TsadmError('E_CONFLICT', `${files.key} and its CSR exist but its certificate ${files.cert} does not`, {
      hint: `sign ${csrPath(ctx.cfg.cluster.certificatesDir, row.baseName)} with your CA and place the certificate at ${files.cert}, or remove the key and CSR to let tsadm create a new pair`,
    });
  }
  return issue(ctx, row, files, want, key);
}

async function requireCA(ctx: PkiCtx, row: CertRow): Promise<LoadedCA> {
  const caRow = certRow(row.caName ?? '');
  const ca = await loadCA(ctx, caRow);
  if (ca) return ca;
  const caFile = pkiFiles(ctx.cfg.cluster.certificatesDir, caRow.baseName).cert;
  throw new TsadmError('E_PRECONDITION', `couldn't load the ${caRow.baseName} CA that signs "${row.baseName}": ${caFile} does not exist`, {
    hint: `run "tsadm init phase certs ${caRow.name}" first, or "tsadm init phase certs all"`,
  });
}

async function reuse(ctx: PkiCtx, row: CertRow, files: PkiFiles, cert: Certificate, key: KeyObject | undefined, want: CertConfig): Promise<void> {
  if (!key) {
    throw new TsadmError('E_CONFLICT', `${files.cert} exists but its key ${files.key} does not`, {
      hint: `restore ${files.key}, or remove ${files.cert} to let tsadm create a new pair`,
    });
  }
  const ca = await requireCA(ctx, row);
  const problems = leafProblems(cert, key, want, ca.cert, ctx.startTime, ca.certFile);
  if (problems.length > 0) {
    throw new TsadmError('E_CONFLICT', `existing certificate ${files.cert} cannot be reused: ${problems.join('; ')}`, {
      hint: ca.key
        ? `remove ${files.cert} and ${files.key} to let tsadm regenerate them, or fix the configuration to match`
        : `external CA mode: issue a new "${row.baseName}" certificate with your CA (tsadm init phase certs ${row.name} --csr-only writes a CSR)`,
    });
  }
  ctx.log.info(`Using existing ${row.baseName} certificate and key on disk`);
}

/** Signs a new leaf; `orphanKey` is a key already on disk without its certificate (see orphanKeyPair). */
async function issue(ctx: PkiCtx, row: CertRow, files: PkiFiles, want: CertConfig, orphanKey?: KeyObject): Promise<void> {
  const ca = await requireCA(ctx, row);
  if (!ca.key) {
    throw new TsadmError('E_PRECONDITION', `external CA mode: ${files.cert} is missing and tsadm cannot sign it without ${ca.keyFile}`, {
      hint: `sign the "${row.baseName}" certificate with your CA and place it at ${files.cert} with its key ${files.key} (--csr-only writes the key and a CSR), or provide ${ca.keyFile}`,
    });
  }
  const pair = orphanKey ? orphanKeyPair(ctx, files, orphanKey) : await ctx.state.pki.keys.take(`certs/${row.name}`, ctx.cfg.cluster.encryptionAlgorithm);
  const issued = signCertificate({
    subject: want.subject,
    serial: randomSerial(),
    ...leafValidity({ ...ctx, cluster: ctx.cfg.cluster }, ca.cert),
    isCA: false,
    leafBasicConstraints: ctx.versions.pki.leafBasicConstraints,
    keyEnciphermentRsaOnly: ctx.versions.pki.keyEnciphermentRsaOnly,
    extKeyUsage: want.usages,
    dnsNames: want.altNames.dnsNames,
    ipAddresses: want.altNames.ipAddresses,
  }, pair.publicKey, { privateKey: ca.key, certificate: ca.cert });
  if (orphanKey) {
    ctx.log.info(`Generating "${row.baseName}" certificate for the existing key`);
    await writeCertOnly(ctx.host, files, issued.pem, row.baseName);
  } else {
    ctx.log.info(`Generating "${row.baseName}" certificate and key`);
    await writeKeyAndCert(ctx.host, files, encodePrivateKeyPem(pair.privateKey), issued.pem, row.baseName);
  }
  if (want.usages.includes('serverAuth')) {
    ctx.log.info(`${row.baseName} serving cert is signed for DNS names [${issued.dnsNames.join(' ')}] and IPs [${issued.ipAddresses.join(' ')}]`);
  }
}
