/**
 * The `sysctl` host leaf: IP forwarding and bridged traffic through iptables, in a drop-in read
 * at boot and set now; another sysctl file that sets them otherwise is reported.
 */
import type { CheckFinding } from '../../engine/phase.js';
import { TsadmError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import { sysctlPath, type RunningSystem } from '../../host/running-system.js';
import type { BaseCtx } from '../../run/context.js';
import { fileContent } from '../preflight/checks.js';
import type { HostPrepInput } from './input.js';
import { PREFIX, conflictError, preflightFindings, readText, writeDropIn, type HostLeaf } from './leaf.js';
import { HOST_SYSCTLS, SYSCTL_CONF, SYSCTL_DIRS, SYSCTL_FILE, dropInState, renderSysctlConf, sysctlConflicts, sysctlFileMissing, type SysctlSource } from './render.js';

/** Every file `sysctl --system` reads, as the host has them now. */
async function sysctlSources(host: Host): Promise<SysctlSource[]> {
  const out: SysctlSource[] = [];
  for (const dir of SYSCTL_DIRS) {
    for (const name of await host.readdir(dir)) {
      if (!name.endsWith('.conf')) continue;
      const text = await readText(host, `${dir}/${name}`).catch(() => undefined);
      if (text !== undefined) out.push({ path: `${dir}/${name}`, text });
    }
  }
  const conf = await readText(host, SYSCTL_CONF);
  if (conf !== undefined) out.push({ path: SYSCTL_CONF, text: conf });
  return out;
}

async function sysctl(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  const found = await sysctlSources(ctx.host);
  const desired = renderSysctlConf();
  const ours = found.find((f) => f.path === SYSCTL_FILE);
  const state = dropInState(ours?.text, desired, sysctlFileMissing, input.override);
  if (state.action === 'conflict') throw conflictError(SYSCTL_FILE, state.detail);
  // The files as they will be: tsadm's k8s.conf in place of a replaced or missing one.
  const after = state.action === 'write' ? [...found.filter((f) => f.path !== SYSCTL_FILE), { path: SYSCTL_FILE, text: desired }] : found;
  const conflicts = sysctlConflicts(after);
  const winning = conflicts.filter((c) => c.winsAtBoot);
  if (winning.length > 0 && !input.override) {
    throw new TsadmError('E_CONFLICT', `${winning.map((c) => `${c.file} sets ${c.key}=${c.value}`).join('; ')}, applied after ${SYSCTL_FILE} (wanted ${winning.map((c) => `${c.key}=${c.want}`).join(', ')}); tsadm does not edit it`, {
      hint: 'change that setting yourself, or pass --override-host-settings to set tsadm\'s values now anyway (your file still wins at the next boot)',
    });
  }
  for (const c of conflicts) {
    ctx.log.warn(c.winsAtBoot
      ? `${c.file} sets ${c.key}=${c.value} and wins at boot; setting ${c.key}=${c.want} now only (--override-host-settings)`
      : `${c.file} sets ${c.key}=${c.value}; ${SYSCTL_FILE} is applied after it and sets ${c.want}`, { prefix: PREFIX });
  }
  await writeDropIn(ctx, SYSCTL_FILE, desired, 'sysctls applied at boot', sysctlFileMissing, input.override);
  if (!sys.live) return void ctx.log.info('--rootfs: the sysctls apply at the next boot of that root, not to the running kernel', { prefix: PREFIX });
  for (const [key, want] of HOST_SYSCTLS) {
    const now = await sys.sysctl(key);
    if (now === want) continue;
    ctx.log.info(`Setting ${key}=${want} (was ${now ?? 'absent'})`, { prefix: PREFIX });
    await sys.setSysctl(key, want);
  }
}

async function sysctlLive(ctx: BaseCtx, _input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  // Preflight's FileContent check (FileContent--proc-sys-net-ipv4-ip_forward), for each key.
  return preflightFindings(ctx, sys, HOST_SYSCTLS.map(([key, want]) => [fileContent(sysctlPath(key), want), `${key} = ${want}`] as const));
}

export const sysctlLeaf: HostLeaf = {
  name: 'sysctl',
  summary: 'Enable IP forwarding and bridged traffic through iptables',
  description: `Write ${SYSCTL_FILE} (${HOST_SYSCTLS.map(([k, v]) => `${k}=${v}`).join(', ')}) and set the keys whose live value differs (sysctl -w). A conflicting setting in another sysctl file is reported.`,
  flags: [],
  run: sysctl,
  live: sysctlLive,
};
