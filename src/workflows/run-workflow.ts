import type { FlagValues } from '../flags.js';
import type { BaseCtx } from '../run/context.js';
import { reportDryRun } from '../run/dry-run-report.js';
import type { CommandEnv, Runtime, RuntimeOptions } from '../run/runtime.js';
import { runCommand } from './run-command.js';

/** What differs between init, join and reset; runWorkflow does the rest the same way for all three. */
export interface WorkflowRun<Cfg, C extends BaseCtx> {
  /** The command named in the result event. */
  readonly command: string;
  readonly runtime: Omit<RuntimeOptions, 'dryRun' | 'startTime'>;
  /**
   * Reads and resolves the configuration. It runs before the runtime chooses its seams because
   * the configuration's `dryRun` (v1beta4) chooses them as --dry-run does; a failure is reported
   * like any other, through the runtime's reporter.
   */
  resolveConfig(now: Date): Promise<Cfg>;
  /** The configuration's dryRun (--dry-run already folded in: the flag wins, as in kubeadm). */
  dryRunOf(cfg: Cfg): boolean;
  buildContext(rt: Runtime, cfg: Cfg): Promise<C>;
  /** Runs the phases; resolves the result event's data. */
  run(ctx: C, rt: Runtime): Promise<Record<string, unknown>>;
}

/**
 * The skeleton every workflow command shares: the configuration first, then, in runCommand's
 * runtime (seams, reporter, machine lock; one result event; everything closed whatever happened),
 * the context, the phases and the dry-run summary.
 */
export async function runWorkflow<Cfg, C extends BaseCtx>(w: WorkflowRun<Cfg, C>, flags: FlagValues, env: CommandEnv): Promise<void> {
  const startTime = new Date();
  const config = await w.resolveConfig(startTime).then((cfg) => ({ cfg }), (error: unknown) => ({ error }));
  const runtime = { ...w.runtime, startTime, dryRun: 'cfg' in config && w.dryRunOf(config.cfg) };
  await runCommand({ command: w.command, env, args: flags, runtime }, async (rt) => {
    if (!('cfg' in config)) throw config.error;
    const ctx = await w.buildContext(rt, config.cfg);
    const data = await w.run(ctx, rt);
    if (rt.dryRun) reportDryRun(rt.host, rt.log);
    return data;
  });
}
