/**
 * The runtime flags of a command, as createRuntime (src/run/runtime.ts) takes them: `--dry-run`,
 * `--rootfs`, `-v`, `-o` and the plan flags. runCommand (src/workflows/run-command.ts) reads them
 * here, once, for every command and workflow, so a flag means the same on each of them.
 */
import { TsadmError } from '../errors.js';
import type { FlagValues } from '../flags.js';

/**
 * The runtime flags ARGV carries; a flag its command does not define is absent from argv and so
 * from the result. `output: false` leaves `-o` out, for commands whose `-o` is a print format
 * (check-expiration's table|json|yaml) rather than the event stream's text|json.
 */
export function runtimeFlagValues(argv: Readonly<Record<string, unknown>>, opts: { output: boolean }): FlagValues {
  const rootfs = argv.rootfs;
  if (rootfs !== undefined && typeof rootfs !== 'string') throw new TsadmError('E_USAGE', '--rootfs takes a path');
  return {
    ...(argv['dry-run'] === true ? { 'dry-run': true } : {}),
    ...(typeof rootfs === 'string' ? { rootfs } : {}),
    ...(typeof argv.v === 'number' ? { v: argv.v } : {}),
    ...(opts.output && typeof argv.output === 'string' ? { output: argv.output } : {}),
    ...planFlagValues(argv),
  };
}

/** The plan flags the user set (createRuntime makes the run a dry run that writes the plan). */
function planFlagValues(argv: Readonly<Record<string, unknown>>): FlagValues {
  return {
    ...(typeof argv.plan === 'string' ? { plan: argv.plan } : {}),
    ...(argv['plan-without-keys'] === true ? { 'plan-without-keys': true } : {}),
  };
}
