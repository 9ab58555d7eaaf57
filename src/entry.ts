import { processIO } from './cli/io.js';
import { plainSnapshotSave } from './cli/plain-snapshot-save.js';
import { EXIT_INTERRUPTED, errorMessage } from './errors.js';
import { fastPathOutput } from './fast-path.js';

// The executable's entry (bundled to dist/tsadm.mjs). Interrupts exit with 130 as kubeadm does.
// The CLI itself is a separate chunk, loaded unless the fast path answers (src/fast-path.ts).
const argv = process.argv.slice(2);
const fast = fastPathOutput(argv);
if (fast !== undefined) {
  process.stdout.write(fast);
} else {
  const io = processIO();
  const onSignal = (): void => process.exit(EXIT_INTERRUPTED);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // A plain `etcd snapshot save` (a backup job) skips loading the command-line parser and every
  // other command (src/cli/plain-snapshot-save.ts); anything else is main()'s.
  const plainSave = plainSnapshotSave(argv);
  (plainSave !== undefined
    ? import('./commands/etcd-snapshot-save.js').then(({ runPlainSave }) => runPlainSave(plainSave, io))
    : import('./main.js').then(({ main }) => main(argv, io)))
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
