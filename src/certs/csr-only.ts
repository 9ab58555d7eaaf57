/**
 * --csr-only (kubeadm's external-CA workflow): write the leaf's key and a CSR instead of a
 * certificate, into --csr-dir (default: the certificate dir). Existing key+CSR are reused.
 */
import { createPublicKey } from 'node:crypto';
import { TsadmError } from '../errors.js';
import { MODES } from '../constants.js';
import { createCsr, parseCsrPem } from '../pki/csr.js';
import { encodePrivateKeyPem, sameKey } from '../pki/keys.js';
import type { CertConfig, CertRow } from './cert-table.js';
import type { PkiCtx } from './context.js';
import { readPrivateKey } from './load.js';
import { csrPath, keyPath } from './paths.js';

/** `announce: false` drops the "instead of certificate" line (`certs generate-csr` makes only CSRs). */
export async function ensureCsr(ctx: PkiCtx, row: CertRow, want: CertConfig, opts: { announce?: boolean } = {}): Promise<void> {
  const dir = ctx.options.csrDir || ctx.cfg.cluster.certificatesDir;
  const keyFile = keyPath(dir, row.baseName);
  const csrFile = csrPath(dir, row.baseName);
  if (opts.announce !== false) ctx.log.info(`Generating CSR for ${row.baseName} instead of certificate`);
  const [key, csrData] = await Promise.all([readPrivateKey(ctx.host, keyFile), ctx.host.readFile(csrFile)]);
  if (key || csrData) {
    if (!key || !csrData) {
      throw new TsadmError('E_CONFLICT', `${key ? keyFile : csrFile} exists but ${key ? csrFile : keyFile} does not`, {
        hint: `remove ${key ? keyFile : csrFile} to let tsadm write a new key and CSR`,
      });
    }
    const csr = parseCsrPem(csrData, csrFile);
    if (!sameKey(createPublicKey({ key: csr.spki, format: 'der', type: 'spki' }), key)) {
      throw new TsadmError('E_CONFLICT', `${csrFile} was not made with the key ${keyFile}`, { hint: `remove both files to let tsadm write a new key and CSR` });
    }
    ctx.log.info(`Using the existing "${row.baseName}" CSR`);
    return;
  }
  const pair = await ctx.state.pki.keys.take(`certs/${row.name}`, ctx.cfg.cluster.encryptionAlgorithm);
  const csr = createCsr({ subject: want.subject, dnsNames: want.altNames.dnsNames, ipAddresses: want.altNames.ipAddresses }, pair.privateKey);
  ctx.log.info(`Generating "${row.baseName}" key and CSR`);
  await ctx.host.writeFile(keyFile, encodePrivateKeyPem(pair.privateKey), { mode: MODES.key, kind: 'private-key', description: `"${row.baseName}" private key` });
  await ctx.host.writeFile(csrFile, csr.pem, { mode: MODES.key, kind: 'csr', description: `"${row.baseName}" certificate signing request` });
}
