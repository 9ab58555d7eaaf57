/** The `kernel-modules` host leaf: overlay and br_netfilter, loaded now and at every boot. */
import type { CheckFinding } from '../../engine/phase.js';
import type { RunningSystem } from '../../host/running-system.js';
import type { BaseCtx } from '../../run/context.js';
import type { HostPrepInput } from './input.js';
import { PREFIX, finding, writeDropIn, type HostLeaf } from './leaf.js';
import { HOST_MODULES, MODULES_LOAD_FILE, modulesLoadMissing, renderModulesLoad } from './render.js';

async function kernelModules(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  await writeDropIn(ctx, MODULES_LOAD_FILE, renderModulesLoad(), 'kernel modules loaded at boot', modulesLoadMissing, input.override);
  if (!sys.live) return void ctx.log.info('--rootfs: modules are loaded at the next boot of that root, not into the running kernel', { prefix: PREFIX });
  for (const m of HOST_MODULES) {
    if (await sys.moduleLoaded(m)) continue;
    ctx.log.info(`Loading kernel module ${m}`, { prefix: PREFIX });
    await sys.modprobe(m);
  }
}

async function kernelModulesLive(_ctx: BaseCtx, _input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  // kubeadm has no check of its own for the modules; without br_netfilter its FileContent check of the bridge sysctl fails.
  for (const m of HOST_MODULES) out.push(finding(`KernelModule-${m}`, await sys.moduleLoaded(m), `module ${m} loaded or built in`));
  return out;
}

export const kernelModulesLeaf: HostLeaf = {
  name: 'kernel-modules',
  summary: 'Load overlay and br_netfilter, now and at boot',
  description: `Write ${MODULES_LOAD_FILE} (overlay, br_netfilter) and load the modules that are not loaded yet (modprobe).`,
  flags: [],
  run: kernelModules,
  live: kernelModulesLive,
};
