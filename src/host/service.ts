import type { Host, ServiceAction, ServiceResult } from './host.js';
import { detectInitSystem } from './init-system.js';

/**
 * How tsadm (re)starts the kubelet. On a systemd host: `systemctl <action> <unit>`. Elsewhere
 * (containers, the e2e harness) the program named by TSADM_SERVICE_MANAGER is run as
 * `$TSADM_SERVICE_MANAGER <action> <unit>` (exit 0 = success / active). Without either, the
 * action is reported as not done and the caller warns, as kubeadm does when systemctl fails.
 */
export async function runService(host: Host, action: ServiceAction, unit: string): Promise<ServiceResult> {
  const init = detectInitSystem();
  if (init.kind === 'manager') {
    const result = await host.exec(init.program, [action, unit]);
    return { ok: result.exitCode === 0, via: '$TSADM_SERVICE_MANAGER', message: (result.stderr || result.stdout).trim() };
  }
  if (init.kind === 'systemd') {
    const result = await host.exec('systemctl', action === 'daemon-reload' ? [action] : [action, unit]);
    return { ok: result.exitCode === 0, via: 'systemctl', message: (result.stderr || result.stdout).trim() };
  }
  return { ok: false, via: 'none', message: 'no systemd on this host and TSADM_SERVICE_MANAGER is not set' };
}
