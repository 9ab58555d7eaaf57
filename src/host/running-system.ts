/**
 * The running kernel, as the `host` phases see and change it: loaded modules, sysctls, swap,
 * the installed containerd's version, and the commands that change them (modprobe, sysctl -w,
 * swapoff). Modules, sysctls, swap, the CRI socket and the init system are read through the
 * machine's one probe (src/host/system-probe.ts), the same readings preflight's checks make;
 * changes are mutating commands of the host, so a dry run lists them instead of running them.
 *
 * Only the machine's own root is live: under --rootfs the kernel running tsadm is not that
 * root's (an image being built, a mounted disk), so nothing is read from or done to it and the
 * phases write their files only.
 */
import { TsadmError } from '../errors.js';
import type { Host, ServiceAction, ServiceResult } from './host.js';
import { PROC_SWAPS, type SystemProbe } from './system-probe.js';

export interface RunningSystem {
  /** False under --rootfs: no live state, no commands. */
  readonly live: boolean;
  /** The machine's probe (read only when live): what preflight's checks read, for the host phases' exit checks. */
  readonly probe: SystemProbe;
  /** True when the module is loaded or built in (see moduleEvidence). */
  moduleLoaded(name: string): Promise<boolean>;
  /** The live value of a sysctl, or undefined when the kernel has no such key. */
  sysctl(key: string): Promise<string | undefined>;
  /** /proc/swaps as read ("" when absent). */
  procSwaps(): Promise<string>;
  /** The installed containerd's major version, undefined when unknown. */
  containerdMajor(): Promise<number | undefined>;
  modprobe(name: string): Promise<void>;
  setSysctl(key: string, value: string): Promise<void>;
  swapoff(): Promise<void>;
  /** A service action through the service seam (src/host/service.ts); not done when not live. */
  service(action: ServiceAction, unit: string): Promise<ServiceResult>;
}

/** /proc/sys/net/ipv4/ip_forward for net.ipv4.ip_forward. */
export function sysctlPath(key: string): string {
  return `/proc/sys/${key.replace(/\./g, '/')}`;
}

export function runningSystem(host: Host, probe: SystemProbe): RunningSystem {
  const live = host.root === '/';
  const run = async (command: string, args: readonly string[]): Promise<void> => {
    const r = await host.exec(command, args, { mutating: true, timeoutMs: 30_000 });
    if (r.exitCode !== 0) {
      throw new TsadmError('E_EXEC', `${[command, ...args].join(' ')} failed (exit ${r.exitCode}): ${(r.stderr || r.stdout).trim().split('\n')[0] ?? ''}`, {
        hint: 'run tsadm as root on the node itself; see /usr/share/doc/tsadm/docs/host.md',
      });
    }
  };
  return {
    live,
    probe,
    moduleLoaded: async (name) => live && (await probe.moduleLoaded(name)),
    sysctl: async (key) => (live ? (await probe.readProc(sysctlPath(key)))?.trim() : undefined),
    procSwaps: async () => (live ? (await probe.readProc(PROC_SWAPS)) ?? '' : ''),
    containerdMajor: async () => {
      if (!live) return undefined;
      const r = await host.exec('containerd', ['--version'], { timeoutMs: 10_000 }).catch(() => undefined);
      const m = r?.exitCode === 0 ? /\sv?(\d+)\.\d+\.\d+/.exec(r.stdout) : null;
      return m ? Number(m[1]) : undefined;
    },
    modprobe: (name) => run('modprobe', [name]),
    setSysctl: (key, value) => run('sysctl', ['-w', `${key}=${value}`]),
    swapoff: () => run('swapoff', ['-a']),
    service: async (action, unit) => (live ? host.service(action, unit) : { ok: false, via: 'none', message: '--rootfs: not the running system' }),
  };
}
