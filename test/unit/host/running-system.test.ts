/**
 * The running system's readings on a host whose files are given here: modules through the machine's
 * probe (its evidence is tested in system-probe.test.ts). Under --rootfs nothing is live.
 */
import type { FileStat, Host } from '../../../src/host/host.js';
import { runningSystem, sysctlPath } from '../../../src/host/running-system.js';
import type { SystemProbe } from '../../../src/host/system-probe.js';

function hostWith(files: Record<string, string>, root = '/'): Host {
  const dir: FileStat = { isFile: false, isDirectory: true, isSymlink: false, isSocket: false, mode: 0o755, size: 0 };
  const file: FileStat = { ...dir, isFile: true, isDirectory: false, mode: 0o644 };
  const partial: Partial<Host> = {
    root,
    stat: (p) => Promise.resolve(p in files ? (files[p] === '<dir>' ? dir : file) : undefined),
    readFile: (p) => Promise.resolve(p in files && files[p] !== '<dir>' ? Buffer.from(files[p]!) : undefined),
  };
  return partial as Host;
}

test('modules are the probe\'s answer (the one reading preflight makes too)', async () => {
  const asked: string[] = [];
  const probe = { moduleLoaded: (name: string) => { asked.push(name); return Promise.resolve(name === 'overlay'); } } as Partial<SystemProbe> as SystemProbe;
  const sys = runningSystem(hostWith({}), probe);
  expect(await sys.moduleLoaded('overlay')).toBe(true);
  expect(await sys.moduleLoaded('br_netfilter')).toBe(false);
  expect(asked).toEqual(['overlay', 'br_netfilter']);
  // Under --rootfs the probe is not asked at all.
  expect(await runningSystem(hostWith({}, '/tmp/image'), probe).moduleLoaded('overlay')).toBe(false);
  expect(asked).toHaveLength(2);
});

test('under --rootfs nothing is live: no module, sysctl or swap is read', async () => {
  // A probe that fails when asked anything: under --rootfs the running machine is not read.
  const untouched = new Proxy({}, { get: (_t, key) => () => { throw new Error(`probe asked ${String(key)}`); } }) as SystemProbe;
  const sys = runningSystem(hostWith({ '/sys/module/overlay': '<dir>', [sysctlPath('net.ipv4.ip_forward')]: '1\n', '/proc/swaps': 'x' }, '/tmp/image'), untouched);
  expect(sys.live).toBe(false);
  expect(await sys.moduleLoaded('overlay')).toBe(false);
  expect(await sys.sysctl('net.ipv4.ip_forward')).toBeUndefined();
  expect(await sys.procSwaps()).toBe('');
  expect(sysctlPath('net.bridge.bridge-nf-call-iptables')).toBe('/proc/sys/net/bridge/bridge-nf-call-iptables');
});
