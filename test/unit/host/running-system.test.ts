/**
 * The running system's readings on a host whose files are given here: a module counts as present
 * when loaded (/sys/module), listed in modules.builtin, or — built in without either, as in this
 * CI machine's kernel (CONFIG_BR_NETFILTER=y, no /lib/modules) — when what it provides is there.
 * Under --rootfs nothing is live.
 */
import os from 'node:os';
import type { FileStat, Host } from '../../../src/host/host.js';
import { runningSystem, sysctlPath } from '../../../src/host/running-system.js';

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

test('modules: /sys/module, modules.builtin, or what a built-in module provides', async () => {
  const none = runningSystem(hostWith({ '/proc/filesystems': 'nodev\tproc\n\text4\n' }));
  expect(await none.moduleLoaded('overlay')).toBe(false);
  expect(await none.moduleLoaded('br_netfilter')).toBe(false);

  expect(await runningSystem(hostWith({ '/sys/module/br_netfilter': '<dir>' })).moduleLoaded('br_netfilter')).toBe(true);
  expect(await runningSystem(hostWith({ [`/lib/modules/${os.release()}/modules.builtin`]: 'kernel/net/bridge/br_netfilter.ko\n' })).moduleLoaded('br_netfilter')).toBe(true);
  const provided = runningSystem(hostWith({ '/proc/filesystems': 'nodev\tproc\nnodev\toverlay\n', '/proc/sys/net/bridge/bridge-nf-call-iptables': '1\n' }));
  expect(await provided.moduleLoaded('overlay')).toBe(true);
  expect(await provided.moduleLoaded('br_netfilter')).toBe(true);
  // "overlayfs" elsewhere is not the overlay type.
  expect(await runningSystem(hostWith({ '/proc/filesystems': 'nodev\toverlayfs2\n' })).moduleLoaded('overlay')).toBe(false);
});

test('under --rootfs nothing is live: no module, sysctl or swap is read', async () => {
  const sys = runningSystem(hostWith({ '/sys/module/overlay': '<dir>', [sysctlPath('net.ipv4.ip_forward')]: '1\n', '/proc/swaps': 'x' }, '/tmp/image'));
  expect(sys.live).toBe(false);
  expect(await sys.moduleLoaded('overlay')).toBe(false);
  expect(await sys.sysctl('net.ipv4.ip_forward')).toBeUndefined();
  expect(await sys.procSwaps()).toBe('');
  expect(sysctlPath('net.bridge.bridge-nf-call-iptables')).toBe('/proc/sys/net/bridge/bridge-nf-call-iptables');
});
