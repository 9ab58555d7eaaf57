import { comparableView, isSubset } from '../kube/compare.js';
import type { KubeObject, MutableNode } from '../kube/types.js';
import type { DiffOp, NodeView } from './types.js';
import { isPlainObject } from '../util/plain-object.js';

/**
 * Pure: what an update changes in an existing object, field by field, with tsadm's notion of
 * "the same" (kube/compare.ts: only the fields tsadm sets count; server defaults are ignored;
 * arrays are compared whole). Secret values are shown through `mask`.
 */
export function diffObject(existing: KubeObject, desired: KubeObject, mask: (path: string, v: unknown) => unknown = (_p, v) => v): DiffOp[] {
  const ops: DiffOp[] = [];
  const walk = (want: unknown, have: unknown, path: string): void => {
    if (isSubset(want, have)) return;
    if (isPlainObject(want) && isPlainObject(have)) {
      for (const [k, v] of Object.entries(want)) walk(v, have[k], `${path}/${escape(k)}`);
      return;
    }
    ops.push(have === undefined
      ? { op: 'add', path, to: mask(path, want) }
      : { op: 'replace', path, from: mask(path, have), to: mask(path, want) });
  };
  walk(comparableView(desired), existing, '');
  return ops;
}

/** Pure: the changes of a Node patch (labels, annotations, taints). */
export function diffNode(before: NodeView, after: NodeView): DiffOp[] {
  const ops: DiffOp[] = [];
  for (const field of ['labels', 'annotations'] as const) {
    const b = before[field];
    const a = after[field];
    for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
      const path = `/metadata/${field}/${escape(k)}`;
      if (!(k in a)) ops.push({ op: 'remove', path, from: b[k] });
      else if (!(k in b)) ops.push({ op: 'add', path, to: a[k] });
      else if (a[k] !== b[k]) ops.push({ op: 'replace', path, from: b[k], to: a[k] });
    }
  }
  const key = (t: NodeView['taints'][number]): string => `${t.key}:${t.effect}`;
  const beforeTaints = new Map(before.taints.map((t) => [key(t), t]));
  const afterTaints = new Map(after.taints.map((t) => [key(t), t]));
  for (const [k, t] of afterTaints) if (!beforeTaints.has(k)) ops.push({ op: 'add', path: '/spec/taints/-', to: t });
  for (const [k, t] of beforeTaints) if (!afterTaints.has(k)) ops.push({ op: 'remove', path: '/spec/taints', from: t });
  return ops;
}

export function nodeView(n: MutableNode): NodeView {
  return {
    labels: { ...n.metadata.labels },
    annotations: { ...n.metadata.annotations },
    taints: (n.spec.taints ?? []).map((t) => ({ key: t.key, ...(t.value !== undefined && t.value !== '' ? { value: t.value } : {}), effect: t.effect })),
  };
}

/**
 * Replays a planned Node patch on the live Node: the keys and taints the plan changes are set
 * (or removed) and everything else is left as it is now — the kubelet and the node controller
 * change a Node all the time, so the plan's whole before-state cannot be required.
 */
export function replayNodePatch(node: MutableNode, before: NodeView, after: NodeView): void {
  for (const field of ['labels', 'annotations'] as const) {
    const target = node.metadata[field];
    for (const k of Object.keys(before[field])) if (!(k in after[field])) delete target[k];
    for (const [k, v] of Object.entries(after[field])) if (before[field][k] !== v) target[k] = v;
  }
  const key = (t: { key: string; effect: string }): string => `${t.key}:${t.effect}`;
  const removed = new Set(before.taints.filter((t) => !after.taints.some((a) => key(a) === key(t))).map(key));
  const added = after.taints.filter((t) => !before.taints.some((b) => key(b) === key(t)));
  const live = (node.spec.taints ?? []).filter((t) => !removed.has(key(t)));
  for (const t of added) if (!live.some((l) => key(l) === key(t))) live.push({ ...t });
  if (live.length > 0 || node.spec.taints !== undefined) node.spec.taints = live;
}

/** The values the plan's Node patch relies on, read from the live Node: differences block apply. */
export function nodePatchConflicts(live: NodeView, before: NodeView, after: NodeView): string[] {
  const out: string[] = [];
  for (const field of ['labels', 'annotations'] as const) {
    for (const k of new Set([...Object.keys(before[field]), ...Object.keys(after[field])])) {
      if (before[field][k] === after[field][k]) continue;
      const now = live[field][k];
      if (now !== before[field][k] && now !== after[field][k]) {
        out.push(`${field.slice(0, -1)} ${k} is ${show(now)}, the plan expected ${show(before[field][k])}`);
      }
    }
  }
  return out;
}

function show(v: string | undefined): string {
  return v === undefined ? 'absent' : JSON.stringify(v);
}

function escape(k: string): string {
  return k.replace(/~/g, '~0').replace(/\//g, '~1');
}

