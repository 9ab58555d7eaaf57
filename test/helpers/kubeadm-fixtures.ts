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

/**
 * A Deployment or DaemonSet (rendered or captured) as the tests read it. Only the fields tests look
 * at are typed; an assertion on a missing one fails as any other mismatch would.
 */
export interface WorkloadView extends KubeObject {
  readonly spec: {
    readonly template: {
      readonly spec: {
        readonly containers: readonly [ContainerView, ...ContainerView[]];
        readonly affinity: { readonly podAntiAffinity: { readonly preferredDuringSchedulingIgnoredDuringExecution: readonly unknown[] } };
        readonly tolerations: readonly { readonly key: string }[];
      };
    };
  };
}

interface ContainerView {
  readonly env: readonly { readonly name: string }[];
  readonly ports: readonly { readonly name: string }[];
  readonly securityContext: { readonly capabilities: { readonly drop: readonly string[] } };
  readonly livenessProbe: { readonly httpGet: { readonly port: string | number } };
  readonly readinessProbe: { readonly httpGet: { readonly port: string | number } };
}

/** The first container of a Deployment or DaemonSet. */
export function firstContainer(workload: KubeObject): ContainerView {
  return (workload as WorkloadView).spec.template.spec.containers[0];
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
