import { buildCli, withHelpForNoArguments, withVersionFlag } from './cli/app.js';
import type { CliIO } from './cli/io.js';
import { reportError } from './cli/report-error.js';

/**
 * The entry point: parse, run, map errors to exit codes. The only place that exits the process;
 * everything below throws TsadmError.
 */
export async function main(given: readonly string[], io: CliIO): Promise<number> {
  const argv = withVersionFlag(withHelpForNoArguments(given));
  let verbosity = 0;
  const v = argv.findIndex((a) => a === '-v' || a === '--v' || a.startsWith('--v=') || a.startsWith('-v='));
  if (v >= 0) verbosity = Number((argv[v]?.includes('=') ? argv[v]?.split('=')[1] : argv[v + 1]) ?? 0) || 0;
  try {
    // The parse callback makes yargs hand over help/version text instead of printing it with
    // console.log, so it reaches io.stdout (in-process tests, --output json).
    let helpText = '';
    await (await buildCli(argv, io)).parseAsync([...argv], {}, (err: Error | undefined, _args: unknown, output: string) => {
      if (!err && output) helpText = output;
    });
    if (helpText) io.stdout.write(helpText.endsWith('\n') ? helpText : `${helpText}\n`);
    return 0;
  } catch (err) {
    return reportError(err, io, verbosity);
  }
}
