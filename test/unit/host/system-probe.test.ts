/**
 * The real machine's probe against independent oracles on this machine: coreutils' `stat -fc %T`
 * for the cgroup filesystem, `uname -r` for the kernel release, zcat of /proc/config.gz for the
 * kernel configuration. /proc/swaps as the kernel prints it (mm/swapfile.c: a header line, then
 * one tab-separated line per active area).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { activeSwaps, moduleEvidence, moduleShows, realSystem, unixSocketAnswers } from '../../../src/host/system-probe.js';
import { testOnHost } from '../../helpers/oracle.js';

describe('realSystem', () => {
  test('kernelRelease is uname -r', () => {
    expect(realSystem.kernelRelease()).toBe(execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim());
  });

  test('cgroupFsType names /sys/fs/cgroup\'s filesystem as stat -fc %T does (cgroup2fs for v2, tmpfs for a v1 hierarchy)', async () => {
    const want = execFileSync('stat', ['-fc', '%T', '/sys/fs/cgroup'], { encoding: 'utf8' }).trim();
    expect(await realSystem.cgroupFsType()).toBe(want);
  });

  const withConfig = testOnHost(existsSync('/proc/config.gz'), 'the kernel has no /proc/config.gz');
  withConfig('kernelConfig reads /proc/config.gz, unzipped, as zcat does', async () => {
    const got = await realSystem.kernelConfig();
    expect('text' in got && got.text).toBe(execFileSync('zcat', ['/proc/config.gz'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  });

  const noInitSystem = testOnHost(!existsSync('/run/systemd/system') && !process.env.TSADM_SERVICE_MANAGER, 'an init system (systemd) or TSADM_SERVICE_MANAGER is present');
  noInitSystem('without an init system or TSADM_SERVICE_MANAGER, services are not checked (kubeadm\'s warning)', async () => {
    expect(await realSystem.service('kubelet')).toEqual({ error: 'no supported init system detected, skipping checking for services' });
  });
});

test('/proc/swaps: the active areas, the header skipped (the one reading for preflight\'s Swap and the swap phase)', () => {
  expect(activeSwaps('Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swap.img                               file\t\t2097148\t\t0\t\t-2\n')).toEqual(['/swap.img']);
  expect(activeSwaps('Filename\tType\tSize\tUsed\tPriority\n')).toEqual([]);
});

describe('unixSocketAnswers (preflight\'s CRI check) on a real unix socket', () => {
  let dir: string;
  let server: net.Server;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-sock-'));
    server = net.createServer((c) => c.end());
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'cri.sock'), resolve));
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a listening socket answers; a missing one does not', async () => {
    expect(await unixSocketAnswers(path.join(dir, 'cri.sock'))).toBe(true);
    expect(await unixSocketAnswers(path.join(dir, 'missing.sock'))).toBe(false);
  });

  test('a process busy past the timeout right after connecting still sees the connection it made (timers run before I/O callbacks)', async () => {
    const answered = unixSocketAnswers(path.join(dir, 'cri.sock'), 200);
    const start = Date.now();
    while (Date.now() - start < 500) { /* the event loop held, as on a loaded machine */ }
    expect(await answered).toBe(true);
  });
});

describe('module presence (moduleEvidence, moduleShows)', () => {
  const shows = (name: string, files: Record<string, string>): Promise<boolean> =>
    moduleShows(name, moduleEvidence(name, '6.1.0-13-amd64'), (p) => Promise.resolve(p in files), (p) => Promise.resolve(files[p]));

  test('a module counts when loaded (/sys/module), listed in modules.builtin, or, built in without either (CONFIG_BR_NETFILTER=y, no /lib/modules), when what it provides is there', async () => {
    const none = { '/proc/filesystems': 'nodev\tproc\n\text4\n' };
    expect(await shows('overlay', none)).toBe(false);
    expect(await shows('br_netfilter', none)).toBe(false);
    expect(await shows('br_netfilter', { '/sys/module/br_netfilter': '' })).toBe(true);
    expect(await shows('br_netfilter', { '/lib/modules/6.1.0-13-amd64/modules.builtin': 'kernel/net/bridge/br_netfilter.ko\n' })).toBe(true);
    // modules.builtin of another kernel release does not count.
    expect(await shows('br_netfilter', { '/lib/modules/5.10.0-1-amd64/modules.builtin': 'kernel/net/bridge/br_netfilter.ko\n' })).toBe(false);
    const provided = { '/proc/filesystems': 'nodev\tproc\nnodev\toverlay\n', '/proc/sys/net/bridge/bridge-nf-call-iptables': '1\n' };
    expect(await shows('overlay', provided)).toBe(true);
    expect(await shows('br_netfilter', provided)).toBe(true);
    // "overlayfs2" is not the overlay type.
    expect(await shows('overlay', { '/proc/filesystems': 'nodev\toverlayfs2\n' })).toBe(false);
  });

  test('the real machine answers for a module it certainly lacks', async () => {
    expect(await realSystem.moduleLoaded('tsadm_no_such_module')).toBe(false);
  });
});
