import { createHash, type Hash } from 'node:crypto';

/**
 * The integrity of an etcd snapshot, checked as its bytes go by (pure: no I/O). etcd's
 * Maintenance.Snapshot sends the bbolt database file and then the SHA-256 of all of it, and
 * `etcdctl snapshot save` keeps those 32 bytes at the end of the file; etcd's restore recognises
 * them by the size (a bbolt file is whole pages, so `size % 512 == 32` means "hash appended",
 * etcd's snapshot.hasChecksum) and refuses a file whose hash does not match. tsadm checks the same
 * before it saves a snapshot under its final name and before a restore changes anything, plus
 * the bbolt magic of the first meta page (0xED0CDAED at offset 16, little-endian; bbolt's meta
 * struct after the 16-byte page header) so that a file that is not an etcd database at all is
 * named as such.
 */
const BBOLT_MAGIC = 0xed0cdaed;
const HASH_SIZE = 32;

export interface SnapshotCheck {
  readonly ok: boolean;
  /** Why not, in a few words ("truncated", "checksum mismatch", ...). */
  readonly problem?: string;
  /** Size of the whole file (database + 32-byte hash). */
  readonly size: number;
  /** SHA-256 of the whole file, hex ('' when the verifier was made without it). */
  readonly fileSha256: string;
}

export class SnapshotVerifier {
  private readonly dbHash: Hash = createHash('sha256');
  /** Whether to report the whole file's hash (derived from the database hash's state: one pass over the bytes). */
  private readonly wantFileHash: boolean;
  private tail: Buffer = Buffer.alloc(0);
  private head: Buffer = Buffer.alloc(0);
  private size = 0;
  private result: SnapshotCheck | undefined;

  constructor(opts: { fileHash?: boolean } = {}) {
    this.wantFileHash = opts.fileHash !== false;
  }

  update(chunk: Uint8Array): void {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.size += buf.length;
    if (this.head.length < 24) this.head = Buffer.concat([this.head, buf.subarray(0, 24 - this.head.length)]);
    // Everything but the last 32 bytes seen so far goes into the database hash.
    if (buf.length >= HASH_SIZE) {
      this.dbHash.update(this.tail);
      this.dbHash.update(buf.subarray(0, buf.length - HASH_SIZE));
      this.tail = Buffer.from(buf.subarray(buf.length - HASH_SIZE));
    } else {
      const both = Buffer.concat([this.tail, buf]);
      const cut = Math.max(0, both.length - HASH_SIZE);
      this.dbHash.update(both.subarray(0, cut));
      this.tail = Buffer.from(both.subarray(cut));
    }
  }

  /** The verdict once every byte went through update (computed once; later calls return it again). */
  finish(): SnapshotCheck {
    this.result ??= this.verdict();
    return this.result;
  }

  private verdict(): SnapshotCheck {
    // The file is the database then the 32-byte tail: its hash continues the database's.
    const fileSha256 = this.wantFileHash ? this.dbHash.copy().update(this.tail).digest('hex') : '';
    const base = { size: this.size, fileSha256 };
    const dbSha = this.dbHash.digest();
    if (this.size === 0) return { ...base, ok: false, problem: 'it is empty' };
    if (this.head.length < 24 || this.head.readUInt32LE(16) !== BBOLT_MAGIC) return { ...base, ok: false, problem: 'it is not an etcd (bbolt) database' };
    if (this.size % 512 !== HASH_SIZE) return { ...base, ok: false, problem: `it is truncated or has no checksum (${this.size} bytes is not whole database pages plus a 32-byte SHA-256)` };
    if (!dbSha.equals(this.tail)) return { ...base, ok: false, problem: 'its SHA-256 checksum does not match its content (damaged)' };
    return { ...base, ok: true };
  }
}

/** The check of a snapshot held in memory (tests, small files). */
export function checkSnapshot(data: Uint8Array): SnapshotCheck {
  const v = new SnapshotVerifier();
  v.update(data);
  return v.finish();
}

/** Passes `source` through, feeding `verifier`; throws `onBad(check)` at the end when the check fails. */
export async function* verifying(source: AsyncIterable<Uint8Array>, verifier: SnapshotVerifier, onBad: (check: SnapshotCheck) => Error): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    verifier.update(chunk);
    yield chunk;
  }
  const check = verifier.finish();
  if (!check.ok) throw onBad(check);
}
