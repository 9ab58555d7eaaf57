/**
 * `tsadm etcd snapshot save` and `restore` on a real single control plane made by `tsadm init`
 * (real kubelet, containerd, etcd 3.4 image with etcdctl, kube-apiserver v1.20.2): 200 ConfigMaps
 * written, a snapshot saved, 100 deleted; a truncated copy is refused with the manifests and the
 * data directory untouched; the real snapshot restored (etcdctl from the etcd image, run as a
 * one-off static Pod) brings all 200 back with their data.
 */
import { expect } from '@jest/globals';
import {
  createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, provision, requireComponents, tsadm, waitFor, writeSharedFile, type Machine,
} from './harness.js';

const CP: Machine = { name: 'snap1', ip: '10.250.0.171' };
const MIN = 60_000;
const NS = 'snaptest';

beforeAll(async () => {
  await provision();
  requireComponents();
  await destroyMachine(CP.name).catch(() => undefined);
  await createMachine(CP.name, CP.ip);
}, 10 * MIN);

afterAll(async () => {
  await destroyMachine(CP.name).catch(() => undefined);
}, 5 * MIN);

async function configMapData(): Promise<Record<string, string>> {
  const list = JSON.parse(await kubectl(CP.name, ['get', 'configmaps', '-n', NS, '-l', 'snap=yes', '-o', 'json'])) as { items: Array<{ metadata: { name: string }; data?: { v?: string } }> };
  return Object.fromEntries(list.items.map((i) => [i.metadata.name, i.data?.v ?? '']));
}

async function machineState(): Promise<string> {
  // Manifests by content, the data directory by inode (not renamed, not replaced), no new directories or state file.
  const r = await machineExec(CP.name, ['sh', '-c', 'sha256sum /etc/kubernetes/manifests/*; stat -c "%i %n" /var/lib/etcd /var/lib/etcd/member; ls /var/lib | grep etcd; ls /etc/kubernetes; ls /var/lib/tsadm']);
  return r.stdout;
}

test('save, delete half, refuse a truncated copy, restore: all 200 ConfigMaps back', async () => {
  const configPath = writeSharedFile(`tsadm-${CP.name}.yaml`, await kubeadmConfig(CP.ip, CP.name));
  await tsadm(CP.name, ['init', '--config', configPath], { timeoutMs: 8 * MIN });
  await kubectl(CP.name, ['create', 'namespace', NS]);
  const docs = Array.from({ length: 200 }, (_, i) => JSON.stringify({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: NS, labels: { snap: 'yes' } }, data: { v: `value-${i}-${'z'.repeat(100)}` },
  }));
  await kubectl(CP.name, ['apply', '-f', writeSharedFile('snap-cms.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs.map((d) => JSON.parse(d) as unknown) }))]);
  const before = await configMapData();
  expect(Object.keys(before)).toHaveLength(200);

  const saved = await tsadm(CP.name, ['etcd', 'snapshot', 'save', '/var/lib/tsadm/etcd-snapshots/e2e.db', '-o', 'json']);
  const result = JSON.parse(saved.stdout.trim().split('\n').pop()!) as { ok: boolean; data: { path: string; size: number } };
  expect(result).toMatchObject({ ok: true, data: { path: '/var/lib/tsadm/etcd-snapshots/e2e.db' } });
  expect((await machineExec(CP.name, ['stat', '-c', '%a', '/var/lib/tsadm/etcd-snapshots/e2e.db'])).stdout.trim()).toBe('600');

  await kubectl(CP.name, ['delete', 'configmap', '-n', NS, ...Array.from({ length: 100 }, (_, i) => `cm-${i}`)]);
  expect(Object.keys(await configMapData())).toHaveLength(100);

  // A truncated copy: refused before anything changes.
  await machineExec(CP.name, ['sh', '-c', 'head -c $(( $(stat -c %s /var/lib/tsadm/etcd-snapshots/e2e.db) - 777 )) /var/lib/tsadm/etcd-snapshots/e2e.db > /var/lib/tsadm/etcd-snapshots/cut.db']);
  const stateBefore = await machineState();
  const refused = await tsadm(CP.name, ['etcd', 'snapshot', 'restore', '/var/lib/tsadm/etcd-snapshots/cut.db'], { reject: false });
  expect(refused.exitCode).not.toBe(0);
  expect(refused.all).toContain('/var/lib/tsadm/etcd-snapshots/cut.db is not a whole etcd snapshot: it is truncated');
  expect(await machineState()).toBe(stateBefore);

  const restored = await tsadm(CP.name, ['etcd', 'snapshot', 'restore', '/var/lib/tsadm/etcd-snapshots/e2e.db'], { timeoutMs: 8 * MIN, reject: false });
  expect(`${restored.exitCode}\n${restored.all}`).toMatch(/^0\n/);
  // The harness bind-mounts /var/lib/etcd: the old data is kept inside it (member.tsadm-<time>).
  expect(restored.all).toMatch(/kept the old data as \/var\/lib\/etcd(\.tsadm-|\/member\.tsadm-)\d{8}T\d{6}Z/);
  const after = await waitFor(async () => {
    const d = await configMapData().catch(() => ({}));
    return Object.keys(d).length === 200 ? d : undefined;
  }, 4 * MIN, '200 ConfigMaps after the restore');
  expect(after).toEqual(before);
  expect((await machineExec(CP.name, ['ls', '/etc/kubernetes/manifests'])).stdout.split('\n').filter(Boolean).sort())
    .toEqual(['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml']);
}, 25 * MIN);
