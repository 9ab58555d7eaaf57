/**
 * `tsadm etcd snapshot save` and `restore` on a real single control plane made by `tsadm init`
 * (real kubelet, containerd, etcd 3.4 image with etcdctl, kube-apiserver v1.20.2): 200 ConfigMaps
 * written, a snapshot saved, 100 deleted; a truncated copy is refused with the manifests and the
 * data directory untouched; the real snapshot restored (etcdctl from the etcd image, run as a
 * one-off static Pod) brings all 200 back with their data. Then the same restore as a plan: the
 * planning run changes nothing, `tsadm apply` brings the deleted half back, and a second apply of
 * that plan is refused.
 *
 * Then, on the same control plane, tsadm's periodic jobs under a real systemd (systemd 252 as PID 1
 * of a namespace inside the machine, scripts/e2e/lib/systemd-init.sh): the units tsadm writes load,
 * its systemctl calls enable and start them, the services the timers trigger run to success and do
 * their work, and disabling removes them. Everywhere else the harness drives services through
 * TSADM_SERVICE_MANAGER.
 */
import { expect } from '@jest/globals';
import {
  bootSystemd, createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, nodeBin, provision, requireComponents, stopSystemd, systemdExec,
  removeInstalledTsadm, systemdTsadm, tsadm, waitFor, writeSharedFile, type Machine,
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
  removeInstalledTsadm();
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

  // The same restore as a reviewed plan: the planning run changes nothing; `tsadm apply` restores;
  // the plan, once applied, is refused (the restore's record on the machine has changed).
  await kubectl(CP.name, ['delete', 'configmap', '-n', NS, ...Array.from({ length: 100 }, (_, i) => `cm-${100 + i}`)]);
  const beforePlan = await machineState();
  const planned = await tsadm(CP.name, ['etcd', 'snapshot', 'restore', '/var/lib/tsadm/etcd-snapshots/e2e.db', '--plan', '/tmp/tsadm-restore-plan.json'], { reject: false });
  expect(`${planned.exitCode}\n${planned.all}`).toMatch(/^0\n/);
  expect(await machineState()).toBe(beforePlan);
  expect(Object.keys(await configMapData())).toHaveLength(100);
  const applied = await tsadm(CP.name, ['apply', '/tmp/tsadm-restore-plan.json'], { timeoutMs: 8 * MIN, reject: false });
  expect(`${applied.exitCode}\n${applied.all}`).toMatch(/^0\n/);
  const afterPlan = await waitFor(async () => {
    const d = await configMapData().catch(() => ({}));
    return Object.keys(d).length === 200 ? d : undefined;
  }, 4 * MIN, '200 ConfigMaps after the planned restore');
  expect(afterPlan).toEqual(before);
  const again = await tsadm(CP.name, ['apply', '/tmp/tsadm-restore-plan.json'], { reject: false });
  expect(again.exitCode).toBe(1);
  // The first restore above wrote the record; this plan's apply rewrote it.
  expect(again.all).toContain('/var/lib/tsadm/etcd-restore-last.json: content changed');
}, 25 * MIN);

/** `systemctl show UNIT -p …` as a record. */
async function unitProps(unit: string, props: string[]): Promise<Record<string, string>> {
  const r = await systemdExec(CP.name, ['systemctl', 'show', unit, ...props.flatMap((p) => ['-p', p])]);
  return Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

async function systemctl(...args: string[]): Promise<string> {
  return (await systemdExec(CP.name, ['systemctl', ...args], { reject: false })).stdout.trim();
}

/** Starts a oneshot service the way its timer does, and waits for it to finish; its outcome. */
async function runTriggered(service: string): Promise<Record<string, string>> {
  await systemdExec(CP.name, ['systemctl', 'start', service], { timeoutMs: 5 * MIN });
  return unitProps(service, ['Result', 'ExecMainStatus', 'ActiveState']);
}

async function snapshotsIn(dir: string): Promise<string[]> {
  return (await machineExec(CP.name, ['ls', dir])).stdout.split('\n').filter((n) => n.startsWith('etcd-snapshot-')).sort();
}

test('under a real systemd: the snapshot and renewal timers, and the approver service, run and are removed again', async () => {
  await bootSystemd(CP.name);
  try {
    // The units run bin/tsadm, whose `#!/usr/bin/env node` needs Node 24 on systemd's default PATH,
    // as on a host where it is installed.
    await machineExec(CP.name, ['ln', '-sf', nodeBin(), '/usr/local/bin/node']);
    const dir = '/var/lib/tsadm/timer-snapshots';

    // etcd snapshot schedule: both units loaded from /etc/systemd/system, the timer enabled and waiting.
    await systemdTsadm(CP.name, ['etcd', 'snapshot', 'schedule', '--every', '12h', '--keep', '2', '--dir', dir]);
    expect(await systemctl('is-enabled', 'tsadm-etcd-snapshot.timer')).toBe('enabled');
    const timer = await unitProps('tsadm-etcd-snapshot.timer', ['ActiveState', 'SubState', 'Triggers', 'NextElapseUSecRealtime', 'TimersCalendar', 'RandomizedDelayUSec', 'Persistent']);
    expect(timer).toMatchObject({ ActiveState: 'active', SubState: 'waiting', Triggers: 'tsadm-etcd-snapshot.service', Persistent: 'yes', RandomizedDelayUSec: '15min' });
    expect(timer.TimersCalendar).toContain('OnCalendar=*-*-* 00/12:00:00');
    expect(timer.NextElapseUSecRealtime).toMatch(/\d{4}-\d{2}-\d{2}/);

    // What the timer starts, started now, three times: each run saves one snapshot and prunes to --keep 2.
    for (let i = 0; i < 3; i++) {
      expect(await runTriggered('tsadm-etcd-snapshot.service')).toEqual({ Result: 'success', ExecMainStatus: '0', ActiveState: 'inactive' });
    }
    const kept = await snapshotsIn(dir);
    expect(kept).toHaveLength(2);
    for (const name of kept) expect((await machineExec(CP.name, ['stat', '-c', '%a %s', `${dir}/${name}`])).stdout.trim()).toMatch(/^600 [1-9]\d+$/);
    const verified = await systemdTsadm(CP.name, ['etcd', 'snapshot', 'verify', `${dir}/${kept[1]!}`], { reject: false });
    expect(`${verified.exitCode}\n${verified.all}`).toMatch(/^0\n/);

    // certs auto-renew: the daily timer; its service renews nothing that is not due (fresh certificates).
    const pki = ['sh', '-c', 'sha256sum /etc/kubernetes/pki/*.crt /etc/kubernetes/*.conf'];
    const before = (await machineExec(CP.name, pki)).stdout;
    await systemdTsadm(CP.name, ['certs', 'auto-renew', 'enable']);
    expect(await unitProps('tsadm-certs-renew.timer', ['ActiveState', 'UnitFileState', 'Persistent', 'RandomizedDelayUSec'])).toEqual({ ActiveState: 'active', UnitFileState: 'enabled', Persistent: 'yes', RandomizedDelayUSec: '1h' });
    expect(await runTriggered('tsadm-certs-renew.service')).toEqual({ Result: 'success', ExecMainStatus: '0', ActiveState: 'inactive' });
    expect((await machineExec(CP.name, pki)).stdout).toBe(before);
    // status asks the real systemctl whether the timer is active.
    expect((await systemdTsadm(CP.name, ['certs', 'auto-renew', 'status'])).all).toMatch(/^tsadm-certs-renew\.timer: installed \(\/etc\/systemd\/system\/tsadm-certs-renew\.timer\), active; runs ".*\/tsadm certs renew --auto --within 90d" daily$/m);

    // The approver: a long-running service; it stays up (no restart loop) against the real API.
    await systemdTsadm(CP.name, ['certs', 'approve-kubelet-serving', 'enable']);
    const approver = 'tsadm-kubelet-serving-approver.service';
    await waitFor(async () => (await systemctl('is-active', approver)) === 'active' || undefined, MIN, 'the approver service active');
    await new Promise((r) => setTimeout(r, 5000));
    expect(await unitProps(approver, ['ActiveState', 'SubState', 'NRestarts', 'UnitFileState'])).toEqual({ ActiveState: 'active', SubState: 'running', NRestarts: '0', UnitFileState: 'enabled' });

    // Off again: nothing of tsadm's left loaded, enabled or on disk.
    await systemdTsadm(CP.name, ['etcd', 'snapshot', 'unschedule']);
    await systemdTsadm(CP.name, ['certs', 'auto-renew', 'disable']);
    await systemdTsadm(CP.name, ['certs', 'approve-kubelet-serving', 'disable']);
    for (const unit of ['tsadm-etcd-snapshot.timer', 'tsadm-certs-renew.timer', approver]) {
      expect(await unitProps(unit, ['ActiveState', 'LoadState'])).toEqual({ ActiveState: 'inactive', LoadState: 'not-found' });
    }
    expect((await machineExec(CP.name, ['sh', '-c', 'ls /etc/systemd/system /etc/systemd/system/*.wants 2>/dev/null | grep tsadm || true'])).stdout.trim()).toBe('');
  } finally {
    await stopSystemd(CP.name);
  }
}, 15 * MIN);
