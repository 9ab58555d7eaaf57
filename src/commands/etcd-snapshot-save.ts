/**
 * `tsadm etcd snapshot save`'s work, shared by the yargs command (src/commands/etcd-snapshot.ts)
 * and the launcher's direct path for a plain save (`runPlainSave`, below): both create the same
 * runtime and report the same result event and errors, so a save prints the same either way.
 */
import path from 'node:path';
import type { CliIO } from '../cli/io.js';
import type { PlainSaveArgs } from '../cli/plain-snapshot-save.js';
import { reportError } from '../cli/report-error.js';
import { DEFAULT_CERT_DIR } from '../constants.js';
import { TsadmError } from '../errors.js';
import { etcdTlsFromDir } from '../etcd-client/urls.js';
import { DEFAULT_SNAPSHOT_DIR, snapshotFileName } from '../etcd-snapshot/names.js';
import { saveSnapshot } from '../etcd-snapshot/save.js';
import type { Host } from '../host/host.js';
import { journalOf } from '../host/journal.js';
import type { Runtime } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';

const LOCAL_ETCD = 'https://127.0.0.1:2379';

export interface SaveOptions {
  readonly file?: string;
  readonly endpoint?: string;
  readonly certDir?: string;
  readonly dir?: string;
  /** --plan was given (the runtime is then a dry run writing the plan). */
  readonly planning: boolean;
}

export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** This control plane's etcd: --endpoint, else the first listen-client-urls of its manifest (the loopback one), else 127.0.0.1:2379. */
async function localEndpoint(host: Host, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  // The manifest reader (and YAML with it) only when the endpoint must be read from etcd.yaml.
  const { MANIFESTS_DIR, parseEtcdPod } = await import('../etcd-snapshot/restore-plan.js');
  const text = (await host.readFile(path.posix.join(MANIFESTS_DIR, 'etcd.yaml')))?.toString('utf8');
  if (text === undefined) return LOCAL_ETCD;
  try {
    return parseEtcdPod(text, 'etcd.yaml').clientURL ?? LOCAL_ETCD;
  } catch {
    return LOCAL_ETCD;
  }
}

export async function saveCommand(rt: Runtime, o: SaveOptions): Promise<Record<string, unknown>> {
  const file = o.file !== undefined ? path.resolve(o.file) : path.posix.join(path.resolve(o.dir ?? DEFAULT_SNAPSHOT_DIR), snapshotFileName(new Date()));
  const endpoint = await localEndpoint(rt.host, o.endpoint);
  const certDir = path.resolve(o.certDir ?? DEFAULT_CERT_DIR);
  const tls = await etcdTlsFromDir(rt.host, certDir);
  if (rt.dryRun) {
    const target = await rt.host.stat(file);
    if (target?.isDirectory) throw new TsadmError('E_USAGE', `${file} is a directory`, { hint: 'name the snapshot file, or leave FILE out for a timestamped name in the default directory' });
    if (o.planning) {
      // A plan saves to a new file: "absent" is a precondition apply can check without
      // hashing a snapshot of gigabytes, and it never replaces one without a second look.
      if (target) throw new TsadmError('E_USAGE', `${file} exists: a plan saves a snapshot to a new file`, { hint: 'leave FILE out for a timestamped name, or name a file that does not exist yet' });
      const journal = journalOf(rt.host);
      journal?.noteFile(file, { state: 'absent' });
      // apply streams the snapshot then: its bytes exist only when etcd sends them.
      journal?.record({ type: 'etcd-snapshot', path: file, endpoint, certDir });
    }
    rt.log.info(`would save a snapshot of etcd at ${endpoint} to ${file} (mode 0600)`, { prefix: 'snapshot' });
    return { path: file, endpoint, dryRun: true };
  }
  const result = await saveSnapshot(rt.host, { endpoint, tls, file });
  rt.log.info(`saved ${file} (${mib(result.size)}, sha256 ${result.sha256}) from ${endpoint}`, { prefix: 'snapshot' });
  return { ...result, endpoint };
}

/**
 * A plain `etcd snapshot save` (src/cli/plain-snapshot-save.ts says which command lines are plain)
 * without loading the command-line parser and every other command: the save is a backup job a
 * timer runs, and on a 59 MiB database start-up was a third of its time (BENCHMARKS.md). The
 * exit code and stderr are main()'s (src/cli/report-error.ts).
 */
export async function runPlainSave(args: PlainSaveArgs, io: CliIO): Promise<number> {
  try {
    const runtimeArgs = { ...(args.rootfs !== undefined ? { rootfs: args.rootfs } : {}), ...(args.output !== undefined ? { output: args.output } : {}) };
    await runCommand({ command: 'etcd snapshot save', env: { io }, args: runtimeArgs }, (rt) => saveCommand(rt, { ...args, planning: false }));
    return 0;
  } catch (err) {
    return reportError(err, io, 0);
  }
}
