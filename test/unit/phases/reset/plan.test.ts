import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanupPlan, mountsUnder, unsafeDirReason, KUBECONFIGS_TO_DELETE } from '../../../../src/phases/reset/plan.js';
import { parseEtcdManifest } from '../../../../src/phases/reset/etcd-manifest.js';
import { clusterStatusWithout } from '../../../../src/stored-config/cluster-status.js';

test('the default plan: kubeadm 1.20\'s directories and files, etcd data when a local etcd exists', () => {
  const plan = cleanupPlan({ certificatesDir: '/etc/kubernetes/pki', etcdDataDir: '/var/lib/etcd', cleanupTmpDir: false, kubeletDirUnmounted: true });
  expect(plan.configDirs).toEqual(['/etc/kubernetes/manifests', '/etc/kubernetes/pki']);
  expect(plan.files).toEqual([
    '/etc/kubernetes/admin.conf', '/etc/kubernetes/super-admin.conf', '/etc/kubernetes/kubelet.conf', '/etc/kubernetes/bootstrap-kubelet.conf',
    '/etc/kubernetes/controller-manager.conf', '/etc/kubernetes/scheduler.conf',
  ]);
  expect(plan.statefulDirs).toEqual(['/var/lib/etcd', '/var/lib/kubelet', '/var/lib/dockershim', '/var/run/kubernetes', '/var/lib/cni']);
  expect(plan.refused).toEqual([]);
  expect(KUBECONFIGS_TO_DELETE).toBe(plan.files);
});

test('no etcd, a kubelet dir with mounts left, --cleanup-tmp-dir', () => {
  const plan = cleanupPlan({ certificatesDir: '/srv/k8s/pki', cleanupTmpDir: true, kubeletDirUnmounted: false });
  expect(plan.configDirs).toEqual(['/etc/kubernetes/manifests', '/srv/k8s/pki']);
  expect(plan.statefulDirs).toEqual(['/var/lib/dockershim', '/var/run/kubernetes', '/var/lib/cni', '/etc/kubernetes/tmp']);
});

test('a certificate or data directory that is a system directory is refused, not emptied', () => {
  for (const dir of ['/', '/etc', '/var/lib', '/etc/kubernetes', '/pki', '/usr/', 'relative/pki', '/var/lib/../lib']) {
    expect(unsafeDirReason(dir)).toBeDefined();
  }
  for (const dir of ['/etc/kubernetes/pki', '/var/lib/etcd', '/data/etcd']) expect(unsafeDirReason(dir)).toBeUndefined();
  const plan = cleanupPlan({ certificatesDir: '/etc', etcdDataDir: '/', cleanupTmpDir: false, kubeletDirUnmounted: true });
  expect(plan.configDirs).toEqual(['/etc/kubernetes/manifests']);
  expect(plan.statefulDirs).not.toContain('/');
  expect(plan.refused).toEqual([{ path: '/etc', reason: 'it is a system directory' }, { path: '/', reason: 'it is a system directory' }]);
});

test('mount points under the kubelet directory, deepest first; the directory itself and look-alikes excluded', () => {
  const mounts = [
    '/dev/sda1 / ext4 rw 0 0',
    '/dev/sda1 /var/lib/kubelet ext4 rw 0 0',
    'tmpfs /var/lib/kubelet/pods/uid1/volumes/kubernetes.io~secret/token tmpfs rw 0 0',
    'tmpfs /var/lib/kubelet/pods/uid1/volumes/kubernetes.io~projected/kube\\040api tmpfs rw 0 0',
    '/dev/sda1 /var/lib/kubelet/pods/uid1/volume-subpaths/cfg/c/0 ext4 rw 0 0',
    'tmpfs /var/lib/kubelet-other/x tmpfs rw 0 0',
  ].join('\n');
  expect(mountsUnder(mounts, '/var/lib/kubelet')).toEqual([
    '/var/lib/kubelet/pods/uid1/volume-subpaths/cfg/c/0',
    '/var/lib/kubelet/pods/uid1/volumes/kubernetes.io~secret/token',
    '/var/lib/kubelet/pods/uid1/volumes/kubernetes.io~projected/kube api',
  ]);
});

test('the etcd manifest gives data dir (volume first), name and URLs', () => {
  const text = readFileSync(path.join(process.cwd(), 'test/fixtures/manifests/v1.20.2/default/etcd.yaml'), 'utf8');
  const m = parseEtcdManifest(text);
  expect(m.dataDir).toBe('/var/lib/etcd');
  expect(m.name).toBe('cp1');
  expect(m.peerURLs).toEqual(['https://192.168.10.11:2380']);
  expect(m.clientURLs).toEqual(['https://192.168.10.11:2379']);
  const moved = text.replace(/path: \/var\/lib\/etcd\n/, 'path: /data/etcd\n');
  expect(parseEtcdManifest(moved).dataDir).toBe('/data/etcd');
});

test('ClusterStatus without this node; unchanged when it is not listed', () => {
  const status = 'apiEndpoints:\n  cp1:\n    advertiseAddress: 10.0.0.1\n    bindPort: 6443\n  cp2:\n    advertiseAddress: 10.0.0.2\n    bindPort: 6443\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n';
  expect(clusterStatusWithout(status, 'cp2')).toBe('apiEndpoints:\n  cp1:\n    advertiseAddress: 10.0.0.1\n    bindPort: 6443\napiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterStatus\n');
  expect(clusterStatusWithout(status, 'cp9')).toBeUndefined();
});
