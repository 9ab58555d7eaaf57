/**
 * The `host` phase group: from a bare OS to "ready for the kubelet" (docs/host.md). Each leaf is
 * its own file (binaries.ts, kernel-modules.ts, sysctl.ts, swap.ts, container-runtime.ts,
 * kubelet-service.ts, crictl.ts; what they share is leaf.ts); this file composes them. Each leaf
 * writes drop-in files through the host seam (atomic, --rootfs, --dry-run, --plan) and applies
 * them to the running system (src/host/running-system.ts: modprobe, sysctl -w, swapoff, service
 * actions). What the files say is src/phases/host/render.ts and containerd.ts (pure).
 *
 * Rules every leaf keeps:
 * - idempotent: identical files are not rewritten, and nothing is loaded, set or restarted when
 *   the running system already is as wanted;
 * - a user's own files are never edited: a file of the user's at one of tsadm's paths that already
 *   does the job is kept; one that does not is reported (E_CONFLICT) and the leaf writes nothing,
 *   unless --override-host-settings;
 * - nothing destructive without a flag: swap is turned off only with --swap-off, a running
 *   containerd is restarted only with --restart-container-runtime;
 * - under --rootfs only files are written: the running kernel and services are not that root's.
 *
 * The exit check of a leaf (`tsadm check host`) runs preflight's own checks where kubeadm has one
 * of that name (FileContent-…, Swap, CRI, Service-Kubelet, FileExisting-…) on the machine's one
 * probe (src/host/system-probe.ts), so it and preflight cannot disagree.
 */
import type { Phase, PhaseAt } from '../../engine/phase.js';
import type { FlagName } from '../../flags.js';
import type { Host } from '../../host/host.js';
import { runningSystem, type RunningSystem } from '../../host/running-system.js';
import type { SystemProbe } from '../../host/system-probe.js';
import type { BaseCtx } from '../../run/context.js';
import { wouldChange } from '../../verify/would-change.js';
import { binariesLeaf } from './binaries.js';
import { containerRuntimeLeaf } from './container-runtime.js';
import { crictlLeaf } from './crictl.js';
import type { HostPrepInput } from './input.js';
import { kernelModulesLeaf } from './kernel-modules.js';
import { kubeletServiceLeaf } from './kubelet-service.js';
import type { HostLeaf } from './leaf.js';
import { swapLeaf } from './swap.js';
import { sysctlLeaf } from './sysctl.js';

export interface HostPhaseOptions {
  /** The running system of a host over the run's probe (tests substitute a fake); runningSystem by default. */
  readonly system?: (host: Host, probe: SystemProbe) => RunningSystem;
}

/** The flags every host leaf reads (besides the configuration's). */
const HOST_FLAGS: readonly FlagName[] = ['config', 'kubernetes-version', 'image-repository', 'cri-socket', 'override-host-settings'];

/** The host leaves in kubeadm's install order. */
const LEAVES: readonly HostLeaf[] = [binariesLeaf, kernelModulesLeaf, sysctlLeaf, swapLeaf, containerRuntimeLeaf, kubeletServiceLeaf, crictlLeaf];

/**
 * The host leaves in order, for a context type whose configuration `inputOf` reads. `command` is
 * the command a leaf runs under, as its help example shows it: "tsadm prepare phase" (the leaves
 * of `tsadm prepare`), "tsadm init phase host", "tsadm join phase host".
 */
export function hostLeaves<C extends BaseCtx>(inputOf: (ctx: C) => Promise<HostPrepInput>, command: string, opts: HostPhaseOptions = {}): Phase<C>[] {
  const system = opts.system ?? runningSystem;
  return LEAVES.map((leaf): Phase<C> => ({
    name: leaf.name,
    summary: leaf.summary,
    description: leaf.description,
    example: `${command} ${leaf.name} --dry-run`,
    flags: [...HOST_FLAGS, ...leaf.flags],
    run: async (ctx) => leaf.run(ctx, await inputOf(ctx), system(ctx.host, ctx.system)),
    verify: async (ctx, self: PhaseAt<C>) => {
      const sys = system(ctx.host, ctx.system);
      const liveFindings = sys.live
        ? await leaf.live(ctx, await inputOf(ctx), sys)
        : [{ check: `${leaf.name}: running system`, ok: true, warning: true, detail: 'not checked: --rootfs is not the running system' }];
      return [...(await wouldChange(self.path, self.phase, ctx)), ...liveFindings];
    },
  }));
}

/**
 * The group as init and join show it: `tsadm init phase host …`, `tsadm join phase host …`
 * (`workflow` names which). Opt-in there: it skips itself unless `asked(ctx)` (--prepare-host, or
 * the phase run alone).
 */
export function hostPhase<C extends BaseCtx>(workflow: 'init' | 'join', inputOf: (ctx: C) => Promise<HostPrepInput>, asked: (ctx: C) => boolean, opts: HostPhaseOptions = {}): Phase<C> {
  return {
    skipIf: (ctx) => (asked(ctx) ? undefined : 'host preparation is opt-in: pass --prepare-host, or run "tsadm prepare" (/usr/share/doc/tsadm/docs/host.md)'),
    name: 'host',
    summary: 'Prepare this host for the kubelet (modules, sysctls, swap, containerd, kubelet unit, crictl)',
    description: `Prepare this host for the kubelet: the steps of kubeadm's install documentation, as drop-in files and their application. Runs with "${workflow} --prepare-host", alone as "tsadm prepare", or one step at a time here. Nothing destructive without a flag (--swap-off, --restart-container-runtime); a conflicting file of yours is reported, not overwritten (--override-host-settings). See /usr/share/doc/tsadm/docs/host.md.`,
    example: `tsadm ${workflow} phase host all --dry-run`,
    children: hostLeaves(inputOf, `tsadm ${workflow} phase host`, opts),
  };
}
