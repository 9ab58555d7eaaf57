import type { CliIO } from './io.js';
import { TsadmError, errorMessage, isTsadmError } from '../errors.js';

/**
 * How a failed command ends, for main() and the launcher's direct paths alike: `error: <one
 * line>`, the details, `To fix: <hint>`, a bug note for internal errors, the stack from -v 2; the
 * error's exit code (docs: README, "Exit codes").
 */
export function reportError(err: unknown, io: CliIO, verbosity: number): number {
  const error = isTsadmError(err) ? err : new TsadmError('E_INTERNAL', errorMessage(err), { cause: err });
  io.stderr.write(`error: ${error.message}\n`);
  for (const line of error.details) if (line !== error.message) io.stderr.write(`  ${line}\n`);
  if (error.hint) io.stderr.write(`To fix: ${error.hint}\n`);
  if (error.code === 'E_INTERNAL') {
    io.stderr.write('This looks like a bug in tsadm; please report it with the output of the command run with -v 2.\n');
  }
  if (verbosity >= 2) {
    const cause = error.cause instanceof Error ? error.cause : error;
    io.stderr.write(`${cause.stack ?? ''}\n`);
  }
  return error.exitCode;
}
