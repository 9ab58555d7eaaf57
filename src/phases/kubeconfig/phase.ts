/**
 * The `kubeconfig` phase: admin.conf, super-admin.conf (1.29+), kubelet.conf,
 * controller-manager.conf and scheduler.conf in --kubeconfig-dir (mode 0600), each with a
 * client certificate signed by the cluster CA.
 * Idempotency: an existing file with the same CA is kept untouched (see ensure.ts).
 * Dry-run: the same code on a DryRunHost; nothing reaches the disk.
 */
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import type { PkiCtx } from '../../certs/context.js';
import { resolveControlPlaneEndpoint } from '../../config/endpoint.js';
import { ensureKubeconfig } from '../../kubeconfig/ensure.js';
import { KUBECONFIG_ROWS, type KubeconfigRow } from '../../kubeconfig/kubeconfig-table.js';
import { prefetchKubeconfigKeys } from '../../kubeconfig/prefetch.js';

/** Once per run: the folder line, the endpoint warning; from the second file on, keys for the rest. */
async function beginLeaf(ctx: PkiCtx, name: string): Promise<void> {
  const state = ctx.state.pki.kubeconfig;
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
    example: `  # Generates ${row.file}, functionally equivalent to what tsadm init does.\n  tsadm init phase kubeconfig ${row.name} --config config.yaml`,
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
  description: 'Generate the kubeconfig files of the admin, the kubelet, the controller-manager and the scheduler (and the super-admin from 1.29) '
    + 'in /etc/kubernetes, with client certificates signed by the cluster CA. Existing files for the same CA and server are reused.',
  example: '  # Generates every kubeconfig file, functionally equivalent to what tsadm init does.\n  tsadm init phase kubeconfig all --config config.yaml',
  children: KUBECONFIG_ROWS.map(kubeconfigFilePhase),
};
