import { processIO } from './cli/io.js';
import { EXIT_INTERRUPTED, errorMessage } from './errors.js';
import { fastPathOutput } from './fast-path.js';
import { quietIpServerNameWarning } from './log/node-warnings.js';

// The executable's entry (bundled to dist/tsadm.mjs). Interrupts exit with 130 as kubeadm does.
// The CLI itself is a separate chunk, loaded unless the fast path answers (src/fast-path.ts).
const argv = process.argv.slice(2);
const fast = fastPathOutput(argv);
if (fast !== undefined) {
  process.stdout.write(fast);
} else {
  quietIpServerNameWarning();
  const io = processIO();
  const onSignal = (): void => process.exit(EXIT_INTERRUPTED);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  import('./main.js')
    .then(({ main }) => main(argv, io))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err: unknown) => {
        process.stderr.write(`tsadm: ${errorMessage(err)}\n`);
        process.exitCode = 1;
      },
    );
}
