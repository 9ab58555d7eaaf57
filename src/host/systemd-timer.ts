/**
 * A systemd timer and the oneshot service it starts (pure rendering). Used by
 * `tsadm etcd snapshot schedule`; generic, so other periodic tsadm jobs can share it.
 */
export interface TimerUnitSpec {
  /** Unit base name: `<name>.service` and `<name>.timer`. */
  readonly name: string;
  readonly description: string;
  /** One command line per ExecStart= (a oneshot service runs them in order, stopping at the first failure). */
  readonly execStart: readonly string[];
  /** systemd calendar expression (OnCalendar=), e.g. `*-*-* 00/12:00:00`. */
  readonly onCalendar?: string;
  /** Or a monotonic period after the last run (OnUnitActiveSec=, with OnBootSec= the same). */
  readonly onUnitActiveSec?: string;
  /** RandomizedDelaySec= (spreads machines that share a schedule). */
  readonly randomizedDelaySec?: string;
  /** Persistent=: a run missed while the machine was off happens at the next boot (OnCalendar timers only). */
  readonly persistent?: boolean;
}

export interface TimerUnits {
  readonly service: string;
  readonly timer: string;
}

export function renderTimerUnits(spec: TimerUnitSpec): TimerUnits {
  if ((spec.onCalendar === undefined) === (spec.onUnitActiveSec === undefined)) {
    throw new Error('renderTimerUnits: give exactly one of onCalendar and onUnitActiveSec');
  }
  for (const line of [spec.name, spec.description, ...spec.execStart, spec.onCalendar ?? '', spec.onUnitActiveSec ?? '', spec.randomizedDelaySec ?? '']) {
    if (/[\n\r]/.test(line)) throw new Error('renderTimerUnits: a unit setting cannot span lines');
  }
  const service = [
    '[Unit]',
    `Description=${spec.description}`,
    '',
    '[Service]',
    'Type=oneshot',
    ...spec.execStart.map((c) => `ExecStart=${c}`),
    '',
  ].join('\n');
  const timer = [
    '[Unit]',
    `Description=${spec.description} (timer)`,
    '',
    '[Timer]',
    ...(spec.onCalendar !== undefined ? [`OnCalendar=${spec.onCalendar}`] : [`OnBootSec=${spec.onUnitActiveSec}`, `OnUnitActiveSec=${spec.onUnitActiveSec}`]),
    ...(spec.randomizedDelaySec !== undefined ? [`RandomizedDelaySec=${spec.randomizedDelaySec}`] : []),
    ...(spec.persistent === true ? ['Persistent=true'] : []),
    `Unit=${spec.name}.service`,
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
  return { service, timer };
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
