/**
 * `snapshot schedule`'s write path on a --rootfs: both units written atomically (0644) under
 * /etc/systemd/system, systemd told in order through $TSADM_SERVICE_MANAGER (a script recording
 * its arguments, standing in for systemctl), --disable undoing it; a dry run writes nothing. The
 * service runs tsadm as root: a program another user controls is refused before any write, in a
 * dry run too (src/host/unit-program.ts; a file of the root chown'ed here).
 */
import { chmodSync, chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
  const spec = { tsadm: ['/usr/local/bin/tsadm'], every: '12h', keep: 5, dir: '/var/lib/tsadm/etcd-snapshots' };
  const request = { tsadmPath: '/usr/local/bin/tsadm', every: '12h', keep: 5, dir: '/var/lib/tsadm/etcd-snapshots' };

  beforeEach(() => {
    // A stand-in of tsadm's single executable, root-owned in 0755 directories.
    root = tempRoot({ '/usr/local/bin/tsadm': { content: 'tsadm', mode: 0o755 } });
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
    const result = await installSnapshotTimer(host, request);
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
    await installSnapshotTimer(host, request);
    expect(host.writes.map((w) => w.path)).toEqual(['/etc/systemd/system/tsadm-etcd-snapshot.service', '/etc/systemd/system/tsadm-etcd-snapshot.timer']);
    expect(existsSync(root.at('/etc/systemd/system'))).toBe(false);
    expect(existsSync(calls)).toBe(false);
  });

  test('the program the service runs: a node and script pair is quoted into both lines; one another user owns is refused, nothing written or called', async () => {
    const u = snapshotTimerUnits({ ...spec, tsadm: ['/opt/node/bin/node', '/opt/tsadm/bin/tsadm'] });
    expect(u.service).toContain('ExecStart=/opt/node/bin/node /opt/tsadm/bin/tsadm etcd snapshot save --dir /var/lib/tsadm/etcd-snapshots\n');
    chownSync(root.at('/usr/local/bin'), 65534, 65534);
    for (const host of [new RootedHost(root.dir), new DryRunHost(new RootedHost(root.dir))]) {
      const err = await installSnapshotTimer(host, request).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(TsadmError);
      expect((err as TsadmError).message).toBe('refusing to write /etc/systemd/system/tsadm-etcd-snapshot.service: it would run /usr/local/bin/tsadm as root, '
        + `and /usr/local/bin is owned by uid 65534, not root (under --rootfs ${root.dir})`);
      expect(host.writes).toEqual([]);
    }
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
    expect(existsSync(calls)).toBe(false);
    // A bad --every is still the usage error, whatever the program.
    await expect(installSnapshotTimer(new RootedHost(root.dir), { ...request, every: '7h' })).rejects.toThrow('--every 7h is not a period');
  });
});
