/**
 * `tsadm certs auto-renew enable|disable|status` under a --rootfs temp dir: the unit files land in
 * /etc/systemd/system with mode 0644 and systemd's keys; nothing is started (not the running
 * system); disable removes them; --dry-run writes nothing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { runCli } from '../../helpers/cli.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';

const SERVICE = '/etc/systemd/system/tsadm-certs-renew.service';
const TIMER = '/etc/systemd/system/tsadm-certs-renew.timer';

describe('certs auto-renew on a --rootfs', () => {
  let root: TempRoot;
  beforeEach(() => { root = tempRoot(); });
  afterEach(() => root.cleanup());
  const run = (...args: string[]) => runCli(['certs', 'auto-renew', ...args, '--rootfs', root.dir]);

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
    expect(service).toMatch(/^ExecStart=\/\S+ certs renew --auto --within 30d$/m);
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
});
