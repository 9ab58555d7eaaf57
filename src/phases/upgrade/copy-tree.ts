/**
 * kubeadm's CopyDir (`cp -r`) through the host seam, for the etcd data backup and its restore:
 * every directory and regular file with its permission bits, each file written atomically. A
 * symbolic link is refused rather than followed (etcd's data directory holds none; following one
 * could copy, or overwrite, something outside the tree).
 *
 * Files are read whole: etcd's database is a single file that etcd itself keeps in memory-mapped
 * pages, so a node that runs etcd has the memory to hold it once more.
 */
import path from 'node:path';
import { TsadmError } from '../../errors.js';
import type { Host } from '../../host/host.js';

/** Copies the directory `from` to `to` (created, or merged into when it exists). Returns the number of files copied. */
export async function copyTree(host: Host, from: string, to: string): Promise<number> {
  const st = await host.stat(from);
  if (!st?.isDirectory || st.isSymlink) {
    throw new TsadmError('E_PRECONDITION', `cannot copy ${from}: it is not a directory`, { hint: `check that ${from} is etcd's data directory` });
  }
  await host.mkdir(to, st.mode & 0o777);
  let files = 0;
  for (const name of await host.readdir(from)) {
    const src = path.posix.join(from, name);
    const dst = path.posix.join(to, name);
    const entry = await host.stat(src);
    if (!entry) continue; // removed meanwhile
    if (entry.isSymlink) {
      throw new TsadmError('E_PRECONDITION', `refusing to copy ${src}: it is a symbolic link`, { hint: `remove the link or copy ${from} by hand` });
    }
    if (entry.isDirectory) {
      files += await copyTree(host, src, dst);
    } else if (entry.isFile) {
      const data = await host.readFile(src);
      if (data === undefined) continue;
      await host.writeFile(dst, data, { mode: entry.mode & 0o777, kind: 'other', description: `copy of ${src}` });
      files++;
    }
  }
  return files;
}
