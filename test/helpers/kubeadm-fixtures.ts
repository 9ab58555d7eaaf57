import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import type { KubeObject } from '../../src/kube/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Objects captured from the real kubeadm v1.20.2 (`kubeadm init --dry-run`), see the fixture headers. */
export function kubeadmObjects(file: string): KubeObject[] {
  return yaml.loadAll(readFileSync(path.join(here, '../fixtures/kubeadm-dry-run', file), 'utf8')) as KubeObject[];
}

export function fixtureText(file: string): string {
  return readFileSync(path.join(here, '../fixtures/kubeadm-dry-run', file), 'utf8');
}

export function findObject(objs: readonly KubeObject[], kind: string, name: string): KubeObject {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`fixture has no ${kind} ${name}`);
  return o;
}

/**
 * What the API server would store either way: kubeadm's Go objects carry `creationTimestamp:
 * null` and `status: {}` and leave RBAC subjects' apiGroup for the server to default (tsadm
 * writes it explicitly); 1.20's get-nodes objects carry a namespace the server drops.
 */
export function normalize(obj: unknown): unknown {
  const o = JSON.parse(JSON.stringify(obj)) as unknown;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v) as [string, unknown][]) {
        if (k === 'creationTimestamp' && x === null) continue;
        if (k === 'status' && x && typeof x === 'object' && Object.keys(x).length === 0) continue;
        out[k] = walk(x);
      }
      return out;
    }
    return v;
  };
  const n = walk(o) as { kind?: string; metadata: { namespace?: string; resourceVersion?: string }; subjects?: { kind: string; apiGroup?: string }[]; status?: unknown };
  if (n.kind === 'ClusterRole' || n.kind === 'ClusterRoleBinding') delete n.metadata.namespace;
  for (const s of n.subjects ?? []) if (s.kind !== 'ServiceAccount') delete s.apiGroup;
  if (n.kind === 'DaemonSet') delete n.status;
  if (n.kind === 'Service') {
    delete n.metadata.resourceVersion; // kubeadm's "0" placeholder for Update, not stored
    delete n.status;
  }
  return n;
}
