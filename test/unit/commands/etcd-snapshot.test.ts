/**
 * The `tsadm etcd snapshot …` command lines: help, usage errors (exit 3), the refusal of a bad
 * snapshot before anything else (exit 1, one line), `-o json` result events, dry runs that write
 * nothing, and schedule's refusal of a program another user controls (src/host/unit-program.ts).
 * The work itself: test/unit/etcd-snapshot/ (real etcd) and test/e2e/etcd-snapshot.e2e.test.ts.
 */
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../helpers/run-cli.js';

describe('tsadm etcd snapshot', () => {
  let root: string;
  const dir = (): string => path.join(root, 'var/lib/tsadm/etcd-snapshots');
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-snap-cmd-'));
    mkdirSync(dir(), { recursive: true });
    writeFileSync(path.join(dir(), 'etcd-snapshot-20261126T000000.000Z.db'), 'old');
    writeFileSync(path.join(dir(), 'etcd-snapshot-20261127T000000.000Z.db'), 'new');
    // A stand-in of tsadm's single executable for --tsadm-path, root-owned in root-owned 0755 directories.
    mkdirSync(path.join(root, 'usr/bin'), { recursive: true });
    writeFileSync(path.join(root, 'usr/bin/tsadm'), 'tsadm', { mode: 0o755 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('help lists the subcommands; the timer can be turned off', async () => {
    const r = await runCli(['etcd', 'snapshot', '--help']);
    expect(r.code).toBe(0);
    for (const sub of ['save [file]', 'verify <file>', 'list', 'prune', 'schedule', 'unschedule', 'restore <file>']) expect(r.stdout).toContain(`tsadm etcd snapshot ${sub}`);
    const s = await runCli(['etcd', 'snapshot', 'schedule', '--help']);
    expect(s.stdout).toContain('--disable');
    expect((await runCli(['etcd', 'snapshot'])).code).toBe(3);
    expect((await runCli(['etcd', 'snapshot', 'prune', '--rootfs', root])).code).toBe(3);
  });

  test('list -o json ends with the result event naming the snapshots, newest first', async () => {
    const r = await runCli(['etcd', 'snapshot', 'list', '--rootfs', root, '-o', 'json']);
    expect(r.code).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { ok: boolean; data: { snapshots: Array<{ name: string }> } };
    expect(last.ok).toBe(true);
    expect(last.data.snapshots.map((s) => s.name)).toEqual(['etcd-snapshot-20261127T000000.000Z.db', 'etcd-snapshot-20261126T000000.000Z.db']);
  });

  test('prune --dry-run and schedule --dry-run change nothing', async () => {
    expect((await runCli(['etcd', 'snapshot', 'prune', '--keep', '1', '--dry-run', '--rootfs', root])).code).toBe(0);
    expect(readdirSync(dir())).toHaveLength(2);
    expect((await runCli(['etcd', 'snapshot', 'schedule', '--dry-run', '--rootfs', root, '--tsadm-path', '/usr/bin/tsadm'])).code).toBe(0);
    expect(existsSync(path.join(root, 'etc/systemd'))).toBe(false);
    const bad = await runCli(['etcd', 'snapshot', 'schedule', '--every', '7h', '--rootfs', root]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('--every 7h is not a period tsadm can schedule');
  });

  test('schedule: the service runs --tsadm-path; one another user owns is refused (exit 1, one line, the fix), in a dry run too, writing nothing', async () => {
    const unsafe = path.join(root, 'usr/local/bin');
    mkdirSync(unsafe, { recursive: true });
    writeFileSync(path.join(unsafe, 'tsadm'), 'tsadm', { mode: 0o755 });
    chownSync(path.join(unsafe, 'tsadm'), 65534, 65534);
    for (const dry of [['--dry-run'], []]) {
      const r = await runCli(['etcd', 'snapshot', 'schedule', '--rootfs', root, '--tsadm-path', '/usr/local/bin/tsadm', ...dry]);
      expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('refusing to write /etc/systemd/system/tsadm-etcd-snapshot.service: it would run /usr/local/bin/tsadm as root, '
        + 'and /usr/local/bin/tsadm is owned by uid 65534, not root')]);
      expect(r.stderr).toContain('install the package (/usr/bin/tsadm) or pass --tsadm-path with a root-owned copy');
      expect(existsSync(path.join(root, 'etc/systemd'))).toBe(false);
    }
    const ok = await runCli(['etcd', 'snapshot', 'schedule', '--rootfs', root, '--tsadm-path', '/usr/bin/tsadm']);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    expect(readFileSync(path.join(root, 'etc/systemd/system/tsadm-etcd-snapshot.service'), 'utf8'))
      .toContain('\nExecStart=/usr/bin/tsadm etcd snapshot save --dir /var/lib/tsadm/etcd-snapshots\nExecStart=/usr/bin/tsadm etcd snapshot prune ');
    rmSync(path.join(root, 'etc'), { recursive: true, force: true });
  });

  test('restore and verify of a file that is no snapshot: one error line about the file, exit 1, nothing else read', async () => {
    const r = await runCli(['etcd', 'snapshot', 'restore', '/var/lib/tsadm/etcd-snapshots/etcd-snapshot-20261127T000000.000Z.db', '--rootfs', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: /var/lib/tsadm/etcd-snapshots/etcd-snapshot-20261127T000000.000Z.db is not a whole etcd snapshot: it is not an etcd (bbolt) database');
    const v = await runCli(['etcd', 'snapshot', 'verify', '/var/lib/tsadm/etcd-snapshots/etcd-snapshot-20261127T000000.000Z.db', '--rootfs', root, '-o', 'json']);
    expect(v.code).toBe(1);
    expect(JSON.parse(v.stdout.trim().split('\n').pop() as string)).toMatchObject({ command: 'etcd snapshot verify', ok: false, error: { code: 'E_PRECONDITION' } });
  });
});
