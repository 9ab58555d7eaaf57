/**
 * Starts key generation for every certificate of the group still to come in this run that will
 * need a new key: files absent, not skipped (--skip-phases / skipPhases), not external etcd,
 * signable (the CA key exists or will be created). Keys for reused files are never generated.
 */
import { normalizePath } from '../engine/selection.js';
import { CERT_ROWS, SA_BASE_NAME, certRow, type CertRow } from './cert-table.js';
import type { PkiCtx } from './context.js';
import { keyPath, pkiFiles } from './paths.js';

/** Phase names of the certs group in run order. */
const CERT_PHASE_ORDER: readonly string[] = [...CERT_ROWS.map((r) => r.name), SA_BASE_NAME];

export function isSkipped(skipPhases: readonly string[], group: string, name: string): boolean {
  const path = `${group}/${name}`;
  return skipPhases.map(normalizePath).some((s) => s === group || s === path);
}

export async function prefetchCertKeys(ctx: PkiCtx, fromName: string): Promise<string[]> {
  const start = CERT_PHASE_ORDER.indexOf(fromName);
  const names = CERT_PHASE_ORDER.slice(Math.max(start, 0)).filter((n) => !isSkipped(ctx.cfg.init.skipPhases, 'certs', n));
  const wanted = await Promise.all(names.map(async (name) => ((await needsKey(ctx, name)) ? name : undefined)));
  const pool = ctx.state.pki.keys;
  const started = wanted.filter((n): n is string => n !== undefined);
  for (const name of started) pool.prefetch(`certs/${name}`, ctx.cfg.cluster.encryptionAlgorithm);
  return started;
}

async function exists(ctx: PkiCtx, file: string): Promise<boolean> {
  return (await ctx.host.stat(file)) !== undefined;
}

async function needsKey(ctx: PkiCtx, name: string): Promise<boolean> {
  const dir = ctx.cfg.cluster.certificatesDir;
  if (name === SA_BASE_NAME) {
    const ca = pkiFiles(dir, 'ca');
    const externalCA = (await exists(ctx, ca.cert)) && !(await exists(ctx, ca.key));
    return !externalCA && !(await exists(ctx, keyPath(dir, SA_BASE_NAME)));
  }
  const row: CertRow = certRow(name);
  if (row.etcd && ctx.cfg.cluster.etcd.mode === 'external') return false;
  if (row.caName && ctx.options.csrOnly) return false; // CSR keys land in --csr-dir; made on demand
  const files = pkiFiles(dir, row.baseName);
  if ((await exists(ctx, files.cert)) || (await exists(ctx, files.key))) return false;
  if (!row.caName) return true;
  const ca = pkiFiles(dir, certRow(row.caName).baseName);
  return !((await exists(ctx, ca.cert)) && !(await exists(ctx, ca.key)));
}
