import type { ConfigMapObject } from '../../../../src/kube/types.js';
import { clusterInfoConfigMap, clusterInfoKubeconfig, clusterInfoRbac, clusterInfoSignatures, kubeletApiAdminRbac, nodeBootstrapRbac } from '../../../../src/phases/cluster/bootstrap-token-render.js';
import { verifyDetachedSignature } from '../../../../src/token/jws.js';
import { clusterAdminsBinding } from '../../../../src/phases/cluster/api.js';
import { findObject, kubeadmObjects, normalize } from '../../../helpers/kubeadm-fixtures.js';
const fixture = kubeadmObjects('kubeadm-1.20-cluster-objects.yaml');

describe('bootstrap-token objects equal kubeadm v1.20.2\'s', () => {
  test('node bootstrap RBAC, in order, with kubeadm\'s messages', () => {
    const steps = nodeBootstrapRbac();
    expect(steps.flatMap((s) => s.objects).map(normalize)).toEqual([
      findObject(fixture, 'ClusterRole', 'kubeadm:get-nodes'),
      findObject(fixture, 'ClusterRoleBinding', 'kubeadm:get-nodes'),
      findObject(fixture, 'ClusterRoleBinding', 'kubeadm:kubelet-bootstrap'),
      findObject(fixture, 'ClusterRoleBinding', 'kubeadm:node-autoapprove-bootstrap'),
      findObject(fixture, 'ClusterRoleBinding', 'kubeadm:node-autoapprove-certificate-rotation'),
    ].map(normalize));
    expect(steps.map((s) => s.message)).toEqual([
      'configured RBAC rules to allow Node Bootstrap tokens to get nodes',
      'configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials',
      'configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token',
      'configured RBAC rules to allow certificate rotation for all node client certificates in the cluster',
    ]);
  });

  test('cluster-info kubeconfig text is byte-identical', () => {
    const live = findObject(fixture, 'ConfigMap', 'cluster-info') as ConfigMapObject;
    const caData = /certificate-authority-data: (\S+)/.exec(live.data?.kubeconfig ?? '')?.[1] ?? '';
    const ours = clusterInfoConfigMap(clusterInfoKubeconfig('https://cp.example.com:6443', Buffer.from(caData, 'base64')));
    expect(ours.data?.kubeconfig).toBe(live.data?.kubeconfig);
    expect(normalize(ours)).toEqual(normalize(live));
    expect(clusterInfoRbac().map(normalize)).toEqual([
      normalize(findObject(fixture, 'Role', 'kubeadm:bootstrap-signer-clusterinfo')),
      normalize(findObject(fixture, 'RoleBinding', 'kubeadm:bootstrap-signer-clusterinfo')),
    ]);
  });

  test('cluster-info is signed at once for every token with the signing usage, as the bootstrapsigner would sign it', async () => {
    const kubeconfig = clusterInfoKubeconfig('https://cp.example.com:6443', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const token = (t: string, usages: string[]) => ({ token: t, usages, groups: [], description: '', ttlMs: 86_400_000 });
    const sigs = await clusterInfoSignatures(kubeconfig, [
      token('abcdef.0123456789abcdef', ['signing', 'authentication']),
      token('zyxwvu.fedcba9876543210', ['authentication']),
      token('qwerty.0000000000000000', ['signing']),
    ]);
    expect(Object.keys(sigs).sort()).toEqual(['jws-kubeconfig-abcdef', 'jws-kubeconfig-qwerty']);
    expect(await verifyDetachedSignature(sigs['jws-kubeconfig-abcdef'], kubeconfig, 'abcdef', '0123456789abcdef')).toBe(true);
    expect(await verifyDetachedSignature(sigs['jws-kubeconfig-qwerty'], kubeconfig, 'qwerty', '0000000000000000')).toBe(true);
    expect(await verifyDetachedSignature(sigs['jws-kubeconfig-abcdef'], `${kubeconfig}x`, 'abcdef', '0123456789abcdef')).toBe(false);
    const cm = clusterInfoConfigMap(kubeconfig, sigs);
    expect(cm.data).toEqual({ kubeconfig, ...sigs });
  });

  test('kubeadm:cluster-admins binding (1.29+)', () => {
    expect(clusterAdminsBinding()).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kubeadm:cluster-admins' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', name: 'kubeadm:cluster-admins', apiGroup: 'rbac.authorization.k8s.io' }],
    });
  });
});

describe('kubeadm:apiserver-kubelet-client (kubeadm 1.37, PR #138957)', () => {
  test('binds ClusterRole system:kubelet-api-admin to the User kube-apiserver-kubelet-client (the CN of apiserver-kubelet-client.crt)', () => {
    // Name, role and subject as Cluster API's workload_cluster_rbac.go and the issue-26 facts (test/fixtures/versions/1.37.yaml on issue-26-facts) give them.
    expect(kubeletApiAdminRbac().objects).toEqual([{
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kubeadm:apiserver-kubelet-client' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'kube-apiserver-kubelet-client' }],
    }]);
  });
});
