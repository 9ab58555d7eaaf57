import { TsadmError, errorMessage, isTsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { sha256Hex } from '../host/rooted-host.js';
import type { PhaseLogger } from '../log/logger.js';
import type { CheckFinding, Phase } from '../engine/phase.js';
import type { PhaseHooks } from '../engine/runner.js';
import { inputDigest } from './digest.js';
import { STATE_FILE, STATE_VERSION, readState, writeState, type PhaseRecord, type RunState } from './state.js';

export interface ResumeOptions<C> {
  /** "init" (the command name in messages and in the state file). */
  readonly command: string;
  /** --resume was given. */
  readonly resume: boolean;
  /** What a phase's result depends on (hashed with the phase path; secrets are left out). */
  inputs(ctx: C): unknown;
  /** The phase's exit check, if it has one. */
  verify(path: string, phase: Phase<C>, ctx: C): Promise<readonly CheckFinding[]> | undefined;
  readonly now?: () => Date;
  /** How to start over instead of resuming (default: "tsadm reset" starts over). */
  readonly startOver?: string;
}

export interface ResumeSession<C> {
  readonly hooks: PhaseHooks<C>;
  /** The run finished: nothing left to resume. */
  complete(): Promise<void>;
  /** The run failed: records where, and returns the error with how to resume or reset. */
  failed(err: unknown): Promise<unknown>;
}

type Ctx = { readonly host: Host; readonly log: PhaseLogger };

export async function startResumableRun<C extends Ctx>(ctx: C, o: ResumeOptions<C>): Promise<ResumeSession<C>> {
  const now = o.now ?? (() => new Date());
  const { host, log } = ctx;
  const previous = await readState(host);
  if (!o.resume && previous && previous.status !== 'completed' && previous.command === o.command && (await leftovers(host, previous)) > 0) {
    // Not a refusal: phases are idempotent, so running everything again converges (crash safety
    // relies on that); but the user should know the faster, safer way.
    log.warn(`a previous "tsadm ${o.command}" did not finish: ${stoppedAt(previous)}. Running every phase again; `
      + `"tsadm ${o.command} --resume" would keep what it completed and continue from there, ${o.startOver ?? '"tsadm reset" starts over'}`, { prefix: o.command });
  }
  const phases: Record<string, PhaseRecord> = o.resume && previous?.command === o.command ? { ...previous.phases } : {};
  if (o.resume) {
    const n = Object.keys(phases).length;
    log.info(n > 0 ? `Resuming: ${n} phases completed earlier (${STATE_FILE}, ${stoppedAt(previous!)})` : `Nothing to resume (no earlier run recorded in ${STATE_FILE}): running every phase`, { prefix: o.command });
  }
  let state: RunState = { version: STATE_VERSION, command: o.command, status: 'running', startedAt: now().toISOString(), updatedAt: now().toISOString(), phases };
  const save = async (patch: Partial<RunState>): Promise<void> => {
    state = { ...state, ...patch, updatedAt: now().toISOString() };
    await writeState(host, state);
  };
  await save({});
  /**
   * A phase done earlier is skipped on --resume when its inputs are the same, the files it left
   * are unchanged and its exit check (if any) passes; except a phase that declares it always
   * runs (its point is what it does at run time: wait, print the join command).
   */
  const hooks: PhaseHooks<C> = {
    async skip(path, phase, c) {
      const rec = state.phases[path];
      if (!o.resume || !rec || phase.noExitCheck === 'always-runs') return undefined;
      const why = await invalidReason(path, phase, c, rec);
      if (why) {
        log.info(`Running phase ${path} again: ${why}`, { prefix: 'resume' });
        return undefined;
      }
      return `completed in an earlier run (${rec.finishedAt}); inputs and results unchanged`;
    },
    async finished(path, _phase, c, result) {
      if (result.status !== 'ok') {
        state = { ...state, failedPhase: path };
        return;
      }
      // The last writer of a file answers for it: earlier phases stop checking a file rewritten later.
      const files = new Map(result.writes.map((w) => [w.path, w.sha256]));
      const others = Object.fromEntries(Object.entries(state.phases).filter(([p]) => p !== path).map(([p, r]) => [p, { ...r, files: r.files.filter((f) => !files.has(f.path)) }]));
      const rec: PhaseRecord = { digest: inputDigest(path, o.inputs(c)), finishedAt: now().toISOString(), files: [...files].map(([p, sha256]) => ({ path: p, sha256 })) };
      await save({ phases: { ...others, [path]: rec } });
    },
  };

  async function invalidReason(path: string, phase: Phase<C>, c: C, rec: PhaseRecord): Promise<string | undefined> {
    if (rec.digest !== inputDigest(path, o.inputs(c))) return 'its inputs (configuration, flags or version) changed';
    for (const f of rec.files) {
      const data = await host.readFile(f.path);
      if (!data) return `${f.path} is gone`;
      if (sha256Hex(data) !== f.sha256) return `${f.path} changed`;
    }
    const check = o.verify(path, phase, c);
    if (check) {
      const findings: readonly CheckFinding[] = await check.catch((err: unknown) => [{ check: path, ok: false, detail: errorMessage(err) }]);
      const failing = findings.filter((f) => !f.ok && !f.warning);
      if (failing.length > 0) return `its exit check fails (${failing[0]!.check}${failing[0]!.detail ? `: ${failing[0]!.detail}` : ''})`;
    }
    return undefined;
  }

  return {
    hooks,
    complete: () => save({ status: 'completed', failedPhase: undefined, error: undefined }),
    async failed(err) {
      await save({ status: 'failed', error: errorMessage(err) }).catch(() => undefined);
      if (!isTsadmError(err)) return err;
      const where = state.failedPhase ? `at phase ${state.failedPhase}` : 'before its first phase';
      return new TsadmError(err.code, err.message, {
        cause: err.cause ?? err,
        ...(err.hint !== undefined ? { hint: err.hint } : {}),
        details: [...err.details, `tsadm ${o.command} stopped ${where}. Once the cause is fixed: "tsadm ${o.command} --resume" continues from there, ${o.startOver ?? '"tsadm reset" starts over'}.`],
      });
    },
  };
}

function stoppedAt(s: RunState): string {
  if (s.status === 'completed') return `it completed at ${s.updatedAt}`;
  return s.status === 'failed' ? `it stopped at phase ${s.failedPhase ?? '(before the first phase)'} at ${s.updatedAt}` : `it was interrupted at ${s.updatedAt}${s.failedPhase ? ` in phase ${s.failedPhase}` : ''}`;
}

/** How many files of the recorded run are still there as it left them (0 after a reset: the state is stale). */
async function leftovers(host: Pick<Host, 'readFile'>, s: RunState): Promise<number> {
  let n = 0;
  for (const rec of Object.values(s.phases)) {
    for (const f of rec.files) {
      const data = await host.readFile(f.path);
      if (data && sha256Hex(data) === f.sha256) n++;
    }
  }
  return n;
}
