import { TsadmError, errorMessage, isTsadmError } from '../errors.js';
import type { PhaseLogger } from '../log/logger.js';
import { flatten, type Phase, type PhasePath } from './phase.js';
import { computeSelection } from './selection.js';

export interface RunOptions {
  /** Paths to run (with descendants); empty = all. */
  readonly filter: readonly string[];
  readonly skip: readonly string[];
}

export interface RunContext {
  readonly log: PhaseLogger;
}

/**
 * Runs the selected phases of a tree in order. A parent whose skipIf gives a reason skips its
 * whole subtree. A failure is wrapped once with the phase path and stops the run.
 */
export async function runPhases<C extends RunContext>(tree: readonly Phase<C>[], ctx: C, options: RunOptions): Promise<void> {
  const selection = computeSelection(tree, options.filter, options.skip);
  const skippedSubtrees: PhasePath[] = [];
  const log = ctx.log;
  for (const flat of flatten(tree)) {
    const { path, phase } = flat;
    if (skippedSubtrees.some((root) => path.startsWith(`${root}/`))) continue;
    if (!selection.get(path)) {
      if (phase.run) finish(log, path, 'skipped', 0, options.skip.length > 0 ? 'skipped by --skip-phases' : 'not selected');
      continue;
    }
    const reason = await phase.skipIf?.(ctx);
    if (reason !== undefined) {
      skippedSubtrees.push(path);
      finish(log, path, 'skipped', 0, reason);
      continue;
    }
    if (!phase.run) continue;
    const started = Date.now();
    log.phase = path;
    log.event({ type: 'phase-start', phase: path, ts: log.ts() });
    try {
      await phase.run(ctx);
    } catch (err) {
      finish(log, path, 'failed', Date.now() - started);
      log.phase = undefined;
      throw wrapPhaseError(path, err);
    }
    finish(log, path, 'ok', Date.now() - started);
    log.phase = undefined;
  }
}

function finish(log: PhaseLogger, phase: string, status: 'ok' | 'failed' | 'skipped', durationMs: number, reason?: string): void {
  log.event({ type: 'phase-finish', phase, ts: log.ts(), durationMs, status, ...(reason ? { reason } : {}) });
}

/** "error execution phase certs/apiserver: <cause>", keeping the code and hint of the cause. */
export function wrapPhaseError(path: string, err: unknown): TsadmError {
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
