import { endpointsFromClusterStatus, endpointsFromPods } from '../../../src/etcd/endpoints.js';

describe('etcd endpoints of the cluster', () => {
  test('from the etcd pods\' annotation, else from ClusterStatus', () => {
    expect(endpointsFromPods({ items: [
      { metadata: { annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': 'https://10.0.0.1:2379' } } },
      { metadata: { annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': 'https://10.0.0.2:2379' } } },
      { metadata: {} },
    ] })).toEqual(['https://10.0.0.1:2379', 'https://10.0.0.2:2379']);
    expect(endpointsFromClusterStatus('apiEndpoints:\n  cp1:\n    advertiseAddress: 10.0.0.1\n    bindPort: 6443\n  cp2:\n    advertiseAddress: fd00::2\n    bindPort: 6443\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n'))
      .toEqual(['https://10.0.0.1:2379', 'https://[fd00::2]:2379']);
    expect(endpointsFromClusterStatus(undefined)).toEqual([]);
  });
});
