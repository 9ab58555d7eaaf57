import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { serializeClusterConfiguration } from '../../../../src/config/print.js';
import { mergePatch } from '../../../../src/kube/compare.js';
import type { ConfigMapObject, MutableNode } from '../../../../src/kube/types.js';
import { clusterInfoConfigMap, clusterInfoKubeconfig, clusterInfoRbac, nodeBootstrapRbac } from '../../../../src/phases/cluster/bootstrap-token-render.js';
import { clusterAdminsBinding } from '../../../../src/phases/cluster/api.js';
import { controlPlaneTaints, markControlPlaneMutation, markLogLines, parseTaint, taintToString } from '../../../../src/phases/cluster/mark-control-plane.js';
import { clusterStatusYaml, kubeadmConfigMap, kubeadmConfigRbac, kubeletConfigMap, kubeletConfigRbac } from '../../../../src/phases/cluster/upload-config-render.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';
import { findObject, fixtureText, kubeadmObjects, normalize } from '../../../helpers/kubeadm-fixtures.js';

const v120 = VERSION_TABLE['1.20'];
const fixture = kubeadmObjects('kubeadm-1.20-cluster-objects.yaml');

describe('upload-config objects equal kubeadm v1.20.2\'s', () => {
  const live = findObject(fixture, 'ConfigMap', 'kubeadm-config') as ConfigMapObject;

  test('ClusterStatus text is byte-identical', () => {
    expect(clusterStatusYaml(undefined, 'cp1', { advertiseAddress: '192.168.10.11', bindPort: 6443 }, 'kubeadm.k8s.io/v1beta2')).toBe(live.data?.ClusterStatus);
  });

  test('ClusterStatus keeps the other control-plane nodes and refreshes this one', () => {
    const existing = 'apiEndpoints:\n  cp0:\n    advertiseAddress: 10.0.0.1\n    bindPort: 6443\n  cp1:\n    advertiseAddress: 1.1.1.1\n    bindPort: 1\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n';
    expect(clusterStatusYaml(existing, 'cp1', { advertiseAddress: '192.168.10.11', bindPort: 6443 }, 'kubeadm.k8s.io/v1beta2')).toBe(
      'apiEndpoints:\n  cp0:\n    advertiseAddress: 10.0.0.1\n    bindPort: 6443\n  cp1:\n    advertiseAddress: 192.168.10.11\n    bindPort: 6443\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n',
    );
  });

  test('the kubeadm-config ConfigMap (with src/config\'s ClusterConfiguration serializer) is identical', () => {
    const cfg = fixtureInitConfig({ cluster: { controlPlaneEndpoint: 'cp.example.com:6443', networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '10.244.0.0/16', dnsDomain: 'cluster.local' } } });
    const ours = kubeadmConfigMap(
      serializeClusterConfiguration(cfg.cluster, v120.configApiVersion),
      clusterStatusYaml(undefined, 'cp1', cfg.init.localAPIEndpoint, v120.configApiVersion),
    );
    expect(normalize(ours)).toEqual(normalize(live));
  });

  test('kubeadm-config RBAC', () => {
    expect(kubeadmConfigRbac().map(normalize)).toEqual([
      normalize(findObject(fixture, 'Role', 'kubeadm:nodes-kubeadm-config')),
      normalize(findObject(fixture, 'RoleBinding', 'kubeadm:nodes-kubeadm-config')),
    ]);
  });

  test('kubelet ConfigMap, hash annotation included (same hash as kubeadm computed)', () => {
    const kubeletYaml = fixtureText('kubeadm-1.20-kubelet-config.yaml');
    expect(normalize(kubeletConfigMap(v120, kubeletYaml, true))).toEqual(normalize(findObject(fixture, 'ConfigMap', 'kubelet-config-1.20')));
    expect(kubeletConfigMap(v120, kubeletYaml, false).metadata.annotations).toBeUndefined();
    expect(kubeletConfigRbac(v120).map(normalize)).toEqual([
      normalize(findObject(fixture, 'Role', 'kubeadm:kubelet-config-1.20')),
      normalize(findObject(fixture, 'RoleBinding', 'kubeadm:kubelet-config-1.20')),
    ]);
  });

  test('modern minors use the unversioned kubelet-config', () => {
    const v = VERSION_TABLE['1.30'];
    expect(kubeletConfigMap(v, 'x', true).metadata.name).toBe('kubelet-config');
    expect(kubeletConfigRbac(v).map((o) => o.metadata.name)).toEqual(['kubeadm:kubelet-config', 'kubeadm:kubelet-config']);
  });
});

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

describe('mark-control-plane', () => {
  const emptyNode = (): MutableNode => ({ metadata: { name: 'cp1', labels: { 'kubernetes.io/hostname': 'cp1' }, annotations: {} }, spec: {} });

  test('the patch kubeadm v1.20.2 sends (observed dry-run)', () => {
    const before = emptyNode();
    const after = JSON.parse(JSON.stringify(before)) as MutableNode;
    markControlPlaneMutation(v120.controlPlane.markLabels, controlPlaneTaints(undefined, v120))(after);
    expect(mergePatch(before, after)).toEqual(JSON.parse('{"metadata":{"labels":{"node-role.kubernetes.io/control-plane":"","node-role.kubernetes.io/master":""}},"spec":{"taints":[{"effect":"NoSchedule","key":"node-role.kubernetes.io/master"}]}}'));
  });

  test('existing taints are kept after ours; a second mark changes nothing', () => {
    const node = emptyNode();
    node.spec.taints = [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }];
    const mark = markControlPlaneMutation(v120.controlPlane.markLabels, controlPlaneTaints(undefined, v120));
    mark(node);
    expect(node.spec.taints).toEqual([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const again = JSON.parse(JSON.stringify(node)) as MutableNode;
    mark(again);
    expect(mergePatch(node, again)).toEqual({});
  });

  test('taints: unset → the minor\'s default; [] → none; explicit → as given', () => {
    expect(controlPlaneTaints(undefined, VERSION_TABLE['1.24']).map(taintToString)).toEqual(['node-role.kubernetes.io/master:NoSchedule', 'node-role.kubernetes.io/control-plane:NoSchedule']);
    expect(controlPlaneTaints(undefined, VERSION_TABLE['1.30']).map(taintToString)).toEqual(['node-role.kubernetes.io/control-plane:NoSchedule']);
    expect(controlPlaneTaints([], v120)).toEqual([]);
    expect(controlPlaneTaints([{ key: 'a', value: 'b', effect: 'NoExecute' }], v120).map(taintToString)).toEqual(['a=b:NoExecute']);
    expect(parseTaint('k=v:PreferNoSchedule')).toEqual({ key: 'k', value: 'v', effect: 'PreferNoSchedule' });
  });

  test('[] taints: no spec.taints written at all', () => {
    const node = emptyNode();
    markControlPlaneMutation(v120.controlPlane.markLabels, [])(node);
    expect(node.spec.taints).toBeUndefined();
  });

  test('log lines: 1.20 exactly as kubeadm printed them; later minors list the labels', () => {
    expect(markLogLines('cp1', v120.controlPlane.markLabels, controlPlaneTaints(undefined, v120), v120.controlPlane.markLogStyle)).toEqual([
      'Marking the node cp1 as control-plane by adding the labels "node-role.kubernetes.io/master=\'\'" and "node-role.kubernetes.io/control-plane=\'\' (deprecated)"',
      'Marking the node cp1 as control-plane by adding the taints [node-role.kubernetes.io/master:NoSchedule]',
    ]);
    const v = VERSION_TABLE['1.33'];
    expect(markLogLines('cp1', v.controlPlane.markLabels, [], v.controlPlane.markLogStyle)).toEqual([
      'Marking the node cp1 as control-plane by adding the labels: [node-role.kubernetes.io/control-plane node.kubernetes.io/exclude-from-external-load-balancers]',
    ]);
  });
});
