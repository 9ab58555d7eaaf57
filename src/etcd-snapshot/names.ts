import path from 'node:path';

/**
 * Where tsadm keeps etcd snapshots by default and how it names them (pure). Only files named
 * `etcd-snapshot-<UTC time>.db` are tsadm's: `snapshot list` shows them and `snapshot prune`
 * never deletes anything else in the directory.
 */
export const DEFAULT_SNAPSHOT_DIR = '/var/lib/tsadm/etcd-snapshots';

const NAME = /^etcd-snapshot-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})Z\.db$/;

/** `etcd-snapshot-20261127T115500.123Z.db` for that instant (UTC, milliseconds: two saves in one second do not collide). */
export function snapshotFileName(at: Date): string {
  const iso = at.toISOString(); // 2026-11-27T11:55:00.123Z
  return `etcd-snapshot-${iso.slice(0, 10).replaceAll('-', '')}T${iso.slice(11, 19).replaceAll(':', '')}.${iso.slice(20, 23)}Z.db`;
}

/** The time in a tsadm snapshot name; undefined for any other name. */
export function parseSnapshotFileName(name: string): Date | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as [number, number, number, number, number, number, number, number];
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  // A name whose fields do not make a real time (month 13) is not one tsadm wrote.
  return snapshotFileName(at) === name ? at : undefined;
}

export interface SnapshotEntry {
  readonly name: string;
  readonly path: string;
  readonly takenAt: Date;
}

/** tsadm's snapshots among `names` in `dir`, newest first. */
export function snapshotEntries(dir: string, names: readonly string[]): SnapshotEntry[] {
  return names
    .map((name) => ({ name, takenAt: parseSnapshotFileName(name) }))
    .filter((e): e is { name: string; takenAt: Date } => e.takenAt !== undefined)
    .map((e) => ({ ...e, path: path.posix.join(dir, e.name) }))
    .sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime());
}

/** What `prune --keep N` deletes: tsadm's snapshots beyond the newest `keep`. */
export function snapshotsToPrune(dir: string, names: readonly string[], keep: number): SnapshotEntry[] {
  return snapshotEntries(dir, names).slice(keep);
}
