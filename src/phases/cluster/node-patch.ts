import type { NodeObject, PatchNodeOptions } from '../../kube/types.js';

/**
 * kubeadm's PatchNodeTimeout; the retry interval is 100 ms instead of kubeadm's 500 ms
 * (APICallRetryInterval): join waits here for the kubelet to register its Node, and notices it
 * ~50 ms after it does instead of ~250 ms (BENCHMARKS.md), for one small GET per 100 ms.
 */
const PATCH_NODE_TIMEOUT_MS = 2 * 60 * 1000;
const PATCH_NODE_INTERVAL_MS = 100;

/** The kubelet sets this label when it registers; kubeadm waits for it before patching. */
function nodeIsRegistered(node: NodeObject): boolean {
  return node.metadata.labels?.['kubernetes.io/hostname'] !== undefined;
}

export const PATCH_NODE_OPTIONS: PatchNodeOptions = {
  timeoutMs: PATCH_NODE_TIMEOUT_MS,
  intervalMs: PATCH_NODE_INTERVAL_MS,
  ready: nodeIsRegistered,
};
