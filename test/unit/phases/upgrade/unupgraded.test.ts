import { unupgradedInstances } from '../../../../src/phases/upgrade/unupgraded.js';

const pod = (node: string, image: string, container = 'kube-apiserver') => ({
  metadata: { name: `kube-apiserver-${node}` },
  spec: { nodeName: node, containers: [{ name: container, image }] },
});

/** kubeadm's UnupgradedControlPlaneInstances (phases/upgrade/postupgrade.go, 1.28+) and its test cases. */
describe('unupgradedInstances', () => {
  test('every instance on this node\'s image: none left', () => {
    expect(unupgradedInstances([pod('cp1', 'k8s/kube-apiserver:v1.28.1'), pod('cp2', 'k8s/kube-apiserver:v1.28.1')], 'cp1')).toEqual([]);
  });

  test('instances on another image are listed, sorted', () => {
    const pods = [pod('cp1', 'k8s/kube-apiserver:v1.28.1'), pod('cp3', 'k8s/kube-apiserver:v1.27.5'), pod('cp2', 'k8s/kube-apiserver:v1.27.5')];
    expect(unupgradedInstances(pods, 'cp1')).toEqual(['cp2', 'cp3']);
    // Asked from a node still on the old image, the upgraded one is the odd one out (kubeadm compares images, not versions).
    expect(unupgradedInstances(pods, 'cp2')).toEqual(['cp1']);
  });

  test('no Pods, no container of that name, or no Pod on this node: errors', () => {
    expect(() => unupgradedInstances([], 'cp1')).toThrow(/cannot find kube-apiserver Pod by label selector/);
    expect(() => unupgradedInstances([pod('cp1', 'x', 'other')], 'cp1')).toThrow(/cannot find container by name "kube-apiserver"/);
    expect(() => unupgradedInstances([pod('cp2', 'x')], 'cp1')).toThrow(/this node \(cp1\)/);
  });
});
