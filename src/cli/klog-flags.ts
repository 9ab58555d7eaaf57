/**
 * klog's flags as kubeadm 1.20 shows them under "Global Flags" (`kubeadm --help`): accepted on
 * every command, like -v, so scripts written for kubeadm keep working. Only --log-file and its
 * companions change anything here (src/log/log-file.ts says what each does). --log-file-secrets
 * is tsadm's own: the log file redacts tokens and certificate keys unless it is given.
 * The flags themselves are in the registry (src/flags.ts, `KLOG_FLAGS`).
 */
import type { Argv } from 'yargs';
import { TsadmError } from '../errors.js';
import type { LogFileSettings } from '../log/log-file.js';
import { KLOG_FLAGS, KLOG_GROUP } from '../flags.js';
import { addFlags } from './yargs-kit.js';


/** Pure: the log file settings from parsed flags; undefined without --log-file (or with it empty, as klog). */
export function logFileSettingsFrom(argv: Readonly<Record<string, unknown>>): LogFileSettings | undefined {
  const last = (v: unknown): unknown => (Array.isArray(v) ? v[v.length - 1] : v);
  const maxArg = last(argv['log-file-max-size']);
  let maxSizeMb = 1800;
  if (maxArg !== undefined) {
    // yargs gives this `type: 'string'` flag as a string; other primitives read as their text.
    const maxText = typeof maxArg === 'string' ? maxArg
      : typeof maxArg === 'number' || typeof maxArg === 'boolean' || typeof maxArg === 'bigint' ? String(maxArg)
      : JSON.stringify(maxArg) ?? typeof maxArg;
    if (!/^\d+$/.test(maxText.trim())) {
      throw new TsadmError('E_USAGE', `invalid argument "${maxText}" for "--log-file-max-size" flag: not a non-negative integer`, { hint: 'give the size in megabytes, e.g. --log-file-max-size 100 (0: unlimited)' });
    }
    maxSizeMb = Number(maxText.trim());
  }
  const file = last(argv['log-file']);
  if (typeof file !== 'string' || file === '') return undefined;
  return {
    file, maxSizeMb, skipHeaders: last(argv['skip-headers']) === true, skipLogHeaders: last(argv['skip-log-headers']) === true,
    ...(last(argv['log-file-secrets']) === true ? { secrets: true } : {}),
  };
}

/**
 * Declares the flags on the top-level command (yargs options there reach every subcommand) and
 * hands the log file settings to `use` once the command line is parsed, before any handler runs.
 */
export function registerKlogFlags(y: Argv, use: (settings: LogFileSettings | undefined) => void): Argv {
  addFlags(y, KLOG_FLAGS, new Set(), { global: true, group: KLOG_GROUP });
  return y.middleware((argv) => use(logFileSettingsFrom(argv)));
}
