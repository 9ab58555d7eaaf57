import path from 'node:path';
import type { Argv, ArgumentsCamelCase } from 'yargs';
import { checkSnapshotFile, listSnapshots, pruneSnapshots } from '../etcd-snapshot/files.js';
import { DEFAULT_SNAPSHOT_DIR } from '../etcd-snapshot/names.js';
import { badSnapshot } from '../etcd-snapshot/save.js';
import { DEFAULT_CERT_DIR } from '../constants.js';
import { mib, saveCommand } from './etcd-snapshot-save.js';
import { restoreOnMachine } from '../etcd-snapshot/runner.js';
import { installSnapshotTimer, removeSnapshotTimer, SNAPSHOT_UNIT } from '../etcd-snapshot/schedule.js';
import { journalOf } from '../host/journal.js';
import { addFlags } from '../cli/yargs-kit.js';
import { addPlanOptions } from './plan-flags.js';
import type { CommandEnv, Runtime } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';

type Args = ArgumentsCamelCase<Record<string, unknown>>;

function common<T>(c: Argv<T>, dryRun = true): Argv<T> {
  return addFlags(c, [...(dryRun ? ['dry-run@snapshot' as const] : []), 'rootfs', 'output@etcd', 'v@short']);
}

function dirOption<T>(c: Argv<T>): Argv<T> {
  return addFlags(c, ['dir']);
}

/** Runs `fn` in a runtime and reports its result event (ok or the error), as every tsadm command does. */
async function run(argv: Args, env: CommandEnv, command: string, fn: (rt: Runtime) => Promise<Record<string, unknown>>): Promise<void> {
  await runCommand({ command, env, args: argv }, fn);
}

function dirOf(argv: Args): string {
  return path.resolve(typeof argv.dir === 'string' ? argv.dir : DEFAULT_SNAPSHOT_DIR);
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
        (c) => addFlags(addPlanOptions(dirOption(common(c))).positional('file', { type: 'string', describe: `The snapshot file (default: a timestamped name under --dir, ${DEFAULT_SNAPSHOT_DIR})` }), ['endpoint', 'cert-dir@etcd-client'])
          .usage('tsadm etcd snapshot save [FILE]\n\nStreams etcd\'s Maintenance.Snapshot into FILE (temp file, fsync, rename; mode 0600) and checks its SHA-256 '
            + 'and bbolt header on the way: a damaged transfer never replaces FILE. The file holds every Secret of the cluster: keep it like a key.')
          .example('tsadm etcd snapshot save', `Save to ${DEFAULT_SNAPSHOT_DIR}/etcd-snapshot-<UTC time>.db`)
          .example('tsadm etcd snapshot save /backup/a.db --plan save.json', 'Record the save for review; `tsadm apply save.json` streams and verifies the snapshot then')
          .strict(),
        (argv) => run(argv, env, 'etcd snapshot save', (rt) => saveCommand(rt, {
          ...(typeof argv.file === 'string' ? { file: argv.file } : {}),
          ...(typeof argv.endpoint === 'string' ? { endpoint: argv.endpoint } : {}),
          ...(typeof argv['cert-dir'] === 'string' ? { certDir: argv['cert-dir'] } : {}),
          ...(typeof argv.dir === 'string' ? { dir: argv.dir } : {}),
          planning: typeof argv.plan === 'string',
        })),
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
        (c) => addPlanOptions(addFlags(dirOption(common(c)), ['keep'])).strict(),
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
        (c) => addFlags(addPlanOptions(dirOption(common(c))), ['every', 'keep@schedule', 'randomized-delay', 'disable', 'tsadm-path'])
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
          const installed = await installSnapshotTimer(rt.host, {
            every: String(argv.every), keep: Number(argv.keep), dir: dirOf(argv),
            ...(typeof argv['randomized-delay'] === 'string' ? { randomizedDelaySec: argv['randomized-delay'] } : {}),
            ...(typeof argv['tsadm-path'] === 'string' ? { tsadmPath: argv['tsadm-path'] } : {}),
          });
          const { spec } = installed;
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
        (c) => addFlags(addPlanOptions(common(c)).positional('file', { type: 'string', describe: 'The snapshot file' }), ['cert-dir@restore', 'cri-socket@restore', 'timeout'])
          .usage('tsadm etcd snapshot restore FILE\n\nFILE must be a regular file owned by root and writable by root alone (not a symbolic link), '
            + 'as a snapshot decides every Secret and RBAC rule of the cluster. It is opened once and checked as it is copied into the '
            + 'restore\'s own staging directory; the restore reads only that copy (a damaged or truncated snapshot changes nothing). It moves the control-plane '
            + 'manifests aside and waits until their containers are gone, runs the etcd image\'s own `etcdutl`/`etcdctl snapshot restore` '
            + '(as a one-off static Pod) into a new data directory as a one-member cluster made of this member, keeps the old data '
            + 'directory as <data-dir>.tsadm-<time>, moves the manifests back and waits for etcd and the API server. Safe to run again '
            + 'after a crash: it continues where it stopped. In an HA cluster, restore on one control plane; `tsadm reset` the others '
            + 'and join them again (/usr/share/doc/tsadm/docs/safety.md).')
          .example('tsadm etcd snapshot restore /var/lib/tsadm/etcd-snapshots/etcd-snapshot-20261127T000000.000Z.db', 'Roll the cluster back to that snapshot')
          .example('tsadm etcd snapshot restore /backup/a.db --plan restore.json', 'Record the restore for review; `tsadm apply restore.json` runs it (refusing if the snapshot or etcd.yaml changed since)')
          .strict(),
        (argv) => run(argv, env, 'etcd snapshot restore', async (rt) => {
          const file = path.resolve(String(argv.file));
          const certDir = path.resolve(typeof argv['cert-dir'] === 'string' ? argv['cert-dir'] : DEFAULT_CERT_DIR);
          const timeoutSeconds = Number(argv.timeout);
          const criSocket = typeof argv['cri-socket'] === 'string' ? argv['cri-socket'] : undefined;
          const result = await restoreOnMachine(rt.host, rt.log, { file, certDir, timeoutMs: timeoutSeconds * 1000, ...(criSocket !== undefined ? { criSocket } : {}) });
          if (typeof argv.plan === 'string') {
            // The restore runs when the plan is applied: the snapshot is named by its SHA-256, and
            // etcd.yaml and the progress file (read by the dry run) are the preconditions.
            journalOf(rt.host)?.record({ type: 'etcd-snapshot-restore', snapshot: file, sha256: result.sha256, certDir, ...(criSocket !== undefined ? { criSocket } : {}), timeoutSeconds });
          }
          return { ...result };
        }),
      )
      .demandCommand(1, 'specify a subcommand: save, verify, list, prune, schedule or restore')
      .strict();
}

