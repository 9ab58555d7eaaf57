import { TsadmError, errorMessage, isTsadmError } from '../errors.js';
import type { FileRecord, Host } from '../host/host.js';
import type { PhaseLogger } from '../log/logger.js';
import { flatten, type Phase, type PhasePath } from './phase.js';
import { computeSelection } from './selection.js';

export interface RunOptions {
  /** Paths to run (with descendants); empty = all. */
  readonly filter: readonly string[];
  readonly skip: readonly string[];
}

/**
 * Seams around each leaf (resume uses them): `skip` may give a reason to not run a phase (it is
 * reported as skipped with that reason); `finished` hears how each phase that ran ended, with
 * the files it wrote.
 */
export interface PhaseHooks<C> {
  skip?(path: PhasePath, phase: Phase<C>, ctx: C): Promise<string | undefined>;
  finished?(path: PhasePath, phase: Phase<C>, ctx: C, result: { readonly status: 'ok' | 'failed'; readonly writes: readonly FileRecord[] }): Promise<void>;
}

export interface RunContext {
  readonly log: PhaseLogger;
  /** When given, every file a phase wrote is reported as a `file` event after the phase. */
  readonly host?: Pick<Host, 'writes' | 'dryRun'>;
}

/**
 * Runs the selected phases of a tree in order. A parent whose skipIf gives a reason skips its
 * whole subtree. A failure is wrapped once with the phase path and stops the run.
 */
export async function runPhases<C extends RunContext>(tree: readonly Phase<C>[], ctx: C, options: RunOptions & { readonly hooks?: PhaseHooks<C> }): Promise<void> {
  const selection = computeSelection(tree, options.filter, options.skip);
  const skippedSubtrees: PhasePath[] = [];
  const log = ctx.log;
  const flat = flatten(tree);
  log.event({ type: 'plan', ts: log.ts(), phases: flat.filter((f) => f.phase.run && selection.get(f.path)).map((f) => f.path) });
  for (const { path, phase } of flat) {
    const parentSkipped = skippedSubtrees.find((root) => path.startsWith(`${root}/`));
    if (parentSkipped !== undefined) {
      if (phase.run && selection.get(path)) finish(log, path, 'skipped', 0, `parent phase ${parentSkipped} skipped`);
      continue;
    }
    if (!selection.get(path)) continue;
    const reason = await phase.skipIf?.(ctx);
    if (reason !== undefined) {
      skippedSubtrees.push(path);
      finish(log, path, 'skipped', 0, reason);
      continue;
    }
    if (!phase.run) continue;
    const hookReason = await options.hooks?.skip?.(path, phase, ctx);
    if (hookReason !== undefined) {
      finish(log, path, 'skipped', 0, hookReason);
      continue;
    }
    const started = Date.now();
    const writesBefore = ctx.host?.writes.length ?? 0;
    log.phase = path;
    log.event({ type: 'phase-start', phase: path, ts: log.ts() });
    try {
      await phase.run(ctx);
    } catch (err) {
      finish(log, path, 'failed', Date.now() - started);
      log.phase = undefined;
      await options.hooks?.finished?.(path, phase, ctx, { status: 'failed', writes: ctx.host?.writes.slice(writesBefore) ?? [] });
      throw wrapPhaseError(path, err);
    }
    reportWrites(ctx, writesBefore);
    finish(log, path, 'ok', Date.now() - started);
    log.phase = undefined;
    await options.hooks?.finished?.(path, phase, ctx, { status: 'ok', writes: ctx.host?.writes.slice(writesBefore) ?? [] });
  }
}

function reportWrites(ctx: RunContext, from: number): void {
  const host = ctx.host;
  if (!host) return;
  for (const w of host.writes.slice(from)) {
    ctx.log.event({
      type: 'file', ts: ctx.log.ts(), path: w.path, mode: `0${w.mode.toString(8)}`, kind: w.kind, sha256: w.sha256,
      unchanged: w.unchanged, dryRun: host.dryRun, ...(ctx.log.phase !== undefined ? { phase: ctx.log.phase } : {}),
    });
  }
}

function finish(log: PhaseLogger, phase: string, status: 'ok' | 'failed' | 'skipped', durationMs: number, reason?: string): void {
  log.event({ type: 'phase-finish', phase, ts: log.ts(), durationMs, status, ...(reason ? { reason } : {}) });
}

/** "error execution phase certs/apiserver: <cause>", keeping the code and hint of the cause. */
function wrapPhaseError(path: string, err: unknown): TsadmError {
  if (isTsadmError(err)) {
    if (err.message.startsWith('error execution phase')) return err;
    return new TsadmError(err.code, `error execution phase ${path}: ${err.message}`, {
      cause: err,
      details: err.details,
      ...(err.hint !== undefined ? { hint: err.hint } : {}),
    });
  }
  return new TsadmError('E_INTERNAL', `error execution phase ${path}: ${errorMessage(err)}`, { cause: err });
}
