import { imageList } from '../../../../src/phases/controlplane/images.js';
import { VERSION_TABLE } from '../../../../src/versions/table.js';

describe('imageList (kubeadm config images list)', () => {
  test('1.20 default and custom registry: kubeadm v1.20.2\'s output', () => {
    const v = VERSION_TABLE['1.20'];
    expect(imageList('v1.20.2', v, 'k8s.gcr.io')).toEqual([
      'k8s.gcr.io/kube-apiserver:v1.20.2', 'k8s.gcr.io/kube-controller-manager:v1.20.2', 'k8s.gcr.io/kube-scheduler:v1.20.2',
      'k8s.gcr.io/kube-proxy:v1.20.2', 'k8s.gcr.io/pause:3.2', 'k8s.gcr.io/etcd:3.4.13-0', 'k8s.gcr.io/coredns:1.7.0',
    ]);
    expect(imageList('v1.20.2+abc', v, 'my.reg/x')[0]).toBe('my.reg/x/kube-apiserver:v1.20.2_abc');
    expect(imageList('v1.20.2', v, 'my.reg/x')[6]).toBe('my.reg/x/coredns:1.7.0');
  });

  test('modern default registry puts CoreDNS under coredns/coredns; a custom one does not', () => {
    const v = VERSION_TABLE['1.26'];
    expect(imageList('v1.26.15', v, 'registry.k8s.io')[6]).toBe('registry.k8s.io/coredns/coredns:v1.9.3');
    expect(imageList('v1.26.15', v, 'my.reg')[6]).toBe('my.reg/coredns:v1.9.3');
  });
});
