import { createReadStream } from 'node:fs';
import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { SnapshotVerifier, type SnapshotCheck } from './integrity.js';
import { snapshotEntries, snapshotsToPrune } from './names.js';

/**
 * The snapshot files on this machine: check one, list tsadm's in a directory, prune the old ones.
 * Reads go through the host's path resolution (--rootfs); deletions through host.remove.
 */
export async function checkSnapshotFile(host: Host, file: string): Promise<SnapshotCheck> {
  const st = await host.stat(file);
  if (!st) throw new TsadmError('E_USAGE', `snapshot file ${file} does not exist`, { hint: 'tsadm etcd snapshot list shows the snapshots in the default directory' });
  if (!st.isFile || st.isSymlink) throw new TsadmError('E_USAGE', `${file} is not a regular file`);
  const verifier = new SnapshotVerifier();
  // Streamed: a snapshot is as large as the etcd database (up to its quota, 2–8 GiB).
  for await (const chunk of createReadStream(host.resolve(file), { highWaterMark: 1 << 20 })) verifier.update(chunk as Buffer);
  return verifier.finish();
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
