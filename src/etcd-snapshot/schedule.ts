import { TsadmError } from '../errors.js';
import type { Host, ServiceResult } from '../host/host.js';
import { everyToOnCalendar, renderTimerUnits, systemdQuote, type TimerUnits } from '../host/systemd-timer.js';
import { unitProgram, type RunningTsadm } from '../host/unit-program.js';

/**
 * `tsadm etcd snapshot schedule`: a systemd timer that saves a snapshot and prunes the old ones
 * (k3s's default: every 12 h, keep 5). The unit files are written through the host seam
 * (atomic, 0644) and systemd is told through host.service (systemctl, or
 * $TSADM_SERVICE_MANAGER where there is no systemd).
 */
export const SNAPSHOT_UNIT = 'tsadm-etcd-snapshot';
const UNIT_DIR = '/etc/systemd/system';

export interface ScheduleSpec {
  /** The program and leading arguments that run tsadm: [tsadm], or [node, script] (src/host/unit-program.ts). */
  readonly tsadm: readonly string[];
  readonly every: string;
  readonly keep: number;
  readonly dir: string;
  readonly randomizedDelaySec?: string;
}

/** The two units (pure). */
export function snapshotTimerUnits(spec: ScheduleSpec): TimerUnits {
  const onCalendar = scheduleCalendar(spec);
  const cmd = (...args: string[]): string => [...spec.tsadm, ...args].map(systemdQuote).join(' ');
  return renderTimerUnits({
    name: SNAPSHOT_UNIT,
    description: `tsadm etcd snapshot every ${spec.every}, keeping ${spec.keep}`,
    execStart: [
      cmd('etcd', 'snapshot', 'save', '--dir', spec.dir),
      cmd('etcd', 'snapshot', 'prune', '--dir', spec.dir, '--keep', String(spec.keep)),
    ],
    onCalendar,
    randomizedDelaySec: spec.randomizedDelaySec ?? defaultDelay(spec.every),
    persistent: true,
  });
}

/** systemd's OnCalendar= for --every; usage errors for a period or --keep tsadm cannot schedule. */
function scheduleCalendar(spec: Pick<ScheduleSpec, 'every' | 'keep'>): string {
  const onCalendar = everyToOnCalendar(spec.every);
  if (onCalendar === undefined) {
    throw new TsadmError('E_USAGE', `--every ${spec.every} is not a period tsadm can schedule`, { hint: 'use a period that divides a day: 15m, 30m, 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h' });
  }
  if (!Number.isInteger(spec.keep) || spec.keep < 1) throw new TsadmError('E_USAGE', `--keep must be a whole number of at least 1 (got ${spec.keep})`);
  return onCalendar;
}

/** A tenth of the period, at most 15 minutes: the control planes of one cluster do not all snapshot at once. */
function defaultDelay(every: string): string {
  const m = /^(\d+)(m|h|d)$/.exec(every.trim());
  const minutes = m ? Number(m[1]) * (m[2] === 'm' ? 1 : m[2] === 'h' ? 60 : 1440) : 60;
  return `${Math.min(15, Math.max(1, Math.floor(minutes / 10)))}min`;
}

export interface ScheduleResult {
  readonly files: readonly string[];
  readonly service: readonly ServiceResult[];
}

export type ScheduleRequest = Omit<ScheduleSpec, 'tsadm'> & {
  /** --tsadm-path, when given. */
  readonly tsadmPath?: string;
  /** How this tsadm runs (tests; default: this process). */
  readonly running?: RunningTsadm;
};

/**
 * Writes both units and enables the timer. The program the service runs as root is resolved and
 * checked first (src/host/unit-program.ts): a program root does not control is refused before
 * anything is written, in a dry run too.
 */
export async function installSnapshotTimer(host: Host, request: ScheduleRequest): Promise<ScheduleResult & { readonly spec: ScheduleSpec }> {
  const service = `${UNIT_DIR}/${SNAPSHOT_UNIT}.service`;
  const timer = `${UNIT_DIR}/${SNAPSHOT_UNIT}.timer`;
  const { tsadmPath, running, ...rest } = request;
  scheduleCalendar(rest); // a bad --every or --keep is reported before the program is looked at
  const program = await unitProgram(host, { unit: service, ...(tsadmPath !== undefined ? { tsadmPath } : {}), ...(running ? { running } : {}) });
  const spec: ScheduleSpec = { ...rest, tsadm: program.argv };
  const units = snapshotTimerUnits(spec);
  await host.assertWritable(service);
  await host.assertWritable(timer);
  await host.writeFile(service, units.service, { mode: 0o644, kind: 'config', description: 'etcd snapshot service unit' });
  await host.writeFile(timer, units.timer, { mode: 0o644, kind: 'config', description: 'etcd snapshot timer unit' });
  const results = [
    await host.service('daemon-reload', `${SNAPSHOT_UNIT}.timer`),
    await host.service('enable', `${SNAPSHOT_UNIT}.timer`),
    await host.service('start', `${SNAPSHOT_UNIT}.timer`),
  ];
  return { files: [service, timer], service: results, spec };
}

/** Stops and disables the timer and removes both units; nothing to do when they are not there. */
export async function removeSnapshotTimer(host: Host): Promise<ScheduleResult> {
  const files = [`${UNIT_DIR}/${SNAPSHOT_UNIT}.timer`, `${UNIT_DIR}/${SNAPSHOT_UNIT}.service`];
  const present = [];
  for (const f of files) if (await host.stat(f)) present.push(f);
  if (present.length === 0) return { files: [], service: [] };
  const results = [
    await host.service('stop', `${SNAPSHOT_UNIT}.timer`),
    await host.service('disable', `${SNAPSHOT_UNIT}.timer`),
  ];
  for (const f of present) await host.remove(f);
  results.push(await host.service('daemon-reload', `${SNAPSHOT_UNIT}.timer`));
  return { files: present, service: results };
}
