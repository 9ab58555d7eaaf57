/**
 * The phase-facing side of --patches: load a directory once per run (kubeadm caches per path
 * for the process, so its "[patches] Reading patches…" notices appear once), apply the patches
 * of one target, and report kubeadm's "[patches] …" lines.
 */
import path from 'node:path';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/events.js';
import type { JsonObject, JsonValue } from '../json.js';
import { applyPatchFiles } from './apply.js';
import { loadPatches, type LoadedPatches } from './load.js';
import type { PatchSchema } from './schema.js';

/** Patch directories read in this run, by directory and targets (kept on the run's context). */
export type PatchCache = Map<string, Promise<LoadedPatches>>;

export function newPatchCache(): PatchCache {
  return new Map();
}

export interface PatchCtx {
  readonly host: Host;
  readonly log: Logger;
  readonly state: { readonly patches: PatchCache };
}

/**
 * A relative --patches directory is relative to the working directory, as for kubeadm; under
 * --rootfs kubeadm has chrooted and changed to "/", so it is relative to the root there.
 */
function absolutePatchesDir(host: Host, dir: string): string {
  if (path.posix.isAbsolute(dir)) return dir;
  return host.root === '/' ? path.resolve(dir) : path.posix.resolve('/', dir);
}

async function loadOnce(ctx: PatchCtx, dir: string, targets: readonly string[]): Promise<LoadedPatches> {
  const byDir = ctx.state.patches;
  const key = `${dir}\0${targets.join(',')}`;
  const existing = byDir.get(key);
  if (existing) return existing;
  const pending = loadPatches(ctx.host, dir, targets);
  byDir.set(key, pending);
  try {
    const patches = await pending;
    // Only the first reader reports the directory, as kubeadm's cache makes it do.
    for (const line of patches.notices) ctx.log.info(line, { prefix: 'patches' });
    return patches;
  } catch (err) {
    byDir.delete(key); // not cached: the next phase reports the error again
    throw err;
  }
}

/**
 * `doc` with the patches of `target` from `dir` applied (unchanged when dir is undefined or holds
 * no patch for the target).
 */
export async function patchTarget(
  ctx: PatchCtx,
  dir: string | undefined,
  target: string,
  knownTargets: readonly string[],
  doc: JsonObject,
  schema: PatchSchema,
): Promise<JsonValue> {
  if (!dir) return doc;
  const absolute = absolutePatchesDir(ctx.host, dir);
  const patches = await loadOnce(ctx, absolute, knownTargets);
  const { result, notices } = applyPatchFiles(target, doc, patches.files, schema, absolute);
  for (const line of notices) ctx.log.info(line, { prefix: 'patches' });
  return result;
}
