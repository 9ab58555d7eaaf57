/**
 * The pure half of restore: facts read from an etcd.yaml as kubeadm v1.20.2 writes it (copied
 * from a kubeadm-built control plane, abridged to the fields read), the tool per etcd version
 * (etcdutl exists from 3.5: etcd's CHANGELOG-3.5), the command line and the one-off Pod.
 */
import { TsadmError } from '../../../src/errors.js';
import { apiServerEndpoint, oldDataDir, parseEtcdPod, restoreCommand, restorePod, restoreTool, stagingDir } from '../../../src/etcd-snapshot/restore-plan.js';

const KUBEADM_ETCD = `apiVersion: v1
kind: Pod
metadata:
  annotations:
    kubeadm.kubernetes.io/etcd.advertise-client-urls: https://10.0.0.11:2379
  name: etcd
  namespace: kube-system
spec:
  containers:
  - command:
    - etcd
    - --advertise-client-urls=https://10.0.0.11:2379
    - --cert-file=/etc/kubernetes/pki/etcd/server.crt
    - --client-cert-auth=true
    - --data-dir=/var/lib/etcd
    - --initial-advertise-peer-urls=https://10.0.0.11:2380
    - --initial-cluster=cp1=https://10.0.0.11:2380
    - --key-file=/etc/kubernetes/pki/etcd/server.key
    - --listen-client-urls=https://127.0.0.1:2379,https://10.0.0.11:2379
    - --listen-metrics-urls=http://127.0.0.1:2381
    - --listen-peer-urls=https://10.0.0.11:2380
    - --name=cp1
    image: k8s.gcr.io/etcd:3.4.13-0
    name: etcd
  volumes:
  - hostPath:
      path: /etc/kubernetes/pki/etcd
      type: DirectoryOrCreate
    name: etcd-certs
  - hostPath:
      path: /var/lib/etcd
      type: DirectoryOrCreate
    name: etcd-data
`;

describe('restore plan', () => {
  test('facts of kubeadm\'s etcd manifest', () => {
    expect(parseEtcdPod(KUBEADM_ETCD, 'etcd.yaml')).toEqual({
      image: 'k8s.gcr.io/etcd:3.4.13-0', name: 'cp1', peerURL: 'https://10.0.0.11:2380', dataDir: '/var/lib/etcd', clientURL: 'https://127.0.0.1:2379',
    });
    const err = (() => { try { parseEtcdPod('kind: Pod\n', 'x.yaml'); } catch (e) { return e; } return undefined; })();
    expect(err).toBeInstanceOf(TsadmError);
    expect((err as Error).message).toBe('x.yaml is not an etcd static Pod manifest tsadm can restore from (no image, name, peerURL, dataDir)');
  });

  test.each([
    ['k8s.gcr.io/etcd:3.4.13-0', 'etcdctl'],
    ['registry.k8s.io/etcd:3.5.16-0', 'etcdutl'],
    ['registry.k8s.io/etcd:3.6.4-0', 'etcdutl'],
    ['localhost:5000/etcd:v3.4.3', 'etcdctl'],
    ['registry.k8s.io/etcd@sha256:abc', 'etcdutl'],
  ])('%s restores with %s', (image, tool) => {
    expect(restoreTool(image)).toBe(tool);
  });

  test('a one-member cluster of this member, into the staging dir; the old dir named by time', () => {
    const facts = parseEtcdPod(KUBEADM_ETCD, 'etcd.yaml');
    expect(restoreCommand('etcdctl', '/s/a.db', stagingDir(facts.dataDir), facts)).toEqual([
      'etcdctl', 'snapshot', 'restore', '/s/a.db', '--data-dir=/var/lib/etcd/tsadm-restoring/data', '--name=cp1',
      '--initial-cluster=cp1=https://10.0.0.11:2380', '--initial-advertise-peer-urls=https://10.0.0.11:2380',
    ]);
    expect(oldDataDir('/var/lib/etcd', new Date('2026-11-27T12:00:05.123Z'))).toBe('/var/lib/etcd.tsadm-20261127T120005Z');
  });

  test('the one-off Pod runs once on the host network with the directories at their host paths', () => {
    const pod = restorePod('tsadm-etcd-restore-x', 'k8s.gcr.io/etcd:3.4.13-0', ['etcdctl', 'snapshot', 'restore'], [{ hostPath: '/s', readOnly: true }, { hostPath: '/var/lib', readOnly: false }]) as {
      spec: { restartPolicy: string; hostNetwork: boolean; containers: Array<{ env: unknown; volumeMounts: unknown }>; volumes: unknown };
    };
    expect(pod.spec.restartPolicy).toBe('Never');
    expect(pod.spec.hostNetwork).toBe(true);
    expect(pod.spec.containers[0]?.env).toEqual([{ name: 'ETCDCTL_API', value: '3' }]);
    expect(pod.spec.containers[0]?.volumeMounts).toEqual([{ name: 'dir-0', mountPath: '/s', readOnly: true }, { name: 'dir-1', mountPath: '/var/lib', readOnly: false }]);
    expect(pod.spec.volumes).toEqual([{ name: 'dir-0', hostPath: { path: '/s', type: 'DirectoryOrCreate' } }, { name: 'dir-1', hostPath: { path: '/var/lib', type: 'DirectoryOrCreate' } }]);
  });

  test('where to ask the API server', () => {
    expect(apiServerEndpoint('spec:\n  containers:\n  - command: [kube-apiserver, --advertise-address=10.0.0.11, --secure-port=6443]\n')).toEqual({ host: '10.0.0.11', port: 6443 });
    expect(apiServerEndpoint('spec: {}\n')).toBeUndefined();
  });
});
