/** Keys for the kubeconfig files still to come in this run that will be written (absent, signable). */
import { isSkipped } from '../certs/prefetch.js';
import type { PkiCtx } from '../certs/context.js';
import { pkiFiles } from '../certs/paths.js';
import { kubeconfigPath } from './ensure.js';
import { KUBECONFIG_ROWS } from './kubeconfig-table.js';

export async function prefetchKubeconfigKeys(ctx: PkiCtx, fromName: string): Promise<string[]> {
  const ca = pkiFiles(ctx.cfg.cluster.certificatesDir, 'ca');
  if (!(await ctx.host.stat(ca.key))) return []; // external CA: nothing will be signed
  const start = Math.max(0, KUBECONFIG_ROWS.findIndex((r) => r.name === fromName));
  const rows = KUBECONFIG_ROWS.slice(start).filter((r) => (r.exists?.(ctx.versions) ?? true) && !isSkipped(ctx.cfg.init.skipPhases, 'kubeconfig', r.name));
  const missing = await Promise.all(rows.map(async (r) => ((await ctx.host.stat(kubeconfigPath(ctx, r))) ? undefined : r.name)));
  const names = missing.filter((n): n is string => n !== undefined);
  const pool = ctx.state.pki.keys;
  for (const name of names) pool.prefetch(`kubeconfig/${name}`, ctx.cfg.cluster.encryptionAlgorithm);
  return names;
}
