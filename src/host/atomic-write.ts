import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface AtomicWriteHooks {
  /** Runs when the temp file is complete, just before it is renamed into place (fault tests). */
  readonly beforeRename?: () => void;
}

/**
 * Writes a file atomically: a temp file in the same directory created with O_EXCL|O_NOFOLLOW and
 * the final mode from the start (so a key is never readable by others, even transiently), fsync,
 * rename over the target, fsync of the directory. A symlink planted at the target is replaced,
 * never followed. (write-file-atomic resolves symlinks on purpose, which is what we must not do,
 * hence this small function instead of the library.)
 *
 * The temp name is a dot-file (the kubelet ignores those in the manifests dir) carrying the
 * writer's PID, so temp files left by a run killed mid-write are removed by the next write of
 * the same target once that PID is gone: a crash never leaves a stray copy of a key or
 * kubeconfig behind for good.
 */
export async function writeFileAtomic(target: string, data: Uint8Array | string, mode: number, hooks: AtomicWriteHooks = {}): Promise<void> {
  await replaceAtomically(target, mode, hooks, (handle) => handle.writeFile(data));
}

/**
 * writeFileAtomic for content too large to hold in memory (an etcd snapshot): the chunks of
 * `source` go to the temp file as they come; when the iteration throws (a transfer cut short, an
 * integrity check that fails at the end) the temp file is removed and the target is untouched.
 * Resolves the number of bytes written.
 */
export async function writeStreamAtomic(target: string, source: AsyncIterable<Uint8Array>, mode: number, hooks: AtomicWriteHooks = {}): Promise<number> {
  let size = 0;
  await replaceAtomically(target, mode, hooks, async (handle) => {
    // Chunks gathered to 1 MiB per write (a snapshot arrives in 32 KiB messages), written with one
    // writev: copying them into one buffer first cost ~22 ms of a 59 MiB save (a CPU profile).
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    for await (const chunk of source) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      size += chunk.length;
      if (pendingBytes >= 1 << 20) {
        await writeAll(handle, pending);
        pending = [];
        pendingBytes = 0;
      }
    }
    if (pendingBytes > 0) await writeAll(handle, pending);
  });
  return size;
}

/** writev until every byte is written (a short write continues where it stopped). */
async function writeAll(handle: fs.FileHandle, buffers: readonly Uint8Array[]): Promise<void> {
  const rest = [...buffers];
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest);
    if (bytesWritten === 0 && rest.some((b) => b.length > 0)) throw new Error('the file system accepted no bytes (writev wrote 0)');
    while (rest.length > 0 && bytesWritten >= rest[0]!.length) {
      bytesWritten -= rest[0]!.length;
      rest.shift();
    }
    if (rest.length > 0 && bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
}

/** The one temp-file-then-rename sequence of both writers; `fill` writes the content. */
async function replaceAtomically(target: string, mode: number, hooks: AtomicWriteHooks, fill: (handle: fs.FileHandle) => Promise<unknown>): Promise<void> {
  const dir = path.dirname(target);
  const tmp = path.join(dir, `${tempPrefix(target)}${process.pid}-${randomBytes(6).toString('hex')}`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await fs.open(tmp, flags, mode);
  try {
    await handle.chmod(mode); // the process umask must not loosen or tighten kubeadm's modes
    await fill(handle);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  // A fault injected here is a kill before the rename: the temp stays, as after a real one.
  hooks.beforeRename?.();
  await renameIntoPlace(tmp, target);
}

/**
 * Makes LINK a symbolic link whose content is TARGET, atomically: the link is created under a
 * temp name beside LINK (the temp names of writeFileAtomic, so a run killed between the two
 * steps leaves a temp the next write of LINK removes), then renamed over whatever LINK is (a
 * file or an older link), as the kubelet's certificate store swaps its "-current" link. Readers
 * see the old link or the new one, never none.
 */
export async function symlinkAtomic(link: string, target: string, hooks: AtomicWriteHooks = {}): Promise<void> {
  const dir = path.dirname(link);
  const tmp = path.join(dir, `${tempPrefix(link)}${process.pid}-${randomBytes(6).toString('hex')}`);
  await fs.symlink(target, tmp);
  await renameIntoPlace(tmp, link, hooks.beforeRename);
}

/**
 * The last step of both atomic writes: TMP (beside TARGET) renamed over TARGET, the temp removed
 * if that fails, the directory synced so the rename survives a crash, and older temps of TARGET
 * (left by killed runs) removed. `beforeRename` runs inside the cleanup (the symlink's hook).
 */
async function renameIntoPlace(tmp: string, target: string, beforeRename?: () => void): Promise<void> {
  try {
    beforeRename?.();
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDir(path.dirname(target));
  await removeStaleTemps(target);
}

/** `.<name>.tsadm-`: what every temp file of `target` starts with. */
function tempPrefix(target: string): string {
  return `.${path.basename(target)}.tsadm-`;
}

/** Deletes temp files of `target` whose writer process no longer exists. */
async function removeStaleTemps(target: string): Promise<void> {
  const dir = path.dirname(target);
  const prefix = tempPrefix(target);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-[0-9a-f]{12}$/.exec(name.slice(prefix.length))?.[1] ?? 0);
    if (pid > 0 && pid !== process.pid && !processExists(pid)) await fs.rm(path.join(dir, name), { force: true });
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
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
