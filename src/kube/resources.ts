import { TsadmError } from '../errors.js';
import type { KindName } from './types.js';

/** Where each kind lives in the REST API (what discovery would tell us; fixed for these kinds). */
interface ResourceInfo {
  readonly group: string; // "" = core
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const RESOURCES: Readonly<Record<KindName, ResourceInfo>> = {
  ConfigMap: { group: '', version: 'v1', plural: 'configmaps', namespaced: true },
  Secret: { group: '', version: 'v1', plural: 'secrets', namespaced: true },
  ServiceAccount: { group: '', version: 'v1', plural: 'serviceaccounts', namespaced: true },
  Service: { group: '', version: 'v1', plural: 'services', namespaced: true },
  Node: { group: '', version: 'v1', plural: 'nodes', namespaced: false },
  Pod: { group: '', version: 'v1', plural: 'pods', namespaced: true },
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', namespaced: true },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', namespaced: true },
  ClusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', namespaced: false },
  Deployment: { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true },
  DaemonSet: { group: 'apps', version: 'v1', plural: 'daemonsets', namespaced: true },
  Job: { group: 'batch', version: 'v1', plural: 'jobs', namespaced: true },
  CertificateSigningRequest: { group: 'certificates.k8s.io', version: 'v1', plural: 'certificatesigningrequests', namespaced: false },
  Lease: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespaced: true },
};

export function resourceInfo(kind: string): ResourceInfo & { readonly kind: KindName } {
  const info = (RESOURCES as Record<string, ResourceInfo>)[kind];
  if (!info) throw new TsadmError('E_INTERNAL', `tsadm does not know the API resource of kind "${kind}"`);
  return { ...info, kind: kind as KindName };
}

/** "core/v1", "apps/v1": how kubeadm's dry-run names the API group. */
export function groupVersionLabel(kind: string): string {
  const r = resourceInfo(kind);
  return `${r.group || 'core'}/${r.version}`;
}

export function pluralOf(kind: string): string {
  return resourceInfo(kind).plural;
}

/** The collection path (for POST/LIST), or the object path when a name is given. */
export function resourcePath(kind: string, namespace: string | undefined, name?: string): string {
  const r = resourceInfo(kind);
  const root = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  let p = root;
  if (r.namespaced) {
    if (!namespace) throw new TsadmError('E_INTERNAL', `a namespace is required for ${kind} "${name ?? ''}"`);
    p += `/namespaces/${encodeURIComponent(namespace)}`;
  }
  p += `/${r.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  return p;
}

/** "ConfigMap kube-system/kubeadm-config", for messages. */
export function describeObject(kind: string, name: string, namespace?: string): string {
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}
