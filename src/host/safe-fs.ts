/**
 * File-system guards of the rooted host against a hostile machine state (found by the hostile
 * corpus, test/fixtures/hostile): a FIFO where a file is read must not hang tsadm, a huge or
 * sparse file must not be pulled into memory, and under --rootfs a symbolic link must not lead
 * a read, write or removal outside the rootfs (tsadm does not chroot, so an absolute link in a
 * rootfs would otherwise point into the real machine).
 */
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { TsadmError } from '../errors.js';

/** Nothing tsadm reads (configs, PEM, kubeconfigs, manifests, /proc files) comes near this. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * Reads a regular file. O_NONBLOCK makes opening a FIFO return at once instead of waiting for a
 * writer; fstat on the open descriptor then refuses anything but a regular file of sane size.
 */
export async function readRegularFile(real: string, hostPath: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
  const handle = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) {
      throw new TsadmError('E_PRECONDITION', `refusing to read ${hostPath}: it is not a regular file`, { hint: `remove ${real} or replace it with the expected file` });
    }
    if (st.size > maxBytes) {
      throw new TsadmError('E_PRECONDITION', `refusing to read ${hostPath}: it is ${st.size} bytes, more than any file tsadm reads`, {
        hint: `remove ${real} or replace it with the expected file`,
      });
    }
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
