import path from 'node:path';
import { TsadmError, errorMessage } from '../errors.js';
import { EtcdRequestError, type EtcdTls } from '../etcd-client/transport.js';
import type { FileRecord, Host } from '../host/host.js';
import { SnapshotVerifier, verifying, type SnapshotCheck } from './integrity.js';

/** A snapshot holds every Secret of the cluster: root only, as etcd's own data directory. */
const SNAPSHOT_MODE = 0o600;

export interface SaveOptions {
  readonly endpoint: string;
  readonly tls: EtcdTls;
  /** Host path of the snapshot file. */
  readonly file: string;
  /** Silence between two chunks that counts as a dead stream (default 30 s). */
  readonly idleTimeoutMs?: number;
  /** The bytes from etcd (tests; default: Maintenance.Snapshot from `endpoint`). */
  readonly source?: AsyncIterable<Uint8Array>;
}

export interface SaveResult {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  readonly dryRun: boolean;
}

/**
 * `tsadm etcd snapshot save`: streams etcd's snapshot into FILE through the host seam's atomic
 * streamed write (a temp file beside FILE, fsync, rename; mode 0600), checking its SHA-256 and
 * bbolt magic as the bytes go by: a snapshot that fails the check is never renamed into place, so
 * FILE is either the previous file or a whole, verified snapshot.
 */
export async function saveSnapshot(host: Host, opts: SaveOptions): Promise<SaveResult> {
  if (!path.posix.isAbsolute(opts.file)) throw new TsadmError('E_USAGE', `snapshot file "${opts.file}" is not an absolute path`);
  const st = await host.stat(opts.file);
  if (st?.isDirectory) throw new TsadmError('E_USAGE', `${opts.file} is a directory`, { hint: 'name the snapshot file, or leave FILE out for a timestamped name in the default directory' });
  const dir = path.posix.dirname(opts.file);
  if (dir !== '/' && !(await host.stat(dir))) await host.mkdir(dir, 0o700);
  // The verifier's hash of the whole file is the record's: one pass over the bytes, not two.
  const verifier = new SnapshotVerifier();
  // node:http2 (the snapshot stream's transport) is loaded by the save alone: every command reaches
  // this module through the CLI, and http2 adds ~2 MB of peak RSS to an init or join.
  const source = opts.source ?? (await import('../etcd-client/snapshot.js')).snapshotStream(opts.endpoint, opts.tls, opts.idleTimeoutMs);
  let record: FileRecord;
  try {
    record = await host.writeFileFrom(opts.file, verifying(source, verifier, (check) => badSnapshot(`the snapshot etcd sent (${opts.endpoint})`, check)), {
      mode: SNAPSHOT_MODE, kind: 'other', description: 'etcd snapshot', sha256Of: () => verifier.finish().fileSha256,
    });
  } catch (err) {
    if (err instanceof TsadmError) throw err;
    if (err instanceof EtcdRequestError) {
      throw new TsadmError('E_PRECONDITION', `etcd snapshot from ${err.endpoint} failed: ${err.message}`, {
        cause: err,
        hint: 'check that etcd runs on this control plane (crictl ps --name etcd) and that the etcd client certificates match its CA',
      });
    }
    throw new TsadmError('E_PRECONDITION', `etcd snapshot failed: ${errorMessage(err)}`, { cause: err });
  }
  return { path: opts.file, size: record.size, sha256: record.sha256, dryRun: host.dryRun };
}

/** The refusal of a damaged snapshot (one line, what is wrong and what to do). */
export function badSnapshot(what: string, check: SnapshotCheck): TsadmError {
  return new TsadmError('E_PRECONDITION', `${what} is not a whole etcd snapshot: ${check.problem ?? 'unknown problem'}`, {
    hint: 'use another snapshot (tsadm etcd snapshot list), or take a new one with tsadm etcd snapshot save',
  });
}
