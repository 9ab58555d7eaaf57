/**
 * The `certs` phase: one child per row of the certificate table plus `sa` (the CLI adds `all`).
 *
 * Creates: the cluster CAs, their leaf certificates and the service-account key pair under
 * cfg.cluster.certificatesDir (crt 0644, keys 0600, dirs 0755).
 * Idempotency: existing files that still fit are reused byte for byte; files that do not fit
 * stop the run with E_CONFLICT; a CA without its key (external CA) is used but never signs.
 * Dry-run: the same code on a DryRunHost; nothing reaches the disk.
 */
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { ensureCA } from '../../certs/ca.js';
import { CERT_ROWS, SA_BASE_NAME, type CertRow } from '../../certs/cert-table.js';
import type { PkiCtx } from '../../certs/context.js';
import { ensureLeaf } from '../../certs/leaf.js';
import { prefetchCertKeys } from '../../certs/prefetch.js';
import { ensureServiceAccountKey } from '../../certs/sa.js';
import { verifyCertificate, verifyServiceAccountKey } from './verify.js';

/**
 * Bookkeeping shared by every certs leaf: the folder line once per run (kubeadm prints it from
 * the parent phase), and, once a second certs leaf runs in the same command (`certs all`,
 * `init`), keys for all remaining certificates are generated together. A single-phase run never
 * generates keys it will not use.
 */
async function beginLeaf(ctx: PkiCtx, name: string): Promise<void> {
  const state = ctx.state.pki.certs;
  if (!state.announced) {
    state.announced = true;
    ctx.log.info(`Using certificateDir folder "${ctx.cfg.cluster.certificatesDir}"`);
  }
  state.ran.push(name);
  if (state.ran.length >= 2 && !state.prefetched) {
    state.prefetched = true;
    await prefetchCertKeys(ctx, name);
  }
}

function externalEtcdSkip(ctx: PkiCtx, row: CertRow): boolean {
  if (!row.etcd || ctx.cfg.cluster.etcd.mode !== 'external') return false;
  ctx.log.info(row.caName
    ? `External etcd mode: Skipping ${row.baseName} certificate generation`
    : `External etcd mode: Skipping ${row.baseName} certificate authority generation`);
  return true;
}

function certPhase(row: CertRow): Phase<InitCtx> {
  return {
    name: row.name,
    summary: `Generate the ${row.longName}`,
    description: `Generate the ${row.longName}, and save them into ${row.baseName}.crt and ${row.baseName}.key files.\n\n`
      + 'If both files already exist, tsadm skips the generation step and existing files will be used.',
    example: `  # Generates the ${row.baseName} certificate and key, functionally equivalent to what tsadm init does.\n  tsadm init phase certs ${row.name} --config config.yaml`,
    flags: row.flags,
    run: async (ctx) => {
      await beginLeaf(ctx, row.name);
      if (externalEtcdSkip(ctx, row)) return;
      await (row.caName ? ensureLeaf(ctx, row) : ensureCA(ctx, row));
    },
    verify: (ctx) => verifyCertificate(ctx, row),
  };
}

const saPhase: Phase<InitCtx> = {
  name: SA_BASE_NAME,
  summary: 'Generate a private key for signing service account tokens along with its public key',
  description: 'Generate the private key for signing service account tokens along with its public key, and save them into sa.key and sa.pub files.\n\n'
    + 'If both files already exist, tsadm skips the generation step and existing files will be used.',
  example: '  # Generates sa.key and sa.pub, functionally equivalent to what tsadm init does.\n  tsadm init phase certs sa --cert-dir /etc/kubernetes/pki',
  flags: ['cert-dir', 'config', 'kubernetes-version'],
  run: async (ctx) => {
    await beginLeaf(ctx, SA_BASE_NAME);
    await ensureServiceAccountKey(ctx);
  },
  verify: verifyServiceAccountKey,
};

export const certsPhase: Phase<InitCtx> = {
  name: 'certs',
  summary: 'Certificate generation',
  description: 'Generate the certificate authorities and the certificates of the control plane, and the service account key pair, '
    + 'under the certificate directory (/etc/kubernetes/pki by default). Existing valid files are reused.',
  example: '  # Generates every certificate, functionally equivalent to what tsadm init does.\n  tsadm init phase certs all --config config.yaml\n\n'
    + '  # Generates the API server certificate with an extra SAN.\n  tsadm init phase certs apiserver --apiserver-cert-extra-sans api.example.com',
  children: [...CERT_ROWS.map(certPhase), saPhase],
};
