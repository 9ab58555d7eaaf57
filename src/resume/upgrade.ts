import { exitCheckOf } from '../verify/exit-check.js';
import type { UpgradeCtx } from '../phases/upgrade/context.js';
import { startResumableRun, type ResumeSession } from './session.js';

/**
 * Resume for `tsadm upgrade apply` (full runs that change the machine; not dry runs, not single
 * phases): a phase's inputs are the resolved upgrade configuration (the target version in it),
 * and its exit check is the phase's own or "running it again would change nothing".
 */
export async function startUpgradeResume(ctx: UpgradeCtx, o: { readonly resume: boolean; readonly single: boolean }): Promise<ResumeSession<UpgradeCtx> | undefined> {
  if (o.single || ctx.dryRun || ctx.command !== 'apply') return undefined;
  return startResumableRun(ctx, {
    command: 'upgrade apply',
    resume: o.resume,
    inputs: (c) => ({ cfg: c.cfg }),
    verify: (path, phase, c) => exitCheckOf(path, phase)?.(c),
    startOver: 'running "tsadm upgrade apply" again repeats every phase (each is idempotent)',
  });
}
