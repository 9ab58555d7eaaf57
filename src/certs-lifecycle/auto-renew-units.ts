/**
 * `tsadm certs auto-renew enable|disable|status`: the systemd timer that runs `tsadm certs renew
 * --auto` once a day (randomized by up to an hour so the control planes of a cluster do not all
 * start together, Persistent so a day missed while the machine was off is caught up at boot).
 * The units are written atomically through the host seam; systemd is driven through the service
 * seam (src/host/service.ts), and only on the running system: with --rootfs the units are
 * written under the root and nothing is started.
 */
import path from 'node:path';
import { TsadmError } from '../errors.js';
import { runningSystem } from '../host/running-system.js';
import { renderTimerUnits, type TimerUnits } from '../host/systemd-timer.js';
import { reportDryRun } from '../run/dry-run-report.js';
import type { Runtime } from '../run/runtime.js';
import { prefixed } from './context.js';

const AUTO_RENEW_UNIT = 'tsadm-certs-renew';
const SYSTEMD_DIR = '/etc/systemd/system';
const UNIT_MODE = 0o644;

/** The tsadm the service runs: the running executable (the single executable, or bin/tsadm). */
function currentTsadm(): string {
  const script = process.argv[1];
  return script && path.basename(script) === 'tsadm' ? path.resolve(script) : process.execPath;
}

function autoRenewUnits(o: { tsadm: string; within: string }): TimerUnits {
  if (/\s/.test(o.tsadm) || !o.tsadm.startsWith('/')) {
    throw new TsadmError('E_USAGE', `the tsadm executable for the timer must be an absolute path without spaces (got "${o.tsadm}")`, { hint: 'install tsadm as /usr/bin/tsadm (the Debian package does)' });
  }
  return renderTimerUnits({
    name: AUTO_RENEW_UNIT,
    description: 'tsadm: renew the certificates of this control plane that expire soon',
    documentation: ['man:tsadm(1)'],
    execStart: `${o.tsadm} certs renew --auto --within ${o.within}`,
    onCalendar: 'daily',
    randomizedDelaySec: 3600,
    persistent: true,
  });
}

export interface AutoRenewUnitOptions {
  /** The window the timer renews with (default 90d). */
  readonly within?: string;
  /** The tsadm the service runs (default: this one). */
  readonly tsadm?: string;
}

export async function runAutoRenewUnits(rt: Runtime, action: 'enable' | 'disable' | 'status', o: AutoRenewUnitOptions = {}): Promise<void> {
  const log = prefixed(rt.log, 'auto-renew');
  const units = autoRenewUnits({ tsadm: o.tsadm ?? currentTsadm(), within: o.within ?? '90d' });
  const servicePath = `${SYSTEMD_DIR}/${units.serviceName}`;
  const timerPath = `${SYSTEMD_DIR}/${units.timerName}`;
  const sys = runningSystem(rt.host);
  const service = async (a: 'daemon-reload' | 'enable' | 'start' | 'stop' | 'disable', unit: string): Promise<boolean> => {
    const r = await sys.service(a, unit);
    if (!r.ok) log.warn(`systemctl ${a}${a === 'daemon-reload' ? '' : ` ${unit}`} was not done (${r.message || r.via}); run it yourself on the machine`);
    return r.ok;
  };

  if (action === 'status') {
    const [svc, tmr] = await Promise.all([rt.host.readFile(servicePath), rt.host.readFile(timerPath)]);
    const installed = svc !== undefined && tmr !== undefined;
    const active = installed && sys.live ? (await sys.service('is-active', units.timerName)).ok : false;
    const exec = /^ExecStart=(.*)$/m.exec(svc?.toString('utf8') ?? '')?.[1];
    rt.log.output(installed
      ? `${units.timerName}: installed (${timerPath}), ${sys.live ? (active ? 'active' : 'not active') : 'activity not checked (--rootfs)'}; runs "${exec ?? '?'}" daily`
      : `${units.timerName}: not installed (automatic renewal is off; "tsadm certs auto-renew enable" turns it on)`);
    return;
  }

  if (action === 'enable') {
    await rt.host.writeFile(servicePath, units.service, { mode: UNIT_MODE, kind: 'config', description: `${units.serviceName} (runs tsadm certs renew --auto)` });
    await rt.host.writeFile(timerPath, units.timer, { mode: UNIT_MODE, kind: 'config', description: `${units.timerName} (daily)` });
    if (sys.live) {
      if ((await service('daemon-reload', units.timerName)) && (await service('enable', units.timerName))) await service('start', units.timerName);
    } else {
      log.info(`--rootfs: the units are written under ${rt.host.root}; nothing was started`);
    }
    log.info(`${rt.dryRun ? 'Would turn' : 'Turned'} on automatic renewal: ${units.timerName} runs "tsadm certs renew --auto" daily (up to 1h later at random; a missed day runs at boot).`);
  } else {
    if (sys.live) {
      await service('stop', units.timerName);
      await service('disable', units.timerName);
    }
    await rt.host.remove(timerPath);
    await rt.host.remove(servicePath);
    if (sys.live) await service('daemon-reload', units.timerName);
    log.info(`${rt.dryRun ? 'Would turn' : 'Turned'} off automatic renewal (${units.timerName} removed).`);
  }
  if (rt.dryRun) reportDryRun(rt.host, rt.log);
}
