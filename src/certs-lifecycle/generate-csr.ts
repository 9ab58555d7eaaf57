/**
 * `certs generate-csr` (kubeadm's CreateDefaultKeysAndCSRFiles + CreateDefaultKubeConfigsAndCSRFiles):
 * the external-CA workflow's first step. For every leaf certificate: <cert-dir>/<name>.key and
 * <name>.csr; for every kubeconfig: a partial <kubeconfig-dir>/<file> holding the new client key
 * (client-key-data) and <file>.csr. All 0600, as kubeadm writes them. Plus sa.key/sa.pub, which
 * an external CA never signs but init then needs.
 *
 * Differences from kubeadm, on purpose: it is idempotent (a key and CSR that belong together are
 * kept; a certificate or kubeconfig that is already signed is left alone) where kubeadm stops
 * with "file already exists"; and a partial kubeconfig embeds ca.crt when it is already there,
 * so filling in client-certificate-data is the only edit left.
 */
import { createPublicKey } from 'node:crypto';
import path from 'node:path';
import { MODES } from '../constants.js';
import { TsadmError } from '../errors.js';
import { CERT_ROWS } from '../certs/cert-table.js';
import { ensureCsr } from '../certs/csr-only.js';
import { ensureServiceAccountKey } from '../certs/sa.js';
import { pkiFiles } from '../certs/paths.js';
import { readCertificate } from '../certs/load.js';
import { KUBECONFIG_ROWS, type KubeconfigRow } from '../kubeconfig/kubeconfig-table.js';
import { kubeconfigObject } from '../kubeconfig/render.js';
import { serverFor } from '../kubeconfig/ensure.js';
import { createCsr, parseCsrPem } from '../pki/csr.js';
import { encodePrivateKeyPem, generateKeyPair, parsePrivateKeyPem, sameKey } from '../pki/keys.js';
import { toKubeYaml } from '../yaml/write.js';
import { prefixed, type LifecycleCtx } from './context.js';
import { readClientCredentials } from './kubeconfig-credentials.js';

export async function generateCsrs(lctx: LifecycleCtx): Promise<void> {
  const ctx: LifecycleCtx = { ...lctx, log: prefixed(lctx.log, 'certs'), options: { ...lctx.options, csrDir: lctx.certDir } };
  ctx.log.info(`generating keys and CSRs in ${ctx.certDir}`);
  const external = ctx.cfg.cluster.etcd.mode === 'external';
  for (const row of CERT_ROWS) {
    if (!row.caName || (row.etcd && external)) continue;
    const files = pkiFiles(ctx.certDir, row.baseName);
    if (await readCertificate(ctx.host, files.cert)) {
      ctx.log.info(`Using the existing signed "${row.baseName}" certificate (${files.cert})`);
      continue;
    }
    const want = row.config(ctx.cfg, ctx.versions);
    for (const w of want.altNames.warnings) ctx.log.warn(w);
    await ensureCsr(ctx, row, want, { announce: false });
  }
  await ensureServiceAccountKey(ctx, { evenWithExternalCA: true });
  const kctx: LifecycleCtx = { ...lctx, log: prefixed(lctx.log, 'kubeconfig') };
  kctx.log.info(`generating keys and CSRs in ${kctx.kubeconfigDir}`);
  for (const row of KUBECONFIG_ROWS) {
    if (row.exists && !row.exists(kctx.versions)) continue;
    await kubeconfigCsr(kctx, row);
  }
}

async function kubeconfigCsr(ctx: LifecycleCtx, row: KubeconfigRow): Promise<void> {
  const file = path.posix.join(ctx.kubeconfigDir, row.file);
  const csrFile = `${file}.csr`;
  const log = (m: string): void => ctx.log.info(m);
  const [existing, csrData] = await Promise.all([ctx.host.readFile(file), ctx.host.readFile(csrFile)]);
  if (existing !== undefined) {
    const creds = readClientCredentials(existing.toString('utf8'), file);
    if (typeof creds === 'string') throw new TsadmError('E_CONFLICT', creds, { hint: `remove ${file} to let tsadm write a new key and CSR` });
    if (creds.certPem || creds.certFile) {
      log(`Using the existing signed kubeconfig "${row.file}"`);
      return;
    }
    if (creds.keyPem && csrData) {
      const csr = parseCsrPem(csrData, csrFile);
      if (sameKey(createPublicKey({ key: csr.spki, format: 'der', type: 'spki' }), parsePrivateKeyPem(creds.keyPem, file))) {
        log(`Using the existing "${row.file}" key and CSR`);
        return;
      }
    }
    throw new TsadmError('E_CONFLICT', `${file} exists but holds neither a client certificate nor the key of ${csrFile}`, {
      hint: `remove ${file} and ${csrFile} to let tsadm write a new key and CSR`,
    });
  }
  if (csrData) throw new TsadmError('E_CONFLICT', `${csrFile} exists but ${file} (which holds its key) does not`, { hint: `remove ${csrFile}` });
  const identity = row.identity(ctx.cfg, ctx.versions);
  const { privateKey } = await generateKeyPair(ctx.cfg.cluster.encryptionAlgorithm);
  const csr = createCsr({ subject: identity, dnsNames: [], ipAddresses: [] }, privateKey);
  const caPem = await ctx.host.readFile(pkiFiles(ctx.certDir, 'ca').cert);
  const obj = kubeconfigObject({
    clusterName: ctx.cfg.cluster.clusterName,
    server: serverFor(ctx, row),
    caPem: caPem ?? '',
    userName: identity.commonName,
    auth: { kind: 'client-certificate', certificatePem: '', keyPem: encodePrivateKeyPem(privateKey) },
  });
  const cluster = (obj.clusters as { cluster: Record<string, unknown> }[])[0]?.cluster ?? {};
  if (!caPem) delete cluster['certificate-authority-data'];
  delete (obj.users as { user: Record<string, unknown> }[])[0]?.user['client-certificate-data'];
  log(`Generating "${row.file}" key and CSR`);
  await ctx.host.writeFile(file, toKubeYaml(obj), { mode: MODES.kubeconfig, kind: 'kubeconfig', description: `partial ${row.file} (client key, no certificate yet)` });
  await ctx.host.writeFile(csrFile, csr.pem, { mode: MODES.key, kind: 'csr', description: `"${row.file}" certificate signing request` });
}
