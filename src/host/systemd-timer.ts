/**
 * A systemd timer and the oneshot service it starts, rendered as unit file text (pure). Used by
 * `tsadm certs auto-renew enable`; generic, so any periodic tsadm job can have one. The unit
 * keys are systemd's (systemd.timer(5), systemd.service(5)):
 * - OnCalendar= (wall clock, e.g. "daily") or OnUnitActiveSec= (interval since the last start);
 * - RandomizedDelaySec= spreads the machines of a cluster apart, so they do not all start at the
 *   same moment (their jobs still serialize themselves through the Lease);
 * - Persistent=true (OnCalendar only) runs a start missed while the machine was off at the next boot;
 * - the service is Type=oneshot: the timer starts it, it runs to the end, and its exit status
 *   is what `systemctl status` shows.
 */
import { TsadmError } from '../errors.js';

export interface TimerUnitSpec {
  /** Unit base name: "<name>.service" and "<name>.timer". */
  readonly name: string;
  readonly description: string;
  /** The command line of the service (absolute program path first). */
  readonly execStart: string;
  /** A calendar expression ("daily", "*-*-* 03:00:00"); or give onUnitActiveSec. */
  readonly onCalendar?: string;
  /** An interval ("24h") counted from the last start; or give onCalendar. */
  readonly onUnitActiveSec?: string;
  /** Up to this many seconds of random delay before each start. */
  readonly randomizedDelaySec?: number;
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
  for (const [k, v] of Object.entries({ description: spec.description, execStart: spec.execStart, onCalendar: spec.onCalendar ?? '', onUnitActiveSec: spec.onUnitActiveSec ?? '' })) {
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
    `ExecStart=${spec.execStart}`,
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
