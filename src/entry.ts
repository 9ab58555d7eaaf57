import { main } from './main.js';
import { processIO } from './cli/io.js';
import { EXIT_INTERRUPTED, errorMessage } from './errors.js';

// The executable's entry (bundled to dist/tsadm.mjs). Interrupts exit with 130 as kubeadm does.
const io = processIO();
const onSignal = (): void => process.exit(EXIT_INTERRUPTED);
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`tsadm: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
