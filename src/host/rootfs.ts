/**
 * --rootfs, judged once for every command: the directory that stands for the host's root ("/"
 * when unset). kubeadm chroots into it before any subcommand runs, so a path that is not a
 * directory fails every command; tsadm does the same here, in the seams layer, so that both the
 * runtime of a run (src/run/runtime.ts) and the commands that touch no host file
 * (src/cli/root-flags.ts) use one rule.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { TsadmError } from '../errors.js';

/** --rootfs must be an existing directory; "/" when unset. Returns the absolute path. */
export async function resolveRootfs(rootfs: string | undefined): Promise<string> {
  if (rootfs === undefined || rootfs === '') return '/';
  const abs = path.resolve(rootfs);
  const st = await fs.stat(abs).catch(() => undefined);
  if (!st?.isDirectory()) {
    throw new TsadmError('E_USAGE', `--rootfs ${rootfs}: not a directory`, { hint: 'pass the path of an existing directory that stands for the host root' });
  }
  return abs;
}
