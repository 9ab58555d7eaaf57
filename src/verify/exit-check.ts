import type { CheckFinding, Phase, PhaseAt } from '../engine/phase.js';
import type { Host } from '../host/host.js';
import type { ApiSeam } from '../kube/seam.js';
import type { PhaseLogger } from '../log/logger.js';
import type { HealthTarget } from '../health/wait-loop.js';
import { checkRunning } from './health.js';
import { wouldChange } from './would-change.js';

type ExitCheck<C> = (ctx: C) => Promise<readonly CheckFinding[]>;

/**
 * The exit check of a phase, as the phase declares it (the one notion `tsadm check` and
 * `init --resume` share): none for a parent or a phase that declares `noExitCheck`; its own
 * `verify` when it has one; otherwise "running it again would change nothing"
 * (src/verify/would-change.ts).
 */
export function exitCheckOf<C extends { readonly host: Host; readonly api: ApiSeam; readonly log: PhaseLogger; readonly dryRun: boolean }>(path: string, phase: Phase<C>): ExitCheck<C> | undefined {
  if (!phase.run || phase.noExitCheck) return undefined;
  const self: PhaseAt<C> = { path, phase };
  if (phase.verify) return (ctx) => phase.verify!(ctx, self);
  return (ctx) => wouldChange(path, phase, ctx);
}

/**
 * The exit check of a phase that leaves a component running (a static pod, the kubelet):
 * running the phase again would change nothing, and the component answers on its health
 * endpoint (src/verify/health.ts).
 */
export function unchangedAndAnswering<C extends { readonly host: Host; readonly api: ApiSeam; readonly log: PhaseLogger; readonly dryRun: boolean }>(
  target: (ctx: C) => HealthTarget,
): NonNullable<Phase<C>['verify']> {
  return async (ctx, self) => [...(await wouldChange(self.path, self.phase, ctx)), ...(await checkRunning(ctx, target(ctx)))];
}
