import { mergePatch } from '../../../../src/kube/compare.js';
import type { MutableNode } from '../../../../src/kube/types.js';
import { controlPlaneTaints, markControlPlaneInput, markControlPlaneMutation, markLogLines, parseTaint, taintToString } from '../../../../src/phases/cluster/mark-control-plane.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';

const v120 = VERSION_TABLE['1.20'];

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

  test('what init and a control-plane join mark: the node, the minor\'s labels and log style, its taints', () => {
    const v130 = VERSION_TABLE['1.30'];
    expect(markControlPlaneInput({ name: 'cp2', taints: undefined }, v130)).toEqual({
      nodeName: 'cp2',
      labels: v130.controlPlane.markLabels,
      taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
      logStyle: v130.controlPlane.markLogStyle,
    });
    expect(markControlPlaneInput({ name: 'cp3', taints: [] }, v120).taints).toEqual([]);
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
