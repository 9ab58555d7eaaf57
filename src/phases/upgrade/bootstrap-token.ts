/**
 * `upgrade apply phase bootstrap-token`: the RBAC that lets bootstrap tokens join (kubeadm's
 * AllowBootstrapTokensToGetNodes, AllowBootstrapTokensToPostCSRs, AutoApproveNodeBootstrapTokens,
 * AutoApproveNodeCertificateRotation) and anonymous reads of cluster-info
 * (CreateClusterInfoRBACRules), rendered by init's builders; from 1.37 also the binding that lets
 * kube-apiserver's kubelet client use the kubelet API (AllowAPIServerToAccessKubeletAPI, PR
 * #138957: an upgraded cluster gets it here). No token is created and cluster-info's
 * kubeconfig is left alone: both belong to the cluster, not to its version.
 */
import type { Phase } from '../../engine/phase.js';
import type { UpgradeCtx } from './context.js';
import { clusterApi } from '../cluster/api.js';
import { clusterInfoRbac, kubeletApiAdminRbac, nodeBootstrapRbac } from '../cluster/bootstrap-token-render.js';
import { initView } from './state.js';

async function runBootstrapToken(ctx: UpgradeCtx): Promise<void> {
  const view = await initView(ctx, 'bootstrap-token');
  // From 1.29 the first open also makes sure admin.conf's group is bound (kubeadm:cluster-admins).
  const api = await clusterApi(view);
  const kubeletApiAdmin = view.versions.controlPlane.kubeletApiAdminBinding ? [kubeletApiAdminRbac()] : [];
  for (const step of [...nodeBootstrapRbac(), ...kubeletApiAdmin]) {
    view.log.info(step.message);
    for (const obj of step.objects) await api.ensure(obj);
  }
  for (const obj of clusterInfoRbac()) await api.ensure(obj);
}

export const upgradeBootstrapTokenPhase: Phase<UpgradeCtx> = {
  name: 'bootstrap-token',
  summary: 'Configures bootstrap token and cluster-info RBAC rules',
  description: 'Create or update the RBAC rules that let bootstrap tokens join nodes and anonymous users read cluster-info. No token is created.',
  flags: ['kubeconfig'],
  run: runBootstrapToken,
};
