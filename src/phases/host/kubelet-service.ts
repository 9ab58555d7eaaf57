/**
 * The `kubelet-service` host leaf: the kubelet's systemd unit and kubeadm's 10-kubeadm.conf
 * drop-in as the v1.20 deb packages install them (unless a package did), then enabled.
 */
import type { CheckFinding } from '../../engine/phase.js';
import type { RunningSystem } from '../../host/running-system.js';
import type { BaseCtx } from '../../run/context.js';
import { serviceKubeletCheck } from '../preflight/checks.js';
import type { HostPrepInput } from './input.js';
import { PREFIX, firstExisting, preflightFindings, readText, writeDropIn, type HostLeaf } from './leaf.js';
import { KUBEADM_DROPIN_FILE, KUBELET_UNIT_FILE, PACKAGED_KUBEADM_DROPINS, PACKAGED_KUBELET_UNITS, renderKubeadmDropIn, renderKubeletUnit } from './render.js';

/** Writes a unit file unless a user's different one is there (kept with a warning; replaced with --override-host-settings). */
async function writeUnitFile(ctx: BaseCtx, hostPath: string, desired: string, description: string, override: boolean): Promise<boolean> {
  const existing = await readText(ctx.host, hostPath);
  if (existing !== undefined && existing !== desired && !override) {
    ctx.log.warn(`Keeping ${hostPath}: it differs from the one kubeadm's packages install (--override-host-settings replaces it)`, { prefix: PREFIX });
    return false;
  }
  return writeDropIn(ctx, hostPath, desired, description, () => 'it differs', override);
}

async function kubeletService(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  let changed = false;
  const packagedUnit = await firstExisting(ctx.host, PACKAGED_KUBELET_UNITS);
  if (packagedUnit) ctx.log.info(`The kubelet unit is installed by a package (${packagedUnit})`, { prefix: PREFIX, verbosity: 1 });
  else changed = await writeUnitFile(ctx, KUBELET_UNIT_FILE, renderKubeletUnit(), 'kubelet systemd unit', input.override) || changed;
  const packagedDropIn = await firstExisting(ctx.host, PACKAGED_KUBEADM_DROPINS);
  if (packagedDropIn) ctx.log.info(`kubeadm's drop-in is installed by a package (${packagedDropIn})`, { prefix: PREFIX, verbosity: 1 });
  else changed = await writeUnitFile(ctx, KUBEADM_DROPIN_FILE, renderKubeadmDropIn(), "kubeadm's kubelet drop-in", input.override) || changed;
  if (!(await ctx.host.stat('/usr/bin/kubelet'))) ctx.log.warn('/usr/bin/kubelet does not exist: the unit starts /usr/bin/kubelet; install the kubelet there', { prefix: PREFIX });
  if (!sys.live) return void ctx.log.info('--rootfs: systemd of that root reads the units at its next start; enable the kubelet there (systemctl --root <dir> enable kubelet)', { prefix: PREFIX });
  if (changed) {
    const r = await sys.service('daemon-reload', 'kubelet');
    if (!r.ok) ctx.log.warn(`unable to reload systemd: ${r.message ?? r.via}`, { prefix: PREFIX });
  }
  // The init system's own answer (the one preflight's Service-Kubelet check reads), not a guess
  // from systemd's symlink: a unit enabled another way, or a host without systemd, is judged as
  // its init system judges it. With no init system the enable below warns, as kubeadm does.
  const facts = await sys.probe.service('kubelet');
  if ('error' in facts || !facts.enabled) {
    ctx.log.info('Enabling the kubelet service', { prefix: PREFIX });
    const r = await sys.service('enable', 'kubelet');
    if (!r.ok) ctx.log.warn(`unable to enable the kubelet service: ${r.message ?? r.via}`, { prefix: PREFIX });
  }
}

async function kubeletServiceLive(ctx: BaseCtx, _input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  // Preflight's Service-Kubelet check: the init system's word on the unit; it only warns.
  return preflightFindings(ctx, sys, [[serviceKubeletCheck(), 'kubelet service is enabled']]);
}

export const kubeletServiceLeaf: HostLeaf = {
  name: 'kubelet-service',
  summary: "Install the kubelet's systemd unit and kubeadm's 10-kubeadm.conf drop-in",
  description: `Write ${KUBELET_UNIT_FILE} and ${KUBEADM_DROPIN_FILE} as the v1.20 deb packages install them, unless a package installed them; reload systemd and enable the kubelet.`,
  flags: [],
  run: kubeletService,
  live: kubeletServiceLive,
};
