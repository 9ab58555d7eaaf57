/**
 * `tsadm certs approve-kubelet-serving enable|disable|status`: the approver as a systemd service
 * on a control plane, running `… --watch` (a kubelet waits for its serving certificate, so the
 * approver answers within one --interval rather than at the next timer start). Restart=always
 * brings it back after a crash or a control-plane upgrade; with several control planes each runs
 * one, and the Lease lock around each pass (src/csr-approval/pass.ts, PassGuard) keeps them from
 * acting at once. Unit keys: systemd.service(5), systemd.unit(5).
 */
import type { Host } from '../host/host.js';
import { unitProgram, type RunningTsadm } from '../host/unit-program.js';
import { TsadmError } from '../errors.js';

export const APPROVER_UNIT = 'tsadm-kubelet-serving-approver.service';
export const APPROVER_UNIT_PATH = `/etc/systemd/system/${APPROVER_UNIT}`;

export interface ApproverUnitSpec {
  /** The program and its leading arguments that run tsadm (e.g. "/usr/bin/tsadm", or node and bin/tsadm). */
  readonly tsadm: readonly string[];
  readonly kubeconfig: string;
  /** --interval, as given ("10s"). */
  readonly interval: string;
}

/** The unit file text (pure). */
export function renderApproverUnit(spec: ApproverUnitSpec): string {
  const args = [...spec.tsadm, 'certs', 'approve-kubelet-serving', '--watch', '--kubeconfig', spec.kubeconfig, '--interval', spec.interval];
  for (const a of args) {
    // systemd splits ExecStart= on whitespace and expands % and $: a path with those cannot be written as is.
    if (a === '' || /[\s"'\\%$;]/.test(a)) {
      throw new TsadmError('E_USAGE', `"${a}" cannot be written into a systemd ExecStart= line as it is`, { hint: 'use a path without spaces, quotes, "%", "$" or ";"' });
    }
  }
  return [
    '[Unit]',
    'Description=tsadm: approve kubelet serving certificates (kubernetes.io/kubelet-serving CSRs) that name only the node\'s own addresses',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    `ExecStart=${args.join(' ')}`,
    'Restart=always',
    'RestartSec=10',
    // tsadm exits 130 on SIGTERM (kubeadm's status for an interrupt): `systemctl stop` is no failure.
    'SuccessExitStatus=130',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

export interface UnitOutcome {
  /** Service manager steps that did not succeed (the caller warns, as kubeadm does when systemctl fails). */
  readonly failed: readonly string[];
}

export type ApproverRequest = Omit<ApproverUnitSpec, 'tsadm'> & {
  /** --tsadm-path, when given. */
  readonly tsadmPath?: string;
  /** How this tsadm runs (tests; default: this process). */
  readonly running?: RunningTsadm;
};

/**
 * Writes the unit, reloads the manager, enables and (re)starts the service. The program the
 * service runs as root is resolved and checked first (src/host/unit-program.ts): one root does
 * not control is refused before anything is written, in a dry run too.
 */
export async function enableApprover(host: Host, request: ApproverRequest): Promise<UnitOutcome & { readonly unchanged: boolean; readonly execStart: readonly string[] }> {
  const { tsadmPath, running, ...rest } = request;
  const spec: ApproverUnitSpec = { ...rest, tsadm: [] };
  renderApproverUnit(spec); // a kubeconfig path systemd cannot take is a usage error before the program is looked at
  const program = await unitProgram(host, { unit: APPROVER_UNIT_PATH, ...(tsadmPath !== undefined ? { tsadmPath } : {}), ...(running ? { running } : {}) });
  const file = await host.writeFile(APPROVER_UNIT_PATH, renderApproverUnit({ ...spec, tsadm: program.argv }), { mode: 0o644, kind: 'config', description: 'kubelet serving certificate approver unit' });
  const failed: string[] = [];
  for (const action of ['daemon-reload', 'enable', file.unchanged ? 'start' : 'restart'] as const) {
    const r = await host.service(action, APPROVER_UNIT);
    if (!r.ok) failed.push(`${action} (${r.via}${r.message ? `: ${r.message}` : ''})`);
  }
  return { failed, unchanged: file.unchanged, execStart: program.argv };
}

/** Stops and disables the service and removes its unit file. */
export async function disableApprover(host: Host): Promise<UnitOutcome & { readonly removed: boolean }> {
  const present = (await host.stat(APPROVER_UNIT_PATH)) !== undefined;
  const failed: string[] = [];
  for (const action of ['stop', 'disable'] as const) {
    const r = await host.service(action, APPROVER_UNIT);
    if (!r.ok && present) failed.push(`${action} (${r.via}${r.message ? `: ${r.message}` : ''})`);
  }
  if (present) await host.remove(APPROVER_UNIT_PATH);
  const reload = await host.service('daemon-reload', APPROVER_UNIT);
  if (!reload.ok && present) failed.push(`daemon-reload (${reload.via})`);
  return { failed, removed: present };
}

export interface ApproverStatus {
  readonly installed: boolean;
  readonly active: boolean;
  /** The ExecStart= line of the installed unit. */
  readonly execStart?: string;
}

export async function approverStatus(host: Host): Promise<ApproverStatus> {
  const text = (await host.readFile(APPROVER_UNIT_PATH))?.toString('utf8');
  if (text === undefined) return { installed: false, active: false };
  const execStart = /^ExecStart=(.*)$/m.exec(text)?.[1];
  const active = (await host.service('is-active', APPROVER_UNIT)).ok;
  return { installed: true, active, ...(execStart !== undefined ? { execStart } : {}) };
}
