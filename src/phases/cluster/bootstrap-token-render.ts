import { NODE_BOOTSTRAP_TOKEN_GROUP } from '../../constants.js';
import type { ConfigMapObject, KubeObject } from '../../kube/types.js';
import { clusterRole, clusterRoleBinding, getNamed, group, role, roleBinding, user } from './rbac.js';
import { NODES_GROUP } from './upload-config-render.js';

/** Pure builders of the bootstrap-token phase's objects (docs/kubeadm-reference.md §6.4, observed 1.20 dry-run). */
export const CLUSTER_INFO_CM = 'cluster-info';
export const KUBE_PUBLIC = 'kube-public';
const CLUSTER_INFO_RBAC = 'kubeadm:bootstrap-signer-clusterinfo';

export interface RbacStep {
  /** The line kubeadm prints before creating the objects. */
  readonly message: string;
  readonly objects: readonly KubeObject[];
}

/** The node-bootstrap RBAC, in kubeadm's order, each with its log line. */
export function nodeBootstrapRbac(): RbacStep[] {
  const bootstrappers = [group(NODE_BOOTSTRAP_TOKEN_GROUP)];
  return [
    {
      message: 'configured RBAC rules to allow Node Bootstrap tokens to get nodes',
      objects: [
        clusterRole('kubeadm:get-nodes', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]),
        clusterRoleBinding('kubeadm:get-nodes', 'kubeadm:get-nodes', bootstrappers),
      ],
    },
    {
      message: 'configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials',
      objects: [clusterRoleBinding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', bootstrappers)],
    },
    {
      message: 'configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token',
      objects: [clusterRoleBinding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', bootstrappers)],
    },
    {
      message: 'configured RBAC rules to allow certificate rotation for all node client certificates in the cluster',
      objects: [clusterRoleBinding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [group(NODES_GROUP)])],
    },
  ];
}

/**
 * The kubeconfig in cluster-info, byte for byte as kubeadm's clientcmd.Write prints a config
 * holding one unnamed cluster (joining nodes verify the JWS over exactly these bytes).
 */
export function clusterInfoKubeconfig(server: string, caPem: Buffer | string): string {
  const caData = Buffer.from(caPem).toString('base64');
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${caData}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

/** Only the `kubeconfig` key: the bootstrapsigner adds (and keeps) the jws-kubeconfig-<id> keys. */
export function clusterInfoConfigMap(kubeconfig: string): ConfigMapObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO_CM, namespace: KUBE_PUBLIC }, data: { kubeconfig } };
}

/** Anonymous users (joining nodes before trust) may read cluster-info and nothing else. */
export function clusterInfoRbac(): KubeObject[] {
  return [
    role(CLUSTER_INFO_RBAC, KUBE_PUBLIC, [getNamed('configmaps', [CLUSTER_INFO_CM])]),
    roleBinding(CLUSTER_INFO_RBAC, KUBE_PUBLIC, CLUSTER_INFO_RBAC, [user('system:anonymous')]),
  ];
}
