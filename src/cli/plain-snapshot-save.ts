/**
 * Which command lines are a plain `etcd snapshot save` (pure): `etcd snapshot save [FILE]` with
 * only --endpoint, --cert-dir, --dir, --rootfs and --output/-o (text or json), each at most once,
 * as `--flag value` or `--flag=value`. The launcher runs those without the command-line parser
 * (src/commands/etcd-snapshot-save.ts, runPlainSave); every other command line (help, --plan,
 * --dry-run, -v, log-file flags, anything unusual or wrong) goes to yargs as before, so the
 * direct path never has to reproduce a parse error or a flag's finer points.
 */
export interface PlainSaveArgs {
  readonly file?: string;
  readonly endpoint?: string;
  readonly certDir?: string;
  readonly dir?: string;
  readonly rootfs?: string;
  readonly output?: 'text' | 'json';
}

const PREFIX = ['etcd', 'snapshot', 'save'];
const FLAGS: Readonly<Record<string, keyof PlainSaveArgs>> = {
  '--endpoint': 'endpoint', '--cert-dir': 'certDir', '--dir': 'dir', '--rootfs': 'rootfs', '--output': 'output', '-o': 'output',
};

export function plainSnapshotSave(argv: readonly string[]): PlainSaveArgs | undefined {
  if (!PREFIX.every((w, i) => argv[i] === w)) return undefined;
  const out: Partial<Record<keyof PlainSaveArgs, string>> = {};
  for (let i = PREFIX.length; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('-')) {
      if (out.file !== undefined || arg === '') return undefined;
      out.file = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const key = Object.hasOwn(FLAGS, name) ? FLAGS[name] : undefined;
    if (key === undefined || out[key] !== undefined) return undefined;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '' || value.startsWith('-')) return undefined;
    out[key] = value;
  }
  if (out.output !== undefined && out.output !== 'text' && out.output !== 'json') return undefined;
  return out as PlainSaveArgs;
}
