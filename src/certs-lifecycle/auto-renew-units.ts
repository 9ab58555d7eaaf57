/**
 * `tsadm certs auto-renew enable|disable|status`: the systemd timer that runs `tsadm certs renew
 * --auto` once a day (randomized by up to an hour so the control planes of a cluster do not all
 * start together, Persistent so a day missed while the machine was off is caught up at boot).
 * The units are written atomically through the host seam; systemd is driven through the service
 * seam (src/host/service.ts), and only on the running system: with --rootfs the units are
 * written under the root and nothing is started. `init` and `join --control-plane` run the same
 * enable as their opt-in `certs-auto-renew` phase (--certificate-auto-renew; src/phases/certs/auto-renew.ts).
 */
import type { Host } from '../host/host.js';
import { runningSystem } from '../host/running-system.js';
import type { SystemProbe } from '../host/system-probe.js';
import { renderTimerUnits, type TimerUnits } from '../host/systemd-timer.js';
import { unitProgram, type RunningTsadm } from '../host/unit-program.js';
import { reportDryRun } from '../run/dry-run-report.js';
import type { Logger } from '../log/events.js';
import type { Runtime } from '../run/runtime.js';
import { prefixed } from './context.js';

const AUTO_RENEW_UNIT = 'tsadm-certs-renew';
const SYSTEMD_DIR = '/etc/systemd/system';
const UNIT_MODE = 0o644;

function autoRenewUnits(o: { program: readonly string[]; within: string }): TimerUnits {
  return renderTimerUnits({
    name: AUTO_RENEW_UNIT,
    description: 'tsadm: renew the certificates of this control plane that expire soon',
    documentation: ['man:tsadm(1)'],
    execStart: `${o.program.join(' ')} certs renew --auto --within ${o.within}`,
    onCalendar: 'daily',
    randomizedDelaySec: 3600,
    persistent: true,
  });
}

export interface AutoRenewUnitOptions {
  /** The window the timer renews with (default 90d). */
  readonly within?: string;
  /** --tsadm-path: the tsadm the service runs (default: this one; src/host/unit-program.ts checks either). */
  readonly tsadmPath?: string;
  /** How this tsadm runs (tests; default: this process). */
  readonly running?: RunningTsadm;
}

/** The seams `enableAutoRenew` needs: a runtime's, or a phase context's (init/join --certificate-auto-renew). */
export interface AutoRenewSeams {
  readonly host: Host;
  readonly log: Pick<Logger, 'info' | 'warn'>;
  readonly dryRun: boolean;
  readonly system: SystemProbe;
}

const SERVICE_PATH = `${SYSTEMD_DIR}/${AUTO_RENEW_UNIT}.service`;
const TIMER_PATH = `${SYSTEMD_DIR}/${AUTO_RENEW_UNIT}.timer`;
const TIMER_NAME = `${AUTO_RENEW_UNIT}.timer`;

function serviceAction(host: Host, system: SystemProbe, log: Pick<Logger, 'warn'>) {
  const sys = runningSystem(host, system);
  return async (a: 'daemon-reload' | 'enable' | 'start' | 'stop' | 'disable', unit: string): Promise<boolean> => {
    const r = await sys.service(a, unit);
    if (!r.ok) log.warn(`systemctl ${a}${a === 'daemon-reload' ? '' : ` ${unit}`} was not done (${r.message || r.via}); run it yourself on the machine`);
    return r.ok;
  };
}

/**
 * `certs auto-renew enable`, and the `certs-auto-renew` phase of init and join: writes the two
 * units, then (on the running system) reloads systemd, enables and starts the timer. Idempotent:
 * when both files are already as they should be and the timer is active, nothing is written
 * and nothing is run; unchanged files with an inactive timer only enable and start it.
 * `prefix` is the "[prefix]" of its log lines (default: the runner's phase name).
 */
export async function enableAutoRenew(s: AutoRenewSeams, o: AutoRenewUnitOptions = {}, prefix?: string): Promise<void> {
  const log = prefix !== undefined ? prefixed(s.log, prefix) : s.log;
  // The program is checked before anything is written (a dry run refuses the same way).
  const program = await unitProgram(s.host, { unit: SERVICE_PATH, ...(o.tsadmPath !== undefined ? { tsadmPath: o.tsadmPath } : {}), ...(o.running ? { running: o.running } : {}) });
  const units = autoRenewUnits({ program: program.argv, within: o.within ?? '90d' });
  const sys = runningSystem(s.host, s.system);
  const service = serviceAction(s.host, s.system, log);
  const svc = await s.host.writeFile(SERVICE_PATH, units.service, { mode: UNIT_MODE, kind: 'config', description: `${units.serviceName} (runs tsadm certs renew --auto)` });
  const tmr = await s.host.writeFile(TIMER_PATH, units.timer, { mode: UNIT_MODE, kind: 'config', description: `${units.timerName} (daily)` });
  const changed = !svc.unchanged || !tmr.unchanged;
  if (sys.live) {
    if (!changed && (await sys.service('is-active', units.timerName)).ok) {
      log.info(`Automatic renewal is already on (${units.timerName} installed and active); nothing to do.`);
      return;
    }
    if ((!changed || (await service('daemon-reload', units.timerName))) && (await service('enable', units.timerName))) await service('start', units.timerName);
  } else {
    log.info(`--rootfs: the units are written under ${s.host.root}; nothing was started`);
  }
  log.info(`${s.dryRun ? 'Would turn' : 'Turned'} on automatic renewal: ${units.timerName} runs "tsadm certs renew --auto" daily (up to 1h later at random; a missed day runs at boot).`);
}

export async function runAutoRenewUnits(rt: Runtime, action: 'enable' | 'disable' | 'status', o: AutoRenewUnitOptions = {}): Promise<void> {
  const log = prefixed(rt.log, 'auto-renew');
  const sys = runningSystem(rt.host, rt.system);
  const service = serviceAction(rt.host, rt.system, log);

  if (action === 'status') {
    const [svc, tmr] = await Promise.all([rt.host.readFile(SERVICE_PATH), rt.host.readFile(TIMER_PATH)]);
    const installed = svc !== undefined && tmr !== undefined;
    const active = installed && sys.live ? (await sys.service('is-active', TIMER_NAME)).ok : false;
    const exec = /^ExecStart=(.*)$/m.exec(svc?.toString('utf8') ?? '')?.[1];
    rt.log.output(installed
      ? `${TIMER_NAME}: installed (${TIMER_PATH}), ${sys.live ? (active ? 'active' : 'not active') : 'activity not checked (--rootfs)'}; runs "${exec ?? '?'}" daily`
      : `${TIMER_NAME}: not installed (automatic renewal is off; "tsadm certs auto-renew enable" turns it on)`);
    return;
  }

  if (action === 'enable') {
    await enableAutoRenew(rt, o, 'auto-renew');
  } else {
    if (sys.live) {
      await service('stop', TIMER_NAME);
      await service('disable', TIMER_NAME);
    }
    await rt.host.remove(TIMER_PATH);
    await rt.host.remove(SERVICE_PATH);
    if (sys.live) await service('daemon-reload', TIMER_NAME);
    log.info(`${rt.dryRun ? 'Would turn' : 'Turned'} off automatic renewal (${TIMER_NAME} removed).`);
  }
  if (rt.dryRun) reportDryRun(rt.host, rt.log);
}
