import type { NodeRegistration, Taint as ConfigTaint } from '../../config/types.js';
import type { Logger } from '../../log/events.js';
import type { KubeApi, NodeMutation, PatchNodeOptions, Taint } from '../../kube/types.js';
import type { VersionProfile } from '../../versions/table-types.js';
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { clusterApi } from './api.js';
import { PATCH_NODE_OPTIONS } from './node-patch.js';

/**
 * mark-control-plane: the control-plane labels (value "") and taints on this node's Node
 * object, patched once the kubelet has registered it. Existing taints are kept. Idempotent: a
 * node that already carries them is not patched. Shared with join (control-plane-join).
 */

/** "key:Effect" or "key=value:Effect" (the version table's and kubectl's notation). */
export function parseTaint(spec: string): Taint {
  const colon = spec.lastIndexOf(':');
  const keyValue = spec.slice(0, colon);
  const effect = spec.slice(colon + 1);
  const eq = keyValue.indexOf('=');
  return eq < 0 ? { key: keyValue, effect } : { key: keyValue.slice(0, eq), value: keyValue.slice(eq + 1), effect };
}

/** v1.Taint.ToString. */
export function taintToString(t: Taint): string {
  return t.value ? `${t.key}=${t.value}:${t.effect}` : `${t.key}:${t.effect}`;
}

/** nodeRegistration.taints: unset → the minor's control-plane default; [] → none. */
export function controlPlaneTaints(configured: readonly ConfigTaint[] | undefined, versions: VersionProfile): Taint[] {
  if (configured === undefined) return versions.controlPlane.markTaints.map(parseTaint);
  return configured.map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect }));
}

function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && (a.value ?? '') === (b.value ?? '') && a.effect === b.effect && (a.timeAdded ?? '') === (b.timeAdded ?? '');
}

/** kubeadm's markControlPlaneNode: ours first, then the node's others; no duplicates. */
export function markControlPlaneMutation(labels: readonly string[], taints: readonly Taint[]): NodeMutation {
  return (node) => {
    for (const l of labels) node.metadata.labels[l] = '';
    const merged = [...taints];
    for (const existing of node.spec.taints ?? []) if (!merged.some((t) => sameTaint(t, existing))) merged.push(existing);
    if (merged.length > 0 || node.spec.taints !== undefined) node.spec.taints = merged;
  };
}

export function markLogLines(nodeName: string, labels: readonly string[], taints: readonly Taint[], style: VersionProfile['controlPlane']['markLogStyle']): string[] {
  const lines = style === 'deprecated-pair'
    ? [`Marking the node ${nodeName} as control-plane by adding the labels "${labels[0] ?? ''}=''" and "${labels[1] ?? ''}='' (deprecated)"`]
    : [`Marking the node ${nodeName} as control-plane by adding the labels: [${labels.join(' ')}]`];
  if (taints.length > 0) lines.push(`Marking the node ${nodeName} as control-plane by adding the taints [${taints.map(taintToString).join(' ')}]`);
  return lines;
}

export interface MarkControlPlaneInput {
  readonly nodeName: string;
  readonly labels: readonly string[];
  readonly taints: readonly Taint[];
  readonly logStyle: VersionProfile['controlPlane']['markLogStyle'];
  readonly patchNode?: PatchNodeOptions;
}

/** What init and a control-plane join both mark: this node's name, the minor's labels, its taints (configured, else the minor's default). */
export function markControlPlaneInput(nodeRegistration: Pick<NodeRegistration, 'name' | 'taints'>, versions: VersionProfile): MarkControlPlaneInput {
  return {
    nodeName: nodeRegistration.name,
    labels: versions.controlPlane.markLabels,
    taints: controlPlaneTaints(nodeRegistration.taints, versions),
    logStyle: versions.controlPlane.markLogStyle,
  };
}

export async function markControlPlane(api: KubeApi, input: MarkControlPlaneInput, log: Pick<Logger, 'info'>): Promise<'patched' | 'unchanged'> {
  for (const line of markLogLines(input.nodeName, input.labels, input.taints, input.logStyle)) log.info(line, { prefix: 'mark-control-plane' });
  return api.patchNode(input.nodeName, markControlPlaneMutation(input.labels, input.taints), input.patchNode ?? PATCH_NODE_OPTIONS);
}

export const markControlPlanePhase: Phase<InitCtx> = {
  name: 'mark-control-plane',
  aliases: ['mark-master'],
  summary: 'Mark a node as a control-plane',
  description: 'Mark this node as a control-plane node: add the control-plane labels and the taints of nodeRegistration.taints '
    + '(by default the NoSchedule control-plane taint) to its Node object.',
  example: '  # Applies control-plane label and taint to the current node, functionally equivalent to what executed by tsadm init.\n  tsadm init phase mark-control-plane --config config.yaml\n\n  # Applies control-plane label and taint to a specific node\n  tsadm init phase mark-control-plane --node-name myNode',
  flags: ['config', 'kubeconfig', 'node-name'],
  async run(ctx) {
    const api = await clusterApi(ctx);
    await markControlPlane(api, markControlPlaneInput(ctx.cfg.init.nodeRegistration, ctx.versions), ctx.log);
  },
};
