/**
 * The one skeleton every command runs in, the workflows (through runWorkflow) and the day-two
 * commands alike: the runtime flags read once (src/cli/runtime-flags.ts), the runtime opened
 * (seams, reporter, machine lock: src/run/runtime.ts), the handler run, one result event (ok with
 * the handler's data, or the error), and, whatever happened, every API client and the reporter
 * (with the lock and a --plan's file) closed. Errors are rethrown for main, which alone turns them
 * into a line and an exit code (src/cli/report-error.ts). No command opens or closes a runtime
 * itself (test/unit/workflows/run-command.test.ts scans src/ for that).
 *
 * It lives in the workflows layer, the lowest one allowed to build a runtime that the workflows
 * and the commands both sit on or above (docs/architecture.md, "Layers").
 */
import { runtimeFlagValues } from '../cli/runtime-flags.js';
import { errorData } from '../log/events.js';
import { createRuntime, type CommandEnv, type Runtime, type RuntimeOptions } from '../run/runtime.js';

type ResultData = Readonly<Record<string, unknown>>;

export interface CommandSpec {
  /**
   * The command the result event names ("certs renew"). Without it no result event is sent: the
   * commands whose output is what they print (token, kubeconfig user, certs check-expiration,
   * upgrade plan|diff) never sent one.
   */
  readonly command?: string;
  readonly env: CommandEnv;
  /** The parsed command line (yargs' argv, or a workflow's flag values): the runtime flags are read from it here. */
  readonly args: Readonly<Record<string, unknown>>;
  /**
   * Whether `-o` is the event stream's text|json (the default). False for the commands whose `-o`
   * is a print format (check-expiration's table|json|yaml, upgrade plan's documents).
   */
  readonly eventOutput?: boolean;
  readonly runtime?: RuntimeOptions;
  /** What a failed result event carries besides the error (check's findings so far). */
  readonly failureData?: () => ResultData;
  /** Said after an ok result event (apply's join command comes after the plan's result). */
  readonly afterResult?: (rt: Runtime, data: ResultData) => void;
}

export async function runCommand(spec: CommandSpec, handler: (rt: Runtime) => Promise<ResultData | void>): Promise<void> {
  const rt = await createRuntime(runtimeFlagValues(spec.args, { output: spec.eventOutput !== false }), spec.env, spec.runtime);
  try {
    const data = (await handler(rt)) ?? {};
    if (spec.command !== undefined) rt.log.event({ type: 'result', ts: rt.log.ts(), command: spec.command, ok: true, data });
    spec.afterResult?.(rt, data);
  } catch (err) {
    if (spec.command !== undefined) {
      const data = spec.failureData?.();
      rt.log.event({ type: 'result', ts: rt.log.ts(), command: spec.command, ok: false, ...(data ? { data } : {}), error: errorData(err) });
    }
    throw err;
  } finally {
    rt.api.close();
    await rt.reporter.close();
  }
}
