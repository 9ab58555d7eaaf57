/**
 * `upgrade apply phase post-upgrade`: the Node changes kubeadm makes on upgrade that init of the
 * target version would not (src/versions/table.ts `upgrade` says which minor does which):
 * 1.20 LabelOldControlPlaneNodes, 1.24 RemoveOldControlPlaneLabel + AddNewControlPlaneTaint,
 * 1.25 RemoveOldControlPlaneTaint (the master → control-plane rename, KEP-2067), and the CRI
 * socket annotation of this node (kubeadm's AnnotateCRISocket, with the socket written as the
 * target minor writes it). Each Node is patched only when it changes. Upgrading to 1.35 also
 * removes --pod-infra-container-image from this node's kubeadm-flags.env (kubelet-flags-env.ts).
 */
import type { Phase } from '../../engine/phase.js';
import type { KubeApi, NodeMutation, NodeObject, Taint } from '../../kube/types.js';
import type { PhaseLogger } from '../../log/logger.js';
import type { UpgradeCtx } from './context.js';
import { clusterApi } from '../cluster/api.js';
import { PATCH_NODE_OPTIONS } from '../cluster/node-patch.js';
import { nodeCriSocket } from '../cluster/sources.js';
import { usesNodeLocalCriSocket } from '../kubelet/settings.js';
import { cleanKubeletFlagsEnv } from './kubelet-flags-env.js';
import { clusterView, initView } from './state.js';
import { CRI_SOCKET_ANNOTATION } from '../../constants.js';

const OLD_LABEL = 'node-role.kubernetes.io/master';
const NEW_LABEL = 'node-role.kubernetes.io/control-plane';
const OLD_TAINT: Taint = { key: OLD_LABEL, effect: 'NoSchedule' };
const NEW_TAINT: Taint = { key: NEW_LABEL, effect: 'NoSchedule' };
const PREFIX = 'upgrade/postupgrade';

const hasTaint = (taints: readonly Taint[] | undefined, t: Taint): boolean =>
  (taints ?? []).some((x) => x.key === t.key && (x.value ?? '') === (t.value ?? '') && x.effect === t.effect);

/** Patches every Node with `label` that `needs` the change (the list is read once, each Node re-read by patchNode). */
async function patchNodesWithLabel(api: KubeApi, label: string, needs: (n: NodeObject) => boolean, mutate: NodeMutation): Promise<void> {
  const nodes = await api.list<NodeObject>('Node', undefined, { labelSelector: label });
  for (const n of nodes) {
    if (needs(n)) await api.patchNode(n.metadata.name, mutate, PATCH_NODE_OPTIONS);
  }
}

/** 1.20: nodes that only have the old master label get the control-plane label too. */
async function labelOldControlPlaneNodes(api: KubeApi, log: PhaseLogger): Promise<void> {
  log.info(`Applying label ${NEW_LABEL}='' to Nodes with label ${OLD_LABEL}='' (deprecated)`, { prefix: PREFIX });
  await patchNodesWithLabel(api, `${OLD_LABEL}=`, (n) => n.metadata.labels?.[NEW_LABEL] === undefined, (n) => {
    n.metadata.labels[NEW_LABEL] = '';
  });
}

/** 1.24: the master label goes; control-plane nodes get the new taint next to the old one. */
async function removeOldLabelAddNewTaint(api: KubeApi, log: PhaseLogger): Promise<void> {
  log.info(`Removing the deprecated label ${OLD_LABEL}='' from all control plane Nodes. After this step only the label ${NEW_LABEL}='' will be present on control plane Nodes.`, { prefix: PREFIX });
  await patchNodesWithLabel(api, OLD_LABEL, () => true, (n) => {
    delete n.metadata.labels[OLD_LABEL];
  });
  log.info(`Adding the new taint ${NEW_LABEL}:NoSchedule to all control plane Nodes. After this step both taints ${NEW_LABEL}:NoSchedule and ${OLD_LABEL}:NoSchedule should be present on control plane Nodes.`, { prefix: PREFIX });
  await patchNodesWithLabel(api, `${NEW_LABEL}=`, (n) => !hasTaint(n.spec?.taints, NEW_TAINT), (n) => {
    n.spec.taints = [...(n.spec.taints ?? []), NEW_TAINT];
  });
}

/** 1.25: the master taint goes from control-plane nodes. */
async function removeOldTaint(api: KubeApi, log: PhaseLogger): Promise<void> {
  log.info(`Removing the old taint ${OLD_LABEL}:NoSchedule from all control plane Nodes. After this step only the ${NEW_LABEL}:NoSchedule taint will be present on control plane Nodes.`, { prefix: PREFIX });
  await patchNodesWithLabel(api, `${NEW_LABEL}=`, (n) => hasTaint(n.spec?.taints, OLD_TAINT), (n) => {
    n.spec.taints = (n.spec.taints ?? []).filter((t) => !hasTaint([t], OLD_TAINT));
  });
}

async function runPostUpgrade(ctx: UpgradeCtx): Promise<void> {
  const view = await initView(ctx, PREFIX);
  // A file of this node: done before the cluster's objects, and needs no API server.
  await cleanKubeletFlagsEnv(ctx.host, view.versions, view.log, PREFIX);
  const api = await clusterApi(view);
  const steps = view.versions.upgrade;
  if (steps.labelOldControlPlaneNodes) await labelOldControlPlaneNodes(api, view.log);
  if (steps.removeOldControlPlaneLabel) await removeOldLabelAddNewTaint(api, view.log);
  if (steps.removeOldControlPlaneTaint) await removeOldTaint(api, view.log);

  // AnnotateCRISocket: only for a registered node whose socket is known (a node without the
  // annotation would get a guessed socket); NodeLocalCRISocket keeps it off the Node.
  const { node } = await clusterView(ctx);
  if (node && view.cfg.init.nodeRegistration.criSocket !== '' && !usesNodeLocalCriSocket(view.cfg.cluster, view.versions)) {
    const socket = nodeCriSocket(view);
    await api.patchNode(node.metadata.name, (n) => {
      n.metadata.annotations[CRI_SOCKET_ANNOTATION] = socket;
    }, PATCH_NODE_OPTIONS);
  }
}

export const upgradePostUpgradePhase: Phase<UpgradeCtx> = {
  name: 'post-upgrade',
  summary: 'Run post upgrade tasks',
  description: 'The Node changes of the upgrade that init does not make: the control-plane label and taint migration of the '
    + 'target version and this node\'s CRI socket annotation; upgrading to v1.35 also removes --pod-infra-container-image from '
    + '/var/lib/kubelet/kubeadm-flags.env.',
  flags: ['kubeconfig'],
  run: runPostUpgrade,
};
