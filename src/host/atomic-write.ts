import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file atomically: a temp file in the same directory created with O_EXCL|O_NOFOLLOW and
 * the final mode from the start (so a key is never readable by others, even transiently), fsync,
 * rename over the target, fsync of the directory. A symlink planted at the target is replaced,
 * never followed. (write-file-atomic resolves symlinks on purpose, which is what we must not do,
 * hence this small function instead of the library.)
 */
export async function writeFileAtomic(target: string, data: Uint8Array | string, mode: number): Promise<void> {
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.tsadm-${randomBytes(6).toString('hex')}`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await fs.open(tmp, flags, mode);
  try {
    await handle.chmod(mode); // the process umask must not loosen or tighten kubeadm's modes
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}
