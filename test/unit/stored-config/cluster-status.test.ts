import { clusterStatusWithout, kubeadmConfigWithout } from '../../../src/stored-config/cluster-status.js';
import { kubeadmConfigMap } from '../../../src/stored-config/render.js';

const status = (...nodes: string[]): string => `apiEndpoints:\n${nodes.map((n, i) => `  ${n}:\n    advertiseAddress: 10.0.0.${i + 1}\n    bindPort: 6443\n`).join('')}apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n`;

test('ClusterStatus without a node; undefined when the node is not listed', () => {
  expect(clusterStatusWithout(status('cp1', 'cp2'), 'cp2')).toBe('apiEndpoints:\n  cp1:\n    advertiseAddress: 10.0.0.1\n    bindPort: 6443\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n');
  expect(clusterStatusWithout(status('cp1'), 'cp9')).toBeUndefined();
});

test('kubeadm-config without a node is computed from the live object: an entry another control plane added meanwhile stays', () => {
  const fallback = kubeadmConfigMap('kind: ClusterConfiguration\n', clusterStatusWithout(status('cp1', 'cp2'), 'cp2'));
  // cp3 joined after this reset read the ConfigMap.
  const live = kubeadmConfigMap('kind: ClusterConfiguration\n', status('cp1', 'cp2', 'cp3'));
  const desired = kubeadmConfigWithout(live, fallback, 'cp2');
  expect(desired.data?.ClusterStatus).toContain('cp3:');
  expect(desired.data?.ClusterStatus).toContain('cp1:');
  expect(desired.data?.ClusterStatus).not.toContain('cp2:');
  // Nothing to remove any more: the live status as it is; no live status: the fallback.
  expect(kubeadmConfigWithout(kubeadmConfigMap('c', status('cp1')), fallback, 'cp2').data?.ClusterStatus).toBe(status('cp1'));
  expect(kubeadmConfigWithout(undefined, fallback, 'cp2')).toBe(fallback);
});
