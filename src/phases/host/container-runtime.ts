/**
 * The `container-runtime` host leaf: containerd's cgroup driver and sandbox image, in a drop-in
 * its config.toml imports (what the file says is containerd.ts, pure); containerd started when
 * stopped, restarted only with --restart-container-runtime.
 */
import type { CheckFinding } from '../../engine/phase.js';
import { TsadmError } from '../../errors.js';
import type { RunningSystem } from '../../host/running-system.js';
import type { BaseCtx } from '../../run/context.js';
import { criCheck } from '../preflight/checks.js';
import { CONTAINERD_CONFIG, CONTAINERD_CONFIG_BACKUP, CONTAINERD_DROPIN, planContainerd } from './containerd.js';
import type { HostPrepInput } from './input.js';
import { FILE_MODE, PREFIX, preflightFindings, readText, write, type HostLeaf } from './leaf.js';
import { DPKG_STATUS, isPackagedConffile } from './render.js';

const isContainerd = (criSocket: string): boolean => criSocket.includes('containerd');

async function containerRuntime(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  if (!isContainerd(input.criSocket)) {
    ctx.log.info(`The CRI socket ${input.criSocket} is not containerd's; configure that runtime yourself: cgroup driver ${input.cgroupDriver}, sandbox image ${input.pauseImage}`, { prefix: PREFIX });
    return;
  }
  const foundBytes = await ctx.host.readFile(CONTAINERD_CONFIG);
  const found = foundBytes?.toString('utf8');
  const base = {
    configToml: found,
    containerdMajor: await sys.containerdMajor(),
    systemdCgroup: input.cgroupDriver === 'systemd',
    sandboxImage: input.pauseImage,
    override: input.override,
  };
  let plan = planContainerd(base);
  // Whether config.toml is its package's matters only when it stops the plan: dpkg's status
  // (megabytes) is read then, not on every run of a prepared host.
  if (plan.kind === 'conflict' && foundBytes !== undefined) {
    const dpkgStatus = await readText(ctx.host, DPKG_STATUS);
    if (dpkgStatus !== undefined && isPackagedConffile(dpkgStatus, CONTAINERD_CONFIG, foundBytes)) plan = planContainerd({ ...base, packaged: true });
  }
  if (plan.kind === 'conflict') {
    throw new TsadmError('E_CONFLICT', `${plan.detail}; tsadm does not edit it`, {
      hint: `set SystemdCgroup = ${String(input.cgroupDriver === 'systemd')} and the sandbox image ${input.pauseImage} there yourself, or pass --override-host-settings (tsadm then keeps your file at ${CONTAINERD_CONFIG_BACKUP} and writes one that imports its drop-in)`,
    });
  }
  if (plan.kind === 'in-place') return void ctx.log.info(`${CONTAINERD_CONFIG} already sets the cgroup driver and the sandbox image`, { prefix: PREFIX });
  for (const n of plan.notes) ctx.log.warn(n, { prefix: PREFIX });
  const targets = [CONTAINERD_DROPIN, ...(plan.configToml !== undefined ? [CONTAINERD_CONFIG] : []), ...(plan.backup ? [CONTAINERD_CONFIG_BACKUP] : [])];
  for (const t of targets) await ctx.host.assertWritable(t);
  if (plan.backup && found !== undefined && !(await ctx.host.stat(CONTAINERD_CONFIG_BACKUP))) {
    await ctx.host.writeFile(CONTAINERD_CONFIG_BACKUP, found, { mode: FILE_MODE, kind: 'config', description: 'containerd config.toml as found (kept by --override-host-settings)' });
  }
  const records = [await write(ctx, CONTAINERD_DROPIN, plan.dropIn, "containerd drop-in: the kubelet's cgroup driver and the sandbox image")];
  if (plan.configToml !== undefined) records.push(await write(ctx, CONTAINERD_CONFIG, plan.configToml, `containerd config.toml importing ${CONTAINERD_DROPIN}'s directory`));
  const changed = records.filter((r) => !r.unchanged);
  for (const r of changed) ctx.log.info(`Writing ${r.path}`, { prefix: PREFIX });
  if (changed.length === 0) return void ctx.log.info(`${CONTAINERD_DROPIN} is in place`, { prefix: PREFIX, verbosity: 1 });
  if (!sys.live) return void ctx.log.info('--rootfs: containerd of that root reads the new configuration when it starts', { prefix: PREFIX });
  const running = (await sys.service('is-active', 'containerd')).ok;
  if (!running) {
    ctx.log.info('Starting containerd', { prefix: PREFIX });
    const r = await sys.service('start', 'containerd');
    if (!r.ok) ctx.log.warn(`unable to start containerd: ${r.message ?? r.via}`, { prefix: PREFIX });
    return;
  }
  if (!input.restartRuntime) {
    ctx.log.warn('containerd is running with its previous configuration: restart it (systemctl restart containerd) or run again with --restart-container-runtime; running containers keep running, but the kubelet needs the new settings', { prefix: PREFIX });
    return;
  }
  ctx.log.info('Restarting containerd (--restart-container-runtime)', { prefix: PREFIX });
  const r = await sys.service('restart', 'containerd');
  if (!r.ok) ctx.log.warn(`unable to restart containerd: ${r.message ?? r.via}`, { prefix: PREFIX });
}

async function containerRuntimeLive(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  // Preflight's CRI check: the socket accepts a connection.
  return preflightFindings(ctx, sys, [[criCheck(input.criSocket), `${input.criSocket} answers`]]);
}

export const containerRuntimeLeaf: HostLeaf = {
  name: 'container-runtime',
  summary: "Configure containerd's cgroup driver and sandbox image",
  description: `Write ${CONTAINERD_DROPIN} (SystemdCgroup matching the kubelet's cgroupDriver, the target version's pause image), imported by ${CONTAINERD_CONFIG}; start containerd when stopped, restart it when running only with --restart-container-runtime.`,
  flags: ['restart-container-runtime'],
  run: containerRuntime,
  live: containerRuntimeLive,
};
