/**
 * Brings schema-checked v1beta2/v1beta3/v1beta4 documents to the normalized (v1beta4-like) shape,
 * as kubeadm's conversion functions do: extraArgs maps become sorted argument lists,
 * v1beta2/v1beta3 `discovery.timeout` becomes `timeouts.discovery`, and v1beta2-only fields are
 * checked and dropped. `apiServer.timeoutForControlPlane` is carried as is; defaulting moves it.
 */
import type { KubeadmVersion } from './schema-kubeadm.js';
import { isPlainObject } from '../util/plain-object.js';
import type { Obj } from './schema.js';
import type { NCluster, NInit, NJoin, NReset } from './normalized.js';
import type { Arg } from './types.js';

export interface Findings {
  readonly errors: string[];
  readonly warnings: string[];
}

/** kubeadm's convertToArgs: map entries as {name, value}, sorted by name then value (bytewise, as Go compares strings). */
export function argsFromMap(m: Readonly<Record<string, string>>): Arg[] {
  return Object.entries(m)
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)) || Buffer.compare(Buffer.from(a.value), Buffer.from(b.value)));
}

/** The inverse (kubeadm's convertFromArgs): for duplicate names the last value wins. */
export function argsToMap(args: readonly Arg[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of args) out[a.name] = a.value;
  return out;
}

export function normalizeCluster(doc: Obj, version: KubeadmVersion, f: Findings): NCluster {
  const out = structuredClone(doc);
  delete out.apiVersion;
  delete out.kind;
  if (version === 'v1beta4') return out;
  for (const key of ['apiServer', 'controllerManager', 'scheduler']) convertExtraArgs(out[key]);
  if (isPlainObject(out.etcd)) convertExtraArgs(out.etcd.local);
  if (version === 'v1beta2') {
    if (isPlainObject(out.dns)) {
      const type = out.dns.type;
      // tsadm deploys CoreDNS only (kube-dns left kubeadm in 1.21).
      if (type !== undefined && type !== 'CoreDNS') f.errors.push(`dns.type: unsupported DNS addon "${typeof type === 'string' ? type : JSON.stringify(type)}"; tsadm deploys CoreDNS only`);
      delete out.dns.type;
    }
    if (out.useHyperKubeImage === true) f.warnings.push('useHyperKubeImage is ignored: Kubernetes no longer publishes hyperkube images');
    delete out.useHyperKubeImage;
  }
  return out;
}

export function normalizeInit(doc: Obj, version: KubeadmVersion): NInit {
  const out = structuredClone(doc);
  delete out.apiVersion;
  delete out.kind;
  if (version !== 'v1beta4') convertKubeletExtraArgs(out.nodeRegistration);
  return out;
}

export function normalizeJoin(doc: Obj, version: KubeadmVersion): NJoin {
  const out = structuredClone(doc);
  delete out.apiVersion;
  delete out.kind;
  if (version === 'v1beta4') return out;
  convertKubeletExtraArgs(out.nodeRegistration);
  if (isPlainObject(out.discovery) && typeof out.discovery.timeout === 'string') {
    out.timeouts = { discovery: out.discovery.timeout };
  }
  if (isPlainObject(out.discovery)) delete out.discovery.timeout;
  return out;
}

export function normalizeReset(doc: Obj): NReset {
  const out = structuredClone(doc);
  delete out.apiVersion;
  delete out.kind;
  return out;
}

function convertExtraArgs(component: unknown): void {
  if (isPlainObject(component) && isPlainObject(component.extraArgs)) component.extraArgs = argsFromMap(component.extraArgs as Record<string, string>);
}

function convertKubeletExtraArgs(nodeRegistration: unknown): void {
  if (isPlainObject(nodeRegistration) && isPlainObject(nodeRegistration.kubeletExtraArgs)) {
    nodeRegistration.kubeletExtraArgs = argsFromMap(nodeRegistration.kubeletExtraArgs as Record<string, string>);
  }
}
