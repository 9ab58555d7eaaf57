import path from 'node:path';
import type { Argv, ArgumentsCamelCase } from 'yargs';
import { TsadmError } from '../errors.js';
import { etcdTlsFromDir } from '../etcd-client/urls.js';
import { checkSnapshotFile, listSnapshots, pruneSnapshots } from '../etcd-snapshot/files.js';
import { DEFAULT_SNAPSHOT_DIR, snapshotFileName } from '../etcd-snapshot/names.js';
import { MANIFESTS_DIR, parseEtcdPod } from '../etcd-snapshot/restore-plan.js';
import { badSnapshot, saveSnapshot } from '../etcd-snapshot/save.js';
import { restoreSnapshot, type RestoreDeps } from '../etcd-snapshot/restore.js';
import { machineRestoreDeps } from '../etcd-snapshot/runner.js';
import { connectCri, type CriClient } from '../host/cri-client.js';
import { detectCriSocket, socketPath } from '../host/cri.js';
import { installSnapshotTimer, removeSnapshotTimer, SNAPSHOT_UNIT } from '../etcd-snapshot/schedule.js';
import type { Host } from '../host/host.js';
import { journalOf } from '../host/journal.js';
import { VERBOSITY_OPTION } from '../cli/workflow-command.js';
import { addPlanOptions } from './plan-flags.js';
import { runtimeFlagValues } from './runtime-flags.js';
import { createRuntime, finishCommand, type CommandEnv, type Runtime } from '../run/runtime.js';

const DEFAULT_CERT_DIR = '/etc/kubernetes/pki';
const LOCAL_ETCD = 'https://127.0.0.1:2379';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

function common<T>(c: Argv<T>, dryRun = true): Argv<T> {
  const withDry = dryRun ? c.option('dry-run', { type: 'boolean', describe: 'Print what would happen; change nothing' }) : c;
  return withDry
    .option('rootfs', { type: 'string', requiresArg: true, describe: 'Path to the real host root filesystem.' })
    .option('output', { alias: 'o', type: 'string', choices: ['text', 'json'], default: 'text', describe: 'Output format: text, or json (one event per line, the result last)' })
    .option('v', { ...VERBOSITY_OPTION, describe: 'Log level verbosity.' });
}

function dirOption<T>(c: Argv<T>): Argv<T> {
  return c.option('dir', { type: 'string', requiresArg: true, describe: 'The snapshot directory.', defaultDescription: DEFAULT_SNAPSHOT_DIR });
}

/** Runs `fn` in a runtime and reports its result event (ok or the error), as every tsadm command does. */
async function run(argv: Args, env: CommandEnv, command: string, fn: (rt: Runtime) => Promise<Record<string, unknown>>): Promise<void> {
  const rt = await createRuntime(runtimeFlagValues(argv, { output: true }), env);
  await finishCommand(rt, command, () => fn(rt));
}

function dirOf(argv: Args): string {
  return path.resolve(typeof argv.dir === 'string' ? argv.dir : DEFAULT_SNAPSHOT_DIR);
}

/** This control plane's etcd: --endpoint, else the first listen-client-urls of its manifest (the loopback one), else 127.0.0.1:2379. */
async function localEndpoint(host: Host, given: unknown): Promise<string> {
  if (typeof given === 'string') return given;
  const text = (await host.readFile(path.posix.join(MANIFESTS_DIR, 'etcd.yaml')))?.toString('utf8');
  if (text === undefined) return LOCAL_ETCD;
  try {
    return parseEtcdPod(text, 'etcd.yaml').clientURL ?? LOCAL_ETCD;
  } catch {
    return LOCAL_ETCD;
  }
}

function notInDryRun(): Promise<never> {
  return Promise.reject(new TsadmError('E_INTERNAL', 'a dry run reached a machine step'));
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * `tsadm etcd snapshot save|list|prune|schedule|restore` (src/etcd-snapshot/). kubeadm has none
 * of these; k3s, k0s and Talos each have their own.
 */
export const SNAPSHOT_COMMAND_DESCRIPTION = 'Save, verify, list, prune, schedule and restore snapshots of this control plane\'s etcd';

export function snapshotCommands(s: Argv, env: CommandEnv): Argv {
  return s
      .command(
        'save [file]',
        'Stream a snapshot of this control plane\'s etcd to FILE (verified, mode 0600)',
        (c) => addPlanOptions(dirOption(common(c)))
          .positional('file', { type: 'string', describe: `The snapshot file (default: a timestamped name under --dir, ${DEFAULT_SNAPSHOT_DIR})` })
          .option('endpoint', { type: 'string', requiresArg: true, describe: 'The etcd client URL.', defaultDescription: 'the first --listen-client-urls of /etc/kubernetes/manifests/etcd.yaml (loopback)' })
          .option('cert-dir', { type: 'string', requiresArg: true, describe: 'Where the etcd CA and healthcheck-client certificate are (etcd/ under it).', defaultDescription: DEFAULT_CERT_DIR })
          .usage('tsadm etcd snapshot save [FILE]\n\nStreams etcd\'s Maintenance.Snapshot into FILE (temp file, fsync, rename; mode 0600) and checks its SHA-256 '
            + 'and bbolt header on the way: a damaged transfer never replaces FILE. The file holds every Secret of the cluster: keep it like a key.')
          .example('tsadm etcd snapshot save', `Save to ${DEFAULT_SNAPSHOT_DIR}/etcd-snapshot-<UTC time>.db`)
          .example('tsadm etcd snapshot save /backup/a.db --plan save.json', 'Record the save for review; `tsadm apply save.json` streams and verifies the snapshot then')
          .strict(),
        (argv) => run(argv, env, 'etcd snapshot save', async (rt) => {
          const file = typeof argv.file === 'string' ? path.resolve(argv.file) : path.posix.join(dirOf(argv), snapshotFileName(new Date()));
          const endpoint = await localEndpoint(rt.host, argv.endpoint);
          const certDir = path.resolve(typeof argv['cert-dir'] === 'string' ? argv['cert-dir'] : DEFAULT_CERT_DIR);
          const tls = await etcdTlsFromDir(rt.host, certDir);
          if (rt.dryRun) {
            const target = await rt.host.stat(file);
            if (target?.isDirectory) throw new TsadmError('E_USAGE', `${file} is a directory`, { hint: 'name the snapshot file, or leave FILE out for a timestamped name in the default directory' });
            if (typeof argv.plan === 'string') {
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
        }),
      )
      .command(
        'verify <file>',
        'Check a snapshot file\'s SHA-256 and bbolt header without changing anything',
        (c) => common(c, false).positional('file', { type: 'string', describe: 'The snapshot file' }).strict(),
        (argv) => run(argv, env, 'etcd snapshot verify', async (rt) => {
          const file = path.resolve(String(argv.file));
          const check = await checkSnapshotFile(rt.host, file);
          if (!check.ok) throw badSnapshot(file, check);
          rt.log.info(`${file} is a whole etcd snapshot (${mib(check.size)}, sha256 ${check.fileSha256})`, { prefix: 'snapshot' });
          return { path: file, size: check.size, sha256: check.fileSha256 };
        }),
      )
      .command(
        'list',
        'List tsadm\'s snapshots in the snapshot directory, newest first',
        (c) => dirOption(common(c, false)).strict(),
        (argv) => run(argv, env, 'etcd snapshot list', async (rt) => {
          const dir = dirOf(argv);
          const snapshots = await listSnapshots(rt.host, dir);
          if (!rt.json) rt.log.output(snapshots.length === 0 ? `no snapshots in ${dir}` : snapshots.map((s) => `${s.takenAt}  ${mib(s.size).padStart(10)}  ${s.path}`).join('\n'));
          return { dir, snapshots };
        }),
      )
      .command(
        'prune',
        'Delete tsadm\'s oldest snapshots beyond the newest --keep (nothing else in the directory)',
        (c) => addPlanOptions(dirOption(common(c)).option('keep', { type: 'number', requiresArg: true, demandOption: true, describe: 'How many of the newest snapshots to keep (at least 1)' })).strict(),
        (argv) => run(argv, env, 'etcd snapshot prune', async (rt) => {
          const dir = dirOf(argv);
          const keep = Number(argv.keep);
          const deleted = await pruneSnapshots(rt.host, dir, keep);
          for (const d of deleted) rt.log.info(`${rt.dryRun ? 'would delete' : 'deleted'} ${d}`, { prefix: 'snapshot' });
          if (deleted.length === 0) rt.log.info(`nothing to prune in ${dir} (keeping ${keep})`, { prefix: 'snapshot' });
          return { dir, keep, deleted };
        }),
      )
      .command(
        'schedule',
        'Install a systemd timer that saves a snapshot and prunes old ones (--disable removes it)',
        (c) => addPlanOptions(dirOption(common(c)))
          .option('every', { type: 'string', requiresArg: true, default: '12h', describe: 'How often (a period that divides a day: 30m, 1h, 6h, 12h, 24h)' })
          .option('keep', { type: 'number', requiresArg: true, default: 5, describe: 'How many snapshots to keep' })
          .option('randomized-delay', { type: 'string', requiresArg: true, describe: 'systemd RandomizedDelaySec= (default: a tenth of the period, at most 15min)' })
          .option('disable', { type: 'boolean', default: false, describe: 'Stop and remove the timer and its service' })
          .usage(`tsadm etcd snapshot schedule [--every 12h] [--keep 5]\n\nWrites ${SNAPSHOT_UNIT}.service and .timer to /etc/systemd/system (OnCalendar with Persistent=true, `
            + 'so a run missed while the machine was off happens at boot; RandomizedDelaySec so control planes do not snapshot at once), '
            + 'then daemon-reload, enable and start the timer. Run again to change the period; --disable to turn it off.')
          .example('tsadm etcd snapshot schedule --every 12h --keep 5', 'k3s\'s default schedule')
          .example('tsadm etcd snapshot schedule --disable', 'Turn the timer off')
          .strict(),
        (argv) => run(argv, env, 'etcd snapshot schedule', async (rt) => {
          const note = (r: { ok: boolean; via: string; message?: string }, what: string): void => {
            if (!r.ok) rt.log.warn(`could not ${what} (${r.via}): ${r.message ?? ''}`, { prefix: 'snapshot' });
          };
          if (argv.disable === true) {
            const removed = await removeSnapshotTimer(rt.host);
            removed.service.forEach((r) => note(r, `tell systemd about ${SNAPSHOT_UNIT}.timer`));
            rt.log.info(removed.files.length === 0 ? 'no snapshot timer installed' : `removed ${removed.files.join(', ')}`, { prefix: 'snapshot' });
            return { disabled: true, removed: removed.files };
          }
          const tsadm = path.resolve(process.argv[1] ?? '/usr/local/bin/tsadm');
          const spec = {
            tsadm, every: String(argv.every), keep: Number(argv.keep), dir: dirOf(argv),
            ...(typeof argv['randomized-delay'] === 'string' ? { randomizedDelaySec: argv['randomized-delay'] } : {}),
          };
          const installed = await installSnapshotTimer(rt.host, spec);
          installed.service.forEach((r) => note(r, `enable ${SNAPSHOT_UNIT}.timer`));
          rt.log.info(`${rt.dryRun ? 'would schedule' : 'scheduled'} a snapshot every ${spec.every} to ${spec.dir}, keeping ${spec.keep} (${SNAPSHOT_UNIT}.timer)`, { prefix: 'snapshot' });
          return { files: installed.files, every: spec.every, keep: spec.keep, dir: spec.dir };
        }),
      )
      .command('unschedule', 'Same as schedule --disable', (c) => addPlanOptions(common(c)).strict(), (argv) => run(argv, env, 'etcd snapshot unschedule', async (rt) => {
        const removed = await removeSnapshotTimer(rt.host);
        rt.log.info(removed.files.length === 0 ? 'no snapshot timer installed' : `removed ${removed.files.join(', ')}`, { prefix: 'snapshot' });
        return { disabled: true, removed: removed.files };
      }))
      .command(
        'restore <file>',
        'Restore this control plane\'s etcd from FILE as a new one-member cluster (stops and restarts the control plane)',
        (c) => common(c)
          .positional('file', { type: 'string', describe: 'The snapshot file' })
          .option('cert-dir', { type: 'string', requiresArg: true, describe: 'Where the cluster CA and the etcd client certificates are.', defaultDescription: DEFAULT_CERT_DIR })
          .option('cri-socket', { type: 'string', requiresArg: true, describe: 'The container runtime socket.', defaultDescription: 'detected' })
          .option('timeout', { type: 'number', requiresArg: true, default: 300, describe: 'Seconds to wait for each step (containers gone, restore, control plane back)' })
          .usage('tsadm etcd snapshot restore FILE\n\nChecks FILE first (a damaged or truncated snapshot changes nothing), moves the control-plane '
            + 'manifests aside and waits until their containers are gone, runs the etcd image\'s own `etcdutl`/`etcdctl snapshot restore` '
            + '(as a one-off static Pod) into a new data directory as a one-member cluster made of this member, keeps the old data '
            + 'directory as <data-dir>.tsadm-<time>, moves the manifests back and waits for etcd and the API server. Safe to run again '
            + 'after a crash: it continues where it stopped. In an HA cluster, restore on one control plane; `tsadm reset` the others '
            + 'and join them again (docs/safety.md).')
          .example('tsadm etcd snapshot restore /var/lib/tsadm/etcd-snapshots/etcd-snapshot-20261127T000000.000Z.db', 'Roll the cluster back to that snapshot')
          .strict(),
        (argv) => run(argv, env, 'etcd snapshot restore', async (rt) => {
          const file = path.resolve(String(argv.file));
          const certDir = path.resolve(typeof argv['cert-dir'] === 'string' ? argv['cert-dir'] : DEFAULT_CERT_DIR);
          const timeoutMs = Number(argv.timeout) * 1000;
          const closers: Array<() => void> = [];
          // Built on first use: the snapshot's check comes first, whatever else is missing on this machine.
          let machine: Promise<RestoreDeps> | undefined;
          const real = (): Promise<RestoreDeps> => {
            machine ??= (async () => {
              const apiCa = await rt.host.readFile(path.posix.join(certDir, 'ca.crt'));
              if (!apiCa) throw new TsadmError('E_PRECONDITION', `missing ${certDir}/ca.crt`, { hint: 'run the restore on a control plane (or point --cert-dir at its pki directory)' });
              const etcdTls = await etcdTlsFromDir(rt.host, certDir);
              let cri: Promise<CriClient> | undefined;
              const connect = (): Promise<CriClient> => {
                cri ??= (async () => {
                  const socket = typeof argv['cri-socket'] === 'string' ? argv['cri-socket'] : await detectCriSocket(rt.host, { dockershimEra: false, asUrl: false });
                  const client = await connectCri(rt.host.resolve(socketPath(socket)));
                  closers.push(() => client.close());
                  return client;
                })();
                return cri;
              };
              return machineRestoreDeps({ host: rt.host, cri: connect, etcdTls, apiCa, timeoutMs });
            })();
            return machine;
          };
          const deps: RestoreDeps = rt.dryRun
            ? { runTool: notInDryRun, waitContainersGone: notInDryRun, waitControlPlane: notInDryRun }
            : {
              runTool: async (r) => (await real()).runTool(r),
              waitContainersGone: async (n) => (await real()).waitContainersGone(n),
              waitControlPlane: async (f) => (await real()).waitControlPlane(f),
            };
          try {
            const result = await restoreSnapshot(rt.host, rt.log, file, deps);
            return { ...result };
          } finally {
            closers.forEach((c) => c());
          }
        }),
      )
      .demandCommand(1, 'specify a subcommand: save, verify, list, prune, schedule or restore')
      .strict();
}

