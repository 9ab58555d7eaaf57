/**
 * The runtime flags of the day-two commands that build their runtime themselves (certs, kubeconfig,
 * etcd snapshot, certs approve-kubelet-serving) rather than through a workflow's flag table:
 * `--dry-run`, `--rootfs`, `-v`, `-o` and the plan flags, as createRuntime takes them. One reader,
 * so a flag means the same on each of them.
 */
import { TsadmError } from '../errors.js';
import type { FlagValues } from '../flags.js';
import { planFlagValues } from './plan-flags.js';

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
