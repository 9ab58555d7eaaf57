/**
 * Patch, serialize and write one static pod manifest (kubeadm's PatchStaticPod +
 * WriteStaticPodToDisk). The host reports `unchanged` when the bytes and mode already match,
 * so a re-run rewrites nothing.
 */
import path from 'node:path';
import { MANIFESTS_DIR, MODES } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { FileRecord } from '../host/host.js';
import { patchTargetsFor } from '../patches/filename.js';
import { patchTarget, type PatchCtx } from '../patches/run.js';
import { POD_PATCH_SCHEMA } from '../patches/schema.js';
import type { VersionProfile } from '../versions/table-types.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { normalizePatchedPod } from './normalize.js';
import type { Pod, StaticPodComponent } from './pod.js';
import { podToJson } from './static-pod.js';
import { toKubeYaml } from '../yaml/write.js';

export function manifestPath(component: StaticPodComponent): string {
  return path.posix.join(MANIFESTS_DIR, `${component}.yaml`);
}

/** The manifest's final object: the rendered pod with the --patches for this component applied. */
export async function patchedManifest(ctx: PatchCtx, component: StaticPodComponent, pod: Pod, patchesDir: string | undefined, versions: VersionProfile): Promise<JsonObject> {
  const doc = podToJson(pod);
  if (!patchesDir) return doc;
  const patched = await patchTarget(ctx, patchesDir, component, patchTargetsFor(versions), doc, POD_PATCH_SCHEMA);
  if (patched === doc) return doc;
  const result = normalizePatchedPod(patched, { omitEmptyCreationTimestamp: versions.controlPlane.omitEmptyCreationTimestamp });
  const problem = podProblem(result);
  if (problem) {
    throw new TsadmError('E_CONFIG_INVALID', `patches from "${patchesDir}" made the static Pod manifest for "${component}" invalid: ${problem}`, {
      hint: 'check the patch files for this component; the result must still be a Pod with its containers',
    });
  }
  return result;
}

/** The few things a patched document must still have to be the static pod it was. */
function podProblem(pod: JsonObject): string | undefined {
  if (pod.apiVersion !== 'v1' || pod.kind !== 'Pod') return 'it is no longer a v1 Pod (apiVersion/kind changed)';
  const spec = pod.spec;
  if (!isJsonObject(spec) || !Array.isArray(spec.containers) || spec.containers.length === 0) return 'spec.containers is missing or empty';
  if (!spec.containers.every((c) => isJsonObject(c) && typeof c.name === 'string' && c.name !== '')) return 'every container needs a name';
  return undefined;
}

export async function writeManifest(ctx: PatchCtx, component: StaticPodComponent, manifest: JsonObject): Promise<FileRecord> {
  await ctx.host.mkdir(MANIFESTS_DIR, MODES.manifestsDir);
  return ctx.host.writeFile(manifestPath(component), toKubeYaml(manifest), {
    mode: MODES.manifest,
    kind: 'manifest',
    description: `static Pod manifest for "${component}"`,
  });
}
