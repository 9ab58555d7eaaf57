import { fixtureInitConfig } from '../../helpers/config-fixture.js';
import { serializeClusterConfiguration } from '../../../src/config/print.js';
import type { ConfigMapObject } from '../../../src/kube/types.js';
import { clusterStatusYaml, kubeadmConfigMap, kubeadmConfigRbac, kubeletConfigMap, kubeletConfigRbac } from '../../../src/stored-config/render.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { findObject, fixtureText, kubeadmObjects, normalize } from '../../helpers/kubeadm-fixtures.js';

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
