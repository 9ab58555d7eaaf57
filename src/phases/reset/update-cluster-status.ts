/**
 * reset `update-cluster-status` (1.20, v1beta2 clusters): remove this control plane from the
 * ClusterStatus in kubeadm-config. Best effort, as in kubeadm: a failure is a warning, so a
 * machine whose cluster is gone can still be reset.
 */
import { errorMessage } from '../../errors.js';
import { readKubeadmConfig } from '../../kube/kubeadm-config.js';
import type { Phase } from '../../engine/phase.js';
import type { ResetCtx } from './context.js';
import { kubeadmConfigMap } from '../../stored-config/render.js';
import { clusterStatusWithout, kubeadmConfigWithout } from '../../stored-config/cluster-status.js';
import { APISERVER_MANIFEST, adminApi, nodeName } from './state.js';
import { KUBEADM_CONFIG_CM, KUBE_SYSTEM } from '../../constants.js';

async function runUpdateClusterStatus(ctx: ResetCtx): Promise<void> {
  const api = await adminApi(ctx);
  if (!api) {
    ctx.log.info(`No ${ctx.options.kubeconfigPath}: this node is not removed from the ClusterStatus`, { prefix: 'reset' });
    return;
  }
  try {
    const stored = await readKubeadmConfig(api, { ifAbsent: 'undefined' });
    const status = stored?.clusterStatusYaml;
    if (!stored || status === undefined) {
      ctx.log.debug('the cluster keeps no ClusterStatus: nothing to update', { prefix: 'reset' });
      return;
    }
    const name = await nodeName(ctx);
    const updated = clusterStatusWithout(status, name);
    if (updated === undefined) {
      ctx.log.debug(`node "${name}" is not in the ClusterStatus`, { prefix: 'reset' });
      return;
    }
    ctx.log.info(`Removing info for node "${name}" from the ConfigMap "${KUBEADM_CONFIG_CM}" in the "${KUBE_SYSTEM}" Namespace`, { prefix: 'reset' });
    // Removed from the live list on every try: another control plane may be joining or leaving meanwhile.
    const desired = kubeadmConfigMap(stored.clusterConfigurationYaml, updated);
    await api.ensure(desired, 'update', (live) => kubeadmConfigWithout(live, desired, name));
  } catch (err) {
    ctx.log.warn(`Failed to remove the node from ClusterStatus: ${errorMessage(err)}`, { prefix: 'reset' });
  }
}

export const updateClusterStatusPhase: Phase<ResetCtx> = {
  name: 'update-cluster-status',
  summary: 'Remove this node from the ClusterStatus object.',
  description: 'Remove this control-plane node from the ClusterStatus in the kubeadm-config ConfigMap (v1beta2 clusters).',
  example: 'tsadm reset phase update-cluster-status --kubeconfig /etc/kubernetes/admin.conf',
  flags: ['kubeconfig'],
  skipIf: async (ctx) => ((await ctx.host.stat(APISERVER_MANIFEST)) ? undefined : 'not a control-plane node (no kube-apiserver manifest)'),
  run: runUpdateClusterStatus,
};
