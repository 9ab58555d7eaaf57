import type { NodeObject, PatchNodeOptions } from '../../kube/types.js';

/** kubeadm's PatchNodeTimeout and APICallRetryInterval. */
const PATCH_NODE_TIMEOUT_MS = 2 * 60 * 1000;
const PATCH_NODE_INTERVAL_MS = 500;

/** The kubelet sets this label when it registers; kubeadm waits for it before patching. */
function nodeIsRegistered(node: NodeObject): boolean {
  return node.metadata.labels?.['kubernetes.io/hostname'] !== undefined;
}

export const PATCH_NODE_OPTIONS: PatchNodeOptions = {
  timeoutMs: PATCH_NODE_TIMEOUT_MS,
  intervalMs: PATCH_NODE_INTERVAL_MS,
  ready: nodeIsRegistered,
};
