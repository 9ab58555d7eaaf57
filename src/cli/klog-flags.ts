/**
 * klog's flags as kubeadm 1.20 shows them under "Global Flags" (`kubeadm --help`): accepted on
 * every command, like -v, so scripts written for kubeadm keep working. Only --log-file and its
 * companions change anything here (src/log/log-file.ts says what each does). --log-file-secrets
 * is tsadm's own (issue 27): the log file redacts tokens and certificate keys unless it is given.
 */
import type { Argv } from 'yargs';
import { TsadmError } from '../errors.js';
import type { LogFileSettings } from '../log/log-file.js';

const KLOG_OPTIONS = {
  'log-file': { type: 'string', requiresArg: true, describe: 'If non-empty, also write the log to this file (appended, mode 0600).' },
  'log-file-max-size': { type: 'string', requiresArg: true, defaultDescription: '1800', describe: 'Defines the maximum size a log file can grow to. Unit is megabytes. If the value is 0, the maximum file size is unlimited.' },
  'skip-headers': { type: 'boolean', describe: 'If true, avoid header prefixes in the log messages' },
  'skip-log-headers': { type: 'boolean', describe: 'If true, avoid headers when opening log files' },
  'add-dir-header': { type: 'boolean', describe: 'If true, adds the file directory to the header of the log messages' },
  'log-file-secrets': { type: 'boolean', describe: 'tsadm\'s own: tokens and certificate keys go to --log-file unredacted' },
  'one-output': { type: 'boolean', describe: 'If true, only write logs to their native severity level' },
  // kubeadm's main keeps klog's -v and --vmodule on every command (cmd/kubeadm/app/kubeadm.go, KEP 2845).
  vmodule: { type: 'string', requiresArg: true, coerce: checkVmodule, describe: 'comma-separated list of pattern=N settings for file-filtered logging' },
} as const;

/** The help heading of klog's flags, as kubeadm's. */
export const KLOG_GROUP = 'Global Flags:';

/**
 * klog's vmodule syntax (moduleSpec.Set in k8s.io/klog/v2's klog.go): comma-separated pattern=N,
 * N a non-negative 32-bit integer (strconv.ParseInt), empty items skipped. kubeadm fails a bad
 * value as pflag reports a flag's error; so does tsadm, though it filters nothing by it.
 */
function checkVmodule(value: unknown): string {
  const text = String(Array.isArray(value) ? value.at(-1) : value);
  for (const item of text.split(',')) {
    if (item === '') continue;
    const parts = item.split('=');
    const syntax = parts.length !== 2 || parts[0] === '' || parts[1] === '' || !/^[-+]?\d+$/.test(parts[1] ?? '') || Math.abs(Number(parts[1])) > 2 ** 31 - 1;
    if (syntax || Number(parts[1]) < 0) {
      const why = syntax ? 'syntax error: expect comma-separated list of filename=N' : 'negative value for vmodule level';
      throw new TsadmError('E_USAGE', `invalid argument "${text}" for "--vmodule" flag: ${why}`, { hint: 'give pattern=N pairs, e.g. --vmodule gc*=3,proxy=2' });
    }
  }
  return text;
}

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
  for (const [name, spec] of Object.entries(KLOG_OPTIONS)) y.option(name, { ...spec, global: true, group: KLOG_GROUP });
  return y.middleware((argv) => use(logFileSettingsFrom(argv)));
}
