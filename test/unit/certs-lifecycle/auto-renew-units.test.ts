/**
 * `tsadm certs auto-renew enable|disable|status` under a --rootfs temp dir: the unit files land in
 * /etc/systemd/system with mode 0644 and systemd's keys; nothing is started (not the running
 * system); disable removes them; --dry-run writes nothing. The service runs tsadm as root: the
 * program named in ExecStart= must be one only root controls (src/host/unit-program.ts), checked
 * on the root's own files (a --tsadm-path under the temp root, chown'ed and chmod'ed here).
 */
import { chmodSync, chownSync, existsSync, readFileSync, statSync } from 'node:fs';
import { runCli } from '../../helpers/cli.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

const SERVICE = '/etc/systemd/system/tsadm-certs-renew.service';
const TIMER = '/etc/systemd/system/tsadm-certs-renew.timer';

describe('certs auto-renew on a --rootfs', () => {
  let root: TempRoot;
  // A stand-in of the package's single executable, root-owned in root-owned 0755 directories.
  beforeEach(() => { root = tempRoot({ '/usr/bin/tsadm': { content: 'tsadm', mode: 0o755 } }); });
  afterEach(() => root.cleanup());
  const run = (...args: string[]) => runCli(['certs', 'auto-renew', ...args, '--rootfs', root.dir, ...(args[0] === 'enable' ? ['--tsadm-path', '/usr/bin/tsadm'] : [])]);

  test('status before: not installed (off by default)', async () => {
    const r = await run('status');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tsadm-certs-renew.timer: not installed');
  });

  test('enable writes the two units (0644), daily, randomized, persistent, running renew --auto; disable removes them', async () => {
    const r = await run('enable', '--within', '30d');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const service = readFileSync(root.at(SERVICE), 'utf8');
    const timer = readFileSync(root.at(TIMER), 'utf8');
    expect(statSync(root.at(SERVICE)).mode & 0o777).toBe(0o644);
    expect(statSync(root.at(TIMER)).mode & 0o777).toBe(0o644);
    expect(service).toMatch(/^Type=oneshot$/m);
    expect(service).toMatch(/^ExecStart=\/usr\/bin\/tsadm certs renew --auto --within 30d$/m);
    expect(timer).toMatch(/^OnCalendar=daily$/m);
    expect(timer).toMatch(/^RandomizedDelaySec=3600$/m);
    expect(timer).toMatch(/^Persistent=true$/m);
    expect(timer).toMatch(/^Unit=tsadm-certs-renew.service$/m);
    expect(r.stdout).toContain('nothing was started');
    expect((await run('status')).stdout).toContain('tsadm-certs-renew.timer: installed');

    const d = await run('disable');
    expect(d.code).toBe(0);
    expect(existsSync(root.at(SERVICE))).toBe(false);
    expect(existsSync(root.at(TIMER))).toBe(false);
  });

  test('--dry-run writes nothing; a bad --within is a usage error', async () => {
    const r = await run('enable', '--dry-run');
    expect(r.code).toBe(0);
    expect(existsSync(root.at(TIMER))).toBe(false);
    const bad = await run('enable', '--within', 'soon');
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('--within');
  });

  test('a program another user controls is refused before anything is written, in a dry run too; the running tsadm is checked the same way', async () => {
    chownSync(root.at('/usr/bin/tsadm'), 65534, 65534);
    for (const dry of [[], ['--dry-run']]) {
      const r = await run('enable', ...dry);
      expect([r.code, r.stderr]).toEqual([1, expect.stringContaining(
        'refusing to write /etc/systemd/system/tsadm-certs-renew.service: it would run /usr/bin/tsadm as root, and /usr/bin/tsadm is owned by uid 65534, not root')]);
      expect(r.stderr).toContain('install the package (/usr/bin/tsadm) or pass --tsadm-path with a root-owned copy');
      expect(existsSync(root.at('/etc/systemd'))).toBe(false);
    }
    chownSync(root.at('/usr/bin/tsadm'), 0, 0);
    chmodSync(root.at('/usr'), 0o1777);
    expect((await run('enable')).stderr).toContain('and /usr is writable by others (mode 1777)');
    // Without --tsadm-path: the running tsadm (here Node.js and jest's script), as the root's machine would see it.
    const running = await runCli(['certs', 'auto-renew', 'enable', '--rootfs', root.dir]);
    expect([running.code, running.stderr]).toEqual([1, expect.stringContaining(`it would run ${process.execPath} as root, and `)]);
    expect(existsSync(root.at('/etc/systemd'))).toBe(false);
  });
});
