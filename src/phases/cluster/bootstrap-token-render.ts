import { CLUSTER_INFO_CM, KUBE_PUBLIC, NODE_BOOTSTRAP_TOKEN_GROUP } from '../../constants.js';
import type { BootstrapToken } from '../../config/types.js';
import { parseToken } from '../../token/bootstrap-token.js';
import { JWS_KEY_PREFIX, computeDetachedSignature } from '../../token/jws.js';
import type { ConfigMapObject, KubeObject } from '../../kube/types.js';
import { clusterRole, clusterRoleBinding, getNamed, group, role, roleBinding, user } from '../../kube/rbac.js';
import { NODES_GROUP } from '../../stored-config/render.js';

/** Pure builders of the bootstrap-token phase's objects (docs/kubeadm-reference.md §6.4, observed 1.20 dry-run). */
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

/** The ClusterRoleBinding that lets kube-apiserver's kubelet client use the kubelet API (1.37, PR #138957). */
const KUBELET_API_ADMIN_BINDING = 'kubeadm:apiserver-kubelet-client';
/** The CN of apiserver-kubelet-client.crt: the user the kubelets see kube-apiserver as. */
const APISERVER_KUBELET_CLIENT_USER = 'kube-apiserver-kubelet-client';

/**
 * kubeadm's AllowAPIServerToAccessKubeletAPI (phases/bootstraptoken/node, 1.37, PR #138957; also
 * in the patch releases 1.33.12, 1.34.8, 1.35.5 and 1.36.1): the built-in ClusterRole
 * system:kubelet-api-admin bound to the user kube-apiserver-kubelet-client, created or updated by
 * init's bootstrap-token phase and by `upgrade apply`'s. Name and subject as Cluster API's
 * workload_cluster_rbac.go (KubeletAPIAdminClusterRoleBindingName,
 * APIServerKubeletClientCertCommonName) and the Kamaji/EKS Anywhere reports of that change name them.
 */
export function kubeletApiAdminRbac(): RbacStep {
  // The wording is tsadm's: whether kubeadm prints a line for this step is not known.
  return {
    message: 'configured RBAC rules to allow the API server kubelet client to access the kubelet API',
    objects: [clusterRoleBinding(KUBELET_API_ADMIN_BINDING, 'system:kubelet-api-admin', [user(APISERVER_KUBELET_CLIENT_USER)])],
  };
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

/**
 * The `kubeconfig` key and SIGNATURES (jws-kubeconfig-<id> keys, see clusterInfoSignatures).
 * kubeadm writes the kubeconfig alone and leaves the signatures to the controller-manager's
 * bootstrapsigner, which keeps them current from then on.
 */
export function clusterInfoConfigMap(kubeconfig: string, signatures: Readonly<Record<string, string>> = {}): ConfigMapObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO_CM, namespace: KUBE_PUBLIC }, data: { kubeconfig, ...signatures } };
}

/**
 * The jws-kubeconfig-<id> keys the bootstrapsigner would add for TOKENS: one per token whose
 * usages include signing, the same detached HS256 JWS (so the bootstrapsigner, when it starts,
 * finds them current and writes nothing). tsadm writes them at init (a difference from kubeadm):
 * a kube-controller-manager v1.20 signs nothing for ~15 s after it starts (its nodeipam
 * controller waits 10 s before its first node list, and the shared informers start only after
 * every controller), and joins would wait that long in discovery (decision 28; BENCHMARKS.md).
 */
export async function clusterInfoSignatures(kubeconfig: string, tokens: readonly BootstrapToken[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const bt of tokens) {
    if (!bt.usages.includes('signing')) continue;
    const { id, secret } = parseToken(bt.token);
    out[`${JWS_KEY_PREFIX}${id}`] = await computeDetachedSignature(kubeconfig, id, secret);
  }
  return out;
}

/** Anonymous users (joining nodes before trust) may read cluster-info and nothing else. */
export function clusterInfoRbac(): KubeObject[] {
  return [
    role(CLUSTER_INFO_RBAC, KUBE_PUBLIC, [getNamed('configmaps', [CLUSTER_INFO_CM])]),
    roleBinding(CLUSTER_INFO_RBAC, KUBE_PUBLIC, CLUSTER_INFO_RBAC, [user('system:anonymous')]),
  ];
}
