import { exitCheckOf } from '../verify/exit-check.js';
import type { InitCtx } from '../run/context.js';
import { startResumableRun, type ResumeSession } from './session.js';

/**
 * Resume for `tsadm init` (full runs that change the machine; not dry runs, not single phases):
 * a phase's inputs are the resolved configuration and init's options, and its exit check is the
 * one `tsadm check` runs.
 */
export async function startInitResume(ctx: InitCtx, o: { readonly resume: boolean; readonly single: boolean }): Promise<ResumeSession<InitCtx> | undefined> {
  if (o.single || ctx.dryRun) return undefined;
  return startResumableRun(ctx, {
    command: 'init',
    resume: o.resume,
    inputs: (c) => ({ cfg: c.cfg, options: c.options }),
    verify: (path, phase, c) => exitCheckOf(path, phase)?.(c),
  });
}
