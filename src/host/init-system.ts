/**
 * Which init system runs this machine: the one answer for every service action (src/host/service.ts)
 * and every question about a unit (src/host/system-probe.ts). `$TSADM_SERVICE_MANAGER` when set
 * (hosts without systemd: containers, the e2e harness), systemd when it runs, else none.
 * Deliberately the real machine, never --rootfs: the running init system is the host's.
 */
import { existsSync } from 'node:fs';

export type InitSystem =
  | { readonly kind: 'manager'; readonly program: string }
  | { readonly kind: 'systemd' }
  | { readonly kind: 'none' };

/** kubeadm's warning when no init system answers (initsystem.GetInitSystem's error, as ServiceCheck words it). */
export const NO_INIT_SYSTEM = 'no supported init system detected, skipping checking for services';

/** systemd's own test that it is PID 1 (sd_booted(3)): /run/systemd/system exists. */
const SYSTEMD_RUNNING = '/run/systemd/system';

export function detectInitSystem(
  env: NodeJS.ProcessEnv = process.env,
  systemdRunning: () => boolean = () => existsSync(SYSTEMD_RUNNING),
): InitSystem {
  const program = env.TSADM_SERVICE_MANAGER;
  if (program) return { kind: 'manager', program };
  return systemdRunning() ? { kind: 'systemd' } : { kind: 'none' };
}
