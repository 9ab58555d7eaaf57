import { backupDirName, certsToRenew, compareSemver, etcdDecision, imageTag, manifestImage } from '../../../../src/phases/upgrade/static-pod-plan.js';

/**
 * Oracles: kubeadm 1.20.2's source. constants.CreateTimestampDirForKubeadm names the folder
 * "<KubernetesDir>/tmp/<name>-" + time.Now().Format("2006-01-02-15-04-05") (local time);
 * phases/upgrade/staticpods.go's renewCertsByComponent lists the certificates per component; its
 * performEtcdStaticPodUpgrade refuses (non-fatally) a desired etcd older than the running one.
 * Semantic version precedence: the ordered example list of semver 2.0 §11.
 */
describe('backupDirName', () => {
  test('Go layout 2006-01-02-15-04-05 in local time, under /etc/kubernetes/tmp', () => {
    const at = new Date(2021, 0, 2, 3, 4, 5); // local time
    expect(backupDirName('kubeadm-backup-manifests', at)).toBe('/etc/kubernetes/tmp/kubeadm-backup-manifests-2021-01-02-03-04-05');
    expect(backupDirName('kubeadm-backup-etcd', new Date(2020, 11, 31, 23, 59, 58))).toBe('/etc/kubernetes/tmp/kubeadm-backup-etcd-2020-12-31-23-59-58');
  });
});

describe('certsToRenew (kubeadm renewCertsByComponent)', () => {
  test('local etcd', () => {
    expect(certsToRenew('etcd', true)).toEqual(['etcd-server', 'etcd-peer', 'etcd-healthcheck-client']);
    expect(certsToRenew('kube-apiserver', true)).toEqual(['apiserver', 'apiserver-kubelet-client', 'front-proxy-client', 'apiserver-etcd-client']);
    expect(certsToRenew('kube-controller-manager', true)).toEqual(['controller-manager.conf']);
    expect(certsToRenew('kube-scheduler', true)).toEqual(['scheduler.conf']);
  });
  test('external etcd: no etcd certificates, no API server etcd client', () => {
    expect(certsToRenew('etcd', false)).toEqual([]);
    expect(certsToRenew('kube-apiserver', false)).toEqual(['apiserver', 'apiserver-kubelet-client', 'front-proxy-client']);
  });
});

describe('compareSemver', () => {
  test('semver 2.0 §11 precedence example, in order', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        expect([ordered[i], ordered[j], compareSemver(ordered[i]!, ordered[j]!)]).toEqual([ordered[i], ordered[j], Math.sign(i - j)]);
      }
    }
  });
  test('etcd tags compare numerically', () => {
    expect(compareSemver('3.4.13-0', '3.4.9-1')).toBe(1);
    expect(compareSemver('3.4.3-0', '3.4.13-0')).toBe(-1);
    expect(compareSemver('3.4.13-0', '3.4.13-0')).toBe(0);
    expect(compareSemver('v3.5.0', '3.4.13-0')).toBe(1);
  });
  test('an unparsable tag is an error naming both', () => {
    expect(() => compareSemver('latest', '3.4.13-0')).toThrow(/"latest" and "3.4.13-0"/);
  });
});

describe('imageTag and manifestImage', () => {
  test('tag after the last colon of the last path element; registries with ports; digests ignored', () => {
    expect(imageTag('k8s.gcr.io/etcd:3.4.13-0')).toBe('3.4.13-0');
    expect(imageTag('localhost:5000/etcd:3.4.13-0')).toBe('3.4.13-0');
    expect(imageTag('localhost:5000/etcd')).toBe('');
    expect(imageTag('k8s.gcr.io/etcd:3.4.13-0@sha256:abcd')).toBe('3.4.13-0');
  });
  test('first container image of a manifest; a manifest without one is refused', () => {
    expect(manifestImage('apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: etcd\n    image: k8s.gcr.io/etcd:3.4.13-0\n', 'etcd.yaml')).toBe('k8s.gcr.io/etcd:3.4.13-0');
    expect(() => manifestImage('apiVersion: v1\nkind: Pod\nspec: {}\n', '/etc/kubernetes/manifests/etcd.yaml')).toThrow(/etcd.yaml has no container image/);
    expect(() => manifestImage('a: [', 'x.yaml')).toThrow(/not valid YAML/);
  });
});

describe('etcdDecision (kubeadm performEtcdStaticPodUpgrade)', () => {
  test('newer: proceed', () => {
    expect(etcdDecision('k8s.gcr.io/etcd:3.4.9-1', 'k8s.gcr.io/etcd:3.4.13-0')).toEqual({ proceed: true });
  });
  test('same version: proceed to the manifest comparison (flags may differ)', () => {
    expect(etcdDecision('k8s.gcr.io/etcd:3.4.13-0', 'k8s.gcr.io/etcd:3.4.13-0')).toEqual({ proceed: true });
  });
  test('older: refused with kubeadm\'s message', () => {
    expect(etcdDecision('k8s.gcr.io/etcd:3.5.0-0', 'k8s.gcr.io/etcd:3.4.13-0')).toEqual({
      proceed: false,
      reason: 'the desired etcd version "3.4.13-0" is older than the currently installed "3.5.0-0". Skipping etcd upgrade',
    });
  });
});
