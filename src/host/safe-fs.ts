/**
 * File-system guards of the rooted host against a hostile machine state (found by the hostile
 * corpus, test/fixtures/hostile): a FIFO where a file is read must not hang tsadm, a huge or
 * sparse file must not be pulled into memory, and under --rootfs a symbolic link must not lead
 * a read, write or removal outside the rootfs (tsadm does not chroot, so an absolute link in a
 * rootfs would otherwise point into the real machine).
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { TsadmError } from '../errors.js';

/** Nothing tsadm reads (configs, PEM, kubeconfigs, manifests, /proc files) comes near this. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/** A file opened by openRegularFile: its descriptor and the status of that descriptor (not of the path). */
export interface OpenedRegularFile {
  readonly handle: fs.FileHandle;
  readonly stat: Stats;
}

export interface OpenRegularOptions {
  /** The largest size accepted (default MAX_READ_BYTES; Infinity: any). */
  readonly maxBytes?: number;
  /** How the size refusal names the limit (default: "any file tsadm reads"). */
  readonly limitName?: string;
  /** Refuse a symbolic link as the last component (O_NOFOLLOW) instead of following it. */
  readonly noFollow?: boolean;
  /** The caller's error for PROBLEM ("it is not a regular file"); default: refusing to read HOSTPATH: PROBLEM. */
  readonly refuse?: (problem: string) => Error;
}

/**
 * Opens a file for reading and judges what was opened, never the path again: O_NONBLOCK makes
 * opening a FIFO return at once instead of waiting for a writer (regular files ignore the flag);
 * fstat on the descriptor then refuses anything but a regular file of sane size (a link to
 * /dev/zero opens a character device, refused before a byte is read). The caller closes the handle.
 * A missing file is the open's own ENOENT error.
 */
export async function openRegularFile(real: string, hostPath: string, opts: OpenRegularOptions = {}): Promise<OpenedRegularFile> {
  const refuse = opts.refuse ?? ((problem: string) => new TsadmError('E_PRECONDITION', `refusing to read ${hostPath}: ${problem}`, { hint: `remove ${real} or replace it with the expected file` }));
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK | (opts.noFollow === true ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    if (opts.noFollow === true && (err as NodeJS.ErrnoException).code === 'ELOOP') throw refuse('it is a symbolic link');
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw refuse('it is not a regular file');
    const maxBytes = opts.maxBytes ?? MAX_READ_BYTES;
    if (stat.size > maxBytes) throw refuse(`it is ${stat.size} bytes, more than ${opts.limitName ?? 'any file tsadm reads'}`);
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * The bytes of an opened file in chunks (each a buffer of its own), read by its descriptor; a
 * file that grows past `maxBytes` while it is read is refused there, so memory and time stay
 * bounded by the limit whatever the file does after its fstat.
 */
export async function* regularFileChunks(opened: OpenedRegularFile, maxBytes: number, refuse: (problem: string) => Error, chunkBytes = 1 << 20): AsyncGenerator<Buffer> {
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await opened.handle.read(buf, 0, chunkBytes, null);
    if (bytesRead === 0) return;
    total += bytesRead;
    if (total > maxBytes) throw refuse(`it grew past ${maxBytes} bytes while it was read`);
    yield buf.subarray(0, bytesRead);
  }
}

/**
 * Reads a regular file (openRegularFile: a FIFO does not block, a device or an oversized file is
 * refused by the status of the open descriptor).
 */
export async function readRegularFile(real: string, hostPath: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
  const { handle } = await openRegularFile(real, hostPath, { maxBytes });
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Under a --rootfs (root ≠ "/"), throws unless `real` — or, when it does not exist yet, its
 * nearest existing ancestor — resolves inside the root. `followFinal: false` judges the parent
 * only (for writes and removals, which never follow a link in the last component).
 */
export async function assertInsideRoot(root: string, real: string, hostPath: string, opts: { followFinal: boolean }): Promise<void> {
  if (root === '/') return;
  const rootReal = await fs.realpath(root);
  let probe = opts.followFinal ? real : path.dirname(real);
  for (;;) {
    let resolved: string;
    try {
      resolved = await fs.realpath(probe);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && probe !== path.dirname(probe)) {
        probe = path.dirname(probe);
        continue;
      }
      return; // ELOOP and the like: the operation itself reports it
    }
    if (resolved !== rootReal && !resolved.startsWith(`${rootReal}${path.sep}`)) {
      throw new TsadmError('E_PRECONDITION', `refusing to use ${hostPath}: a symbolic link in its path leads outside the --rootfs (to ${resolved})`, {
        hint: `replace the link with a directory or file inside ${root}`,
      });
    }
    return;
  }
}
