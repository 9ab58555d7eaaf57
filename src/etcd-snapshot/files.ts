import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { assertInsideRoot, openRegularFile, regularFileChunks, type OpenedRegularFile } from '../host/safe-fs.js';
import { privateFileProblem } from '../host/private-file.js';
import { SnapshotVerifier, type SnapshotCheck } from './integrity.js';
import { snapshotEntries, snapshotsToPrune } from './names.js';

/**
 * The snapshot files on this machine: check one, open one to restore, list tsadm's in a directory,
 * prune the old ones. Reads go through the host's path resolution (--rootfs) and are made by one
 * descriptor (src/host/safe-fs.ts): a FIFO does not block, a device is refused; deletions through
 * host.remove.
 */

/** A snapshot is as large as the etcd database (up to its quota, 2–8 GiB): read in chunks, never whole. */
const NO_LIMIT = Number.POSITIVE_INFINITY;

/** Opens FILE once, refusing a symbolic link and anything but a regular file; `refuse` words the refusal. */
async function openSnapshot(host: Host, file: string, refuse: (problem: string) => Error): Promise<OpenedRegularFile> {
  const real = host.resolve(file);
  await assertInsideRoot(host.root, real, file, { followFinal: false });
  try {
    return await openRegularFile(real, file, { maxBytes: NO_LIMIT, noFollow: true, refuse });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new TsadmError('E_USAGE', `snapshot file ${file} does not exist`, { hint: 'tsadm etcd snapshot list shows the snapshots in the default directory' });
    }
    throw err;
  }
}

/** The bytes of an opened snapshot, in 1 MiB chunks from its descriptor. */
export function snapshotChunks(opened: OpenedRegularFile, file: string): AsyncGenerator<Buffer> {
  return regularFileChunks(opened, NO_LIMIT, (problem) => new TsadmError('E_PRECONDITION', `cannot read ${file}: ${problem}`));
}

/** `etcd snapshot verify`: the integrity of FILE, read once by its descriptor (streamed). */
export async function checkSnapshotFile(host: Host, file: string): Promise<SnapshotCheck> {
  const opened = await openSnapshot(host, file, () => new TsadmError('E_USAGE', `${file} is not a regular file`));
  try {
    const verifier = new SnapshotVerifier();
    for await (const chunk of snapshotChunks(opened, file)) verifier.update(chunk);
    return verifier.finish();
  } finally {
    await opened.handle.close();
  }
}

/** How a snapshot to restore is made safe: the hint of every refusal of trustedSnapshot. */
function snapshotTrustHint(file: string): string {
  return `a snapshot decides every Secret and RBAC rule of the cluster: keep it a regular file owned by root and writable only by root (chown root:root ${file} && chmod 0600 ${file}; tsadm etcd snapshot save writes it so)`;
}

/**
 * Opens the snapshot a restore will use — once: the caller reads its bytes from this descriptor and
 * never opens FILE again, so what was judged is what is restored. Refused (E_TRUST) unless it passes
 * the rule `tsadm apply` has for plan files (src/plan/trust.ts): a regular file, not a symbolic link
 * (O_NOFOLLOW), owned by root (or by the user running tsadm), writable by no group and no one else.
 * The directory is not judged: see docs/safety.md §6a.
 */
export async function trustedSnapshot(host: Host, file: string): Promise<OpenedRegularFile> {
  const refuse = (problem: string): TsadmError => new TsadmError('E_TRUST', `refusing to restore from ${file}: ${problem}`, { hint: snapshotTrustHint(file) });
  const opened = await openSnapshot(host, file, refuse);
  const problem = privateFileProblem({ isFile: opened.stat.isFile(), mode: opened.stat.mode, uid: opened.stat.uid }, process.geteuid?.() ?? 0);
  if (problem !== undefined) {
    await opened.handle.close();
    throw refuse(problem);
  }
  return opened;
}

export interface ListedSnapshot {
  readonly name: string;
  readonly path: string;
  readonly takenAt: string;
  readonly size: number;
}

export async function listSnapshots(host: Host, dir: string): Promise<ListedSnapshot[]> {
  const out: ListedSnapshot[] = [];
  for (const e of snapshotEntries(dir, await host.readdir(dir))) {
    const st = await host.stat(e.path);
    if (!st?.isFile || st.isSymlink) continue;
    out.push({ name: e.name, path: e.path, takenAt: e.takenAt.toISOString(), size: st.size });
  }
  return out;
}

/** Deletes tsadm's snapshots in `dir` beyond the newest `keep`; resolves the deleted paths. Nothing else is touched. */
export async function pruneSnapshots(host: Host, dir: string, keep: number): Promise<string[]> {
  if (!Number.isInteger(keep) || keep < 1) throw new TsadmError('E_USAGE', `--keep must be a whole number of at least 1 (got ${keep})`);
  const deleted: string[] = [];
  for (const e of snapshotsToPrune(dir, await host.readdir(dir), keep)) {
    const st = await host.stat(e.path);
    if (!st?.isFile || st.isSymlink) continue;
    await host.remove(e.path);
    deleted.push(e.path);
  }
  return deleted;
}
