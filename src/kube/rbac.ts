import type { PolicyRule, RoleBindingObject, RoleObject, Subject } from './types.js';

/** Pure builders for the RBAC objects kubeadm creates (apiGroup written out, as the server stores it). */
const RBAC_API = 'rbac.authorization.k8s.io/v1';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function group(name: string): Subject {
  return { kind: 'Group', name, apiGroup: RBAC_GROUP };
}

export function user(name: string): Subject {
  return { kind: 'User', name, apiGroup: RBAC_GROUP };
}

export function serviceAccount(name: string, namespace: string): Subject {
  return { kind: 'ServiceAccount', name, namespace };
}

/** "get" on named objects of one core resource: every kubeadm Role has this shape. */
export function getNamed(resource: string, names: readonly string[]): PolicyRule {
  return { apiGroups: [''], resources: [resource], verbs: ['get'], resourceNames: [...names] };
}

export function role(name: string, namespace: string, rules: readonly PolicyRule[]): RoleObject {
  return { apiVersion: RBAC_API, kind: 'Role', metadata: { name, namespace }, rules };
}

export function clusterRole(name: string, rules: readonly PolicyRule[]): RoleObject {
  return { apiVersion: RBAC_API, kind: 'ClusterRole', metadata: { name }, rules };
}

export function roleBinding(name: string, namespace: string, roleName: string, subjects: readonly Subject[]): RoleBindingObject {
  return {
    apiVersion: RBAC_API,
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName },
    subjects,
  };
}

export function clusterRoleBinding(name: string, clusterRoleName: string, subjects: readonly Subject[]): RoleBindingObject {
  return {
    apiVersion: RBAC_API,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: clusterRoleName },
    subjects,
  };
}
