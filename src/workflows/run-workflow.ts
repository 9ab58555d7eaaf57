import type { FlagValues } from '../flags.js';
import { errorData } from '../log/events.js';
import type { BaseCtx } from '../run/context.js';
import { reportDryRun } from '../run/dry-run-report.js';
import { createRuntime, type CommandEnv, type Runtime, type RuntimeOptions } from '../run/runtime.js';

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
 * The skeleton every workflow command shares: configuration, runtime (seams, reporter, machine
 * lock), context, phases, the dry-run summary, one result event (ok or the error), and, whatever
 * happened, every API client and the reporter (with the lock) closed.
 */
export async function runWorkflow<Cfg, C extends BaseCtx>(w: WorkflowRun<Cfg, C>, flags: FlagValues, env: CommandEnv): Promise<void> {
  const startTime = new Date();
  const config = await w.resolveConfig(startTime).then((cfg) => ({ cfg }), (error: unknown) => ({ error }));
  const rt = await createRuntime(flags, env, { ...w.runtime, startTime, dryRun: 'cfg' in config && w.dryRunOf(config.cfg) });
  try {
    if (!('cfg' in config)) throw config.error;
    const ctx = await w.buildContext(rt, config.cfg);
    const data = await w.run(ctx, rt);
    if (rt.dryRun) reportDryRun(rt.host, rt.log);
    rt.log.event({ type: 'result', ts: rt.log.ts(), command: w.command, ok: true, data });
  } catch (err) {
    rt.log.event({ type: 'result', ts: rt.log.ts(), command: w.command, ok: false, error: errorData(err) });
    throw err;
  } finally {
    rt.api.close();
    await rt.reporter.close();
  }
}
