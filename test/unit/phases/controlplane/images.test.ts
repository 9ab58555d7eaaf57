import { resolveInitConfig } from '../../../../src/config/load.js';
import { controlPlaneImages, skippedAddons } from '../../../../src/phases/controlplane/images.js';
import { profileFor } from '../../../../src/versions/resolve.js';

const ENV = { hostname: 'node', defaultAdvertiseAddress: '10.0.0.1', now: new Date(0) };
const cluster = (flags: Record<string, string>) => resolveInitConfig({ flags, env: ENV }).cluster;
const fromConfig = (yaml: string) => resolveInitConfig({ configText: yaml, flags: {}, env: ENV }).cluster;

describe('controlPlaneImages (kubeadm images.GetControlPlaneImages)', () => {
  test('1.20 default and custom registry: kubeadm v1.20.2\'s output', () => {
    const v = profileFor('v1.20.2');
    expect(controlPlaneImages(cluster({ 'kubernetes-version': 'v1.20.2' }), v)).toEqual([
      'k8s.gcr.io/kube-apiserver:v1.20.2', 'k8s.gcr.io/kube-controller-manager:v1.20.2', 'k8s.gcr.io/kube-scheduler:v1.20.2',
      'k8s.gcr.io/kube-proxy:v1.20.2', 'k8s.gcr.io/pause:3.2', 'k8s.gcr.io/etcd:3.4.13-0', 'k8s.gcr.io/coredns:1.7.0',
    ]);
    const custom = controlPlaneImages(cluster({ 'kubernetes-version': 'v1.20.2', 'image-repository': 'my.reg/x' }), v);
    expect(custom[6]).toBe('my.reg/x/coredns:1.7.0');
  });

  test('modern default registry puts CoreDNS under coredns/coredns; a custom one does not', () => {
    const v = profileFor('v1.26.15');
    expect(controlPlaneImages(cluster({ 'kubernetes-version': 'v1.26.15' }), v)[6]).toBe('registry.k8s.io/coredns/coredns:v1.9.3');
    expect(controlPlaneImages(cluster({ 'kubernetes-version': 'v1.26.15', 'image-repository': 'my.reg' }), v)[6]).toBe('my.reg/coredns:v1.9.3');
  });

  test('1.28 keeps pause, etcd, CoreDNS; 1.29 lists CoreDNS, pause, etcd (kubeadm v1.28.0 / v1.29.0 output)', () => {
    const names = (ver: string) => controlPlaneImages(cluster({ 'kubernetes-version': ver }), profileFor(ver)).map((i) => i.split('/').pop()?.split(':')[0]);
    expect(names('v1.28.15')).toEqual(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'pause', 'etcd', 'coredns']);
    expect(names('v1.29.15')).toEqual(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'coredns', 'pause', 'etcd']);
  });

  test('external etcd has no etcd image; etcd overrides are used', () => {
    const ext = fromConfig('apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\netcd:\n  external:\n    endpoints: ["https://10.0.0.9:2379"]\n');
    expect(controlPlaneImages(ext, profileFor('v1.20.2')).some((i) => i.includes('/etcd:'))).toBe(false);
    const own = fromConfig('apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\netcd:\n  local:\n    imageRepository: other.reg\n    imageTag: 3.4.13-9\n');
    expect(controlPlaneImages(own, profileFor('v1.20.2'))).toContain('other.reg/etcd:3.4.13-9');
  });

  test('1.31: disabled addons and skipped addon phases have no image', () => {
    const v4 = fromConfig('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.31.13\nproxy:\n  disabled: true\ndns:\n  disabled: true\n');
    const list = controlPlaneImages(v4, profileFor('v1.31.13'));
    expect(list.some((i) => i.includes('kube-proxy') || i.includes('coredns'))).toBe(false);
    const c = cluster({ 'kubernetes-version': 'v1.31.13' });
    const skipped = controlPlaneImages(c, profileFor('v1.31.13'), skippedAddons(['addon/coredns']));
    expect(skipped.some((i) => i.includes('coredns'))).toBe(false);
    expect(skipped.some((i) => i.includes('kube-proxy'))).toBe(true);
    expect(skippedAddons(['addon']).kubeProxy).toBe(true);
  });

  test('1.30: skipped addon phases still have their images (skipping came with PR #114534 in 1.31)', () => {
    const list = controlPlaneImages(cluster({ 'kubernetes-version': 'v1.30.14' }), profileFor('v1.30.14'), skippedAddons(['addon/coredns', 'addon/kube-proxy']));
    expect(list.some((i) => i.includes('coredns'))).toBe(true);
    expect(list.some((i) => i.includes('kube-proxy'))).toBe(true);
  });
});
