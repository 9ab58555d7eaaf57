/**
 * The `kubeconfig` phase: admin.conf, super-admin.conf (1.29+), kubelet.conf,
 * controller-manager.conf and scheduler.conf in --kubeconfig-dir (mode 0600), each with a
 * client certificate signed by the cluster CA.
 * Idempotency: an existing file with the same CA is kept untouched (see ensure.ts).
 * Dry-run: the same code on a DryRunHost; nothing reaches the disk.
 */
import type { Phase } from '../../workflow/phase.js';
import type { InitCtx } from '../../workflows/context.js';
import type { PkiCtx } from '../certs/context.js';
import { groupStateFor } from '../certs/run-state.js';
import { resolveControlPlaneEndpoint } from './endpoint.js';
import { ensureKubeconfig } from './ensure.js';
import { KUBECONFIG_ROWS, type KubeconfigRow } from './kubeconfig-table.js';
import { prefetchKubeconfigKeys } from './prefetch.js';

/** Once per run: the folder line, the endpoint warning; from the second file on, keys for the rest. */
async function beginLeaf(ctx: PkiCtx, name: string): Promise<void> {
  const state = groupStateFor(ctx, 'kubeconfig');
  if (!state.announced) {
    state.announced = true;
    ctx.log.info(`Using kubeconfig folder "${ctx.options.kubeconfigDir}"`);
    const { warning } = resolveControlPlaneEndpoint(ctx.cfg);
    if (warning) ctx.log.warn(warning, { prefix: 'endpoint' });
  }
  state.ran.push(name);
  if (state.ran.length >= 2 && !state.prefetched) {
    state.prefetched = true;
    await prefetchKubeconfigKeys(ctx, name);
  }
}

function kubeconfigFilePhase(row: KubeconfigRow): Phase<InitCtx> {
  return {
    name: row.name,
    summary: row.summary,
    description: row.description,
    flags: row.flags,
    ...(row.exists ? { skipIf: (ctx: InitCtx) => (row.exists?.(ctx.versions) ? undefined : `${row.file} does not exist in Kubernetes ${ctx.cfg.cluster.kubernetesVersion}`) } : {}),
    run: async (ctx) => {
      await beginLeaf(ctx, row.name);
      await ensureKubeconfig(ctx, row);
    },
  };
}

export const kubeconfigPhase: Phase<InitCtx> = {
  name: 'kubeconfig',
  summary: 'Generate all kubeconfig files necessary to establish the control plane and the admin kubeconfig file',
  children: KUBECONFIG_ROWS.map(kubeconfigFilePhase),
};
