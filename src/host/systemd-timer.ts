/**
 * A systemd timer and the oneshot service it starts, rendered as unit file text (pure). One
 * renderer for every periodic tsadm job: `tsadm certs auto-renew enable` and `tsadm etcd snapshot
 * schedule`. The unit keys are systemd's (systemd.timer(5), systemd.service(5)):
 * - OnCalendar= (wall clock, e.g. "daily") or OnUnitActiveSec= (interval since the last start);
 * - RandomizedDelaySec= spreads the machines of a cluster apart, so they do not all start at the
 *   same moment (jobs that must not overlap still serialize themselves through a Lease);
 * - Persistent=true (OnCalendar only) runs a start missed while the machine was off at the next boot;
 * - the service is Type=oneshot: the timer starts it, it runs its ExecStart= lines in order to the
 *   end (stopping at the first failure), and its exit status is what `systemctl status` shows.
 */
import { TsadmError } from '../errors.js';

export interface TimerUnitSpec {
  /** Unit base name: "<name>.service" and "<name>.timer". */
  readonly name: string;
  readonly description: string;
  /** The command line(s) of the service (absolute program path first), one ExecStart= each. */
  readonly execStart: string | readonly string[];
  /** A calendar expression ("daily", "*-*-* 00/12:00:00"); or give onUnitActiveSec. */
  readonly onCalendar?: string;
  /** An interval ("24h") counted from the last start; or give onCalendar. */
  readonly onUnitActiveSec?: string;
  /** Random delay before each start: seconds, or a systemd time span ("15min"). */
  readonly randomizedDelaySec?: number | string;
  readonly persistent?: boolean;
  /** Documentation= URLs or man pages. */
  readonly documentation?: readonly string[];
}

export interface TimerUnits {
  readonly serviceName: string;
  readonly timerName: string;
  readonly service: string;
  readonly timer: string;
}

const SAFE_NAME = /^[A-Za-z0-9:_.@-]+$/;

export function renderTimerUnits(spec: TimerUnitSpec): TimerUnits {
  if (!SAFE_NAME.test(spec.name)) throw new TsadmError('E_INTERNAL', `invalid systemd unit name "${spec.name}"`);
  if ((spec.onCalendar === undefined) === (spec.onUnitActiveSec === undefined)) {
    throw new TsadmError('E_INTERNAL', 'a timer needs exactly one of onCalendar and onUnitActiveSec');
  }
  const execStart = typeof spec.execStart === 'string' ? [spec.execStart] : spec.execStart;
  const lines: Record<string, string> = {
    description: spec.description, onCalendar: spec.onCalendar ?? '', onUnitActiveSec: spec.onUnitActiveSec ?? '',
    randomizedDelaySec: String(spec.randomizedDelaySec ?? ''), ...Object.fromEntries(execStart.map((c, i) => [`execStart[${i}]`, c])),
  };
  for (const [k, v] of Object.entries(lines)) {
    if (/[\n\r]/.test(v)) throw new TsadmError('E_USAGE', `the ${k} of a systemd unit cannot span lines`, { hint: 'remove the line break' });
  }
  const docs = (spec.documentation ?? []).length > 0 ? [`Documentation=${(spec.documentation ?? []).join(' ')}`] : [];
  const serviceName = `${spec.name}.service`;
  const timerName = `${spec.name}.timer`;
  const service = [
    '[Unit]',
    `Description=${spec.description}`,
    ...docs,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=oneshot',
    ...execStart.map((c) => `ExecStart=${c}`),
    '',
  ].join('\n');
  const timer = [
    '[Unit]',
    `Description=${spec.description} (timer)`,
    ...docs,
    '',
    '[Timer]',
    ...(spec.onCalendar !== undefined ? [`OnCalendar=${spec.onCalendar}`] : []),
    // OnUnitActiveSec counts from the last start; OnBootSec gives the first one after boot.
    ...(spec.onUnitActiveSec !== undefined ? [`OnBootSec=${spec.onUnitActiveSec}`, `OnUnitActiveSec=${spec.onUnitActiveSec}`] : []),
    ...(spec.randomizedDelaySec !== undefined ? [`RandomizedDelaySec=${spec.randomizedDelaySec}`] : []),
    ...(spec.persistent !== undefined ? [`Persistent=${spec.persistent ? 'true' : 'false'}`] : []),
    `Unit=${serviceName}`,
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
  return { serviceName, timerName, service, timer };
}

/**
 * `--every` as a systemd calendar expression, for periods that divide a day evenly (so the runs
 * keep their times of day and Persistent= can catch up a missed one): 15m, 30m, 1h, 6h, 12h, 24h/1d.
 * Undefined for any other period.
 */
export function everyToOnCalendar(every: string): string | undefined {
  const m = /^(\d+)(m|h|d)$/.exec(every.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (n <= 0) return undefined;
  if (m[2] === 'm' && 60 % n === 0) return n === 60 ? '*-*-* *:00:00' : `*-*-* *:00/${n}:00`;
  if (m[2] === 'h' && 24 % n === 0) return n === 24 ? '*-*-* 00:00:00' : `*-*-* 00/${n}:00:00`;
  if ((m[2] === 'd' && n === 1)) return '*-*-* 00:00:00';
  return undefined;
}

/** systemd's quoting of one ExecStart= argument (double quotes when it has spaces or quotes). */
export function systemdQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `"${arg.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '$$$$').replace(/%/g, '%%')}"`;
}
