/**
 * `snapshot schedule`'s write path on a --rootfs: both units written atomically (0644) under
 * /etc/systemd/system, systemd told in order through $TSADM_SERVICE_MANAGER (a script recording
 * its arguments, standing in for systemctl), --disable undoing it; a dry run writes nothing.
 */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TsadmError } from '../../../src/errors.js';
import { installSnapshotTimer, removeSnapshotTimer, snapshotTimerUnits } from '../../../src/etcd-snapshot/schedule.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

describe('etcd snapshot schedule', () => {
  let root: TempRoot;
  let calls: string;
  const saved = process.env.TSADM_SERVICE_MANAGER;
  const spec = { tsadm: '/usr/local/bin/tsadm', every: '12h', keep: 5, dir: '/var/lib/tsadm/etcd-snapshots' };

  beforeEach(() => {
    root = tempRoot();
    calls = path.join(root.dir, 'calls.log');
    const manager = path.join(root.dir, 'service-manager');
    writeFileSync(manager, `#!/bin/sh\necho "$@" >> ${calls}\n`);
    chmodSync(manager, 0o755);
    process.env.TSADM_SERVICE_MANAGER = manager;
  });

  afterEach(() => {
    if (saved === undefined) delete process.env.TSADM_SERVICE_MANAGER;
    else process.env.TSADM_SERVICE_MANAGER = saved;
    root.cleanup();
  });

  test('the service saves then prunes; the timer runs every 12h, persistent, randomized', () => {
    const u = snapshotTimerUnits(spec);
    expect(u.service).toContain('ExecStart=/usr/local/bin/tsadm etcd snapshot save --dir /var/lib/tsadm/etcd-snapshots\n'
      + 'ExecStart=/usr/local/bin/tsadm etcd snapshot prune --dir /var/lib/tsadm/etcd-snapshots --keep 5\n');
    expect(u.timer).toContain('OnCalendar=*-*-* 00/12:00:00\nRandomizedDelaySec=15min\nPersistent=true\n');
    expect(() => snapshotTimerUnits({ ...spec, every: '7h' })).toThrow(TsadmError);
    expect(() => snapshotTimerUnits({ ...spec, keep: 0 })).toThrow(/--keep/);
  });

  test('installs both units and enables the timer; --disable stops, disables and removes them', async () => {
    const host = new RootedHost(root.dir);
    const result = await installSnapshotTimer(host, spec);
    const timer = root.at('/etc/systemd/system/tsadm-etcd-snapshot.timer');
    const service = root.at('/etc/systemd/system/tsadm-etcd-snapshot.service');
    expect(statSync(timer).mode & 0o777).toBe(0o644);
    expect(statSync(service).mode & 0o777).toBe(0o644);
    expect(readFileSync(timer, 'utf8')).toBe(snapshotTimerUnits(spec).timer);
    expect(result.service.every((r) => r.ok)).toBe(true);
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
      'daemon-reload tsadm-etcd-snapshot.timer', 'enable tsadm-etcd-snapshot.timer', 'start tsadm-etcd-snapshot.timer',
    ]);

    const removed = await removeSnapshotTimer(new RootedHost(root.dir));
    expect(removed.files).toHaveLength(2);
    expect(existsSync(timer) || existsSync(service)).toBe(false);
    expect(readFileSync(calls, 'utf8').trim().split('\n').slice(3)).toEqual([
      'stop tsadm-etcd-snapshot.timer', 'disable tsadm-etcd-snapshot.timer', 'daemon-reload tsadm-etcd-snapshot.timer',
    ]);
    expect((await removeSnapshotTimer(new RootedHost(root.dir))).files).toEqual([]);
  });

  test('a dry run writes no unit and calls nothing', async () => {
    const host = new DryRunHost(new RootedHost(root.dir));
    await installSnapshotTimer(host, spec);
    expect(host.writes.map((w) => w.path)).toEqual(['/etc/systemd/system/tsadm-etcd-snapshot.service', '/etc/systemd/system/tsadm-etcd-snapshot.timer']);
    expect(existsSync(root.at('/etc/systemd/system'))).toBe(false);
    expect(existsSync(calls)).toBe(false);
  });
});
