/**
 * The machine side of restore with a scripted CRI (the kubelet and containerd are the e2e's:
 * test/e2e/etcd-snapshot.e2e.test.ts): the one-off Pod's manifest is written, its container's exit
 * code decides, the manifest is removed either way; the wait for the control plane's containers
 * ends when none runs and times out with a one-line error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadYaml } from '../../../src/yaml/read.js';
import { machineRestoreDeps } from '../../../src/etcd-snapshot/runner.js';
import type { CriClient } from '../../../src/host/cri-client.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';

const MANIFEST = '/etc/kubernetes/manifests/tsadm-etcd-restore.yaml';

function fakeCri(root: TempRoot, exitCode: number, polls: { n: number }): CriClient {
  let podName = '';
  let lists = 0;
  return {
    listPodSandboxes: () => {
      polls.n++;
      if (existsSync(root.at(MANIFEST))) podName = (loadYaml(readFileSync(root.at(MANIFEST), 'utf8')) as { metadata: { name: string } }).metadata.name;
      return Promise.resolve(podName ? [{ id: 'sb1', name: `${podName}-node1`, namespace: 'kube-system', ready: false }, { id: 'old', name: 'tsadm-etcd-restore-old-node1', namespace: 'kube-system', ready: false }] : []);
    },
    listContainers: () => (lists++, Promise.resolve([
      { id: 'old-c', podSandboxId: 'old', name: 'etcd-restore', running: false, state: 'EXITED' },
      ...(polls.n >= 2 ? [{ id: 'c1', podSandboxId: 'sb1', name: 'etcd-restore', running: false, state: 'EXITED' }] : []),
      { id: 'e', podSandboxId: 'x', name: 'etcd', running: lists < 3, state: lists < 3 ? 'RUNNING' : 'EXITED' },
    ])),
    containerStatus: (id: string) => Promise.resolve(id === 'c1' ? { state: 'EXITED', exitCode, reason: 'Error', message: 'snapshot file has wrong hash\nmore' } : { state: 'EXITED', exitCode: 99, reason: '', message: 'stale container' }),
  } as unknown as CriClient;
}

describe('restore on the machine (static Pod + CRI)', () => {
  let root: TempRoot;
  beforeEach(() => { root = tempRoot({ '/etc/kubernetes/manifests/.keep': '' }); });
  afterEach(() => root.cleanup());

  const deps = (cri: CriClient, timeoutMs = 10_000) => machineRestoreDeps({
    host: new RootedHost(root.dir), cri: () => Promise.resolve(cri), etcdTls: { ca: '', cert: '', key: '' }, apiCa: Buffer.alloc(0), timeoutMs, pollMs: 1, sleep: () => Promise.resolve(),
  });
  const run = { image: 'registry.local/k8s/etcd:3.4.13-0', command: ['etcdctl', 'snapshot', 'restore', '/s/a.db'], mounts: [{ hostPath: '/s', readOnly: true }] };

  test('exit 0 of this run\'s container (not an old one) is success; the manifest is gone after', async () => {
    const polls = { n: 0 };
    await deps(fakeCri(root, 0, polls)).runTool(run);
    expect(polls.n).toBeGreaterThanOrEqual(2);
    expect(existsSync(root.at(MANIFEST))).toBe(false);
  });

  test('a non-zero exit is a one-line E_EXEC naming the tool; the manifest is gone after', async () => {
    const err = await tsadmErrorOf(deps(fakeCri(root, 1, { n: 0 })).runTool(run));
    expect(err.code).toBe('E_EXEC');
    expect(err.message).toBe('etcdctl snapshot restore exited with 1: snapshot file has wrong hash');
    expect(existsSync(root.at(MANIFEST))).toBe(false);
  });

  test('waits until the named containers stop; times out with a one-line error', async () => {
    const polls = { n: 0 };
    const cri = fakeCri(root, 0, polls);
    await deps(cri).waitContainersGone(['etcd']);
    const stuck = { ...cri, listContainers: () => Promise.resolve([{ id: 'e', podSandboxId: 'x', name: 'etcd', running: true, state: 'RUNNING' }]) };
    const err = await tsadmErrorOf(deps(stuck, 0).waitContainersGone(['etcd', 'kube-apiserver']));
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.message).toBe('timed out after 0 s waiting for etcd, kube-apiserver to stop');
  });
});
