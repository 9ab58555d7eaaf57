/**
 * The --patches targets of the addon objects (kubeadm's `corednsdeployment`, 1.31, and
 * `kubeproxydaemonset`, 1.37): kubeadm's addon phase applies a target's patches to the object it
 * rendered, before creating or updating it, in init and upgrade alike; a patch must leave an
 * object with apiVersion, kind and metadata.
 */
import { TsadmError } from '../../errors.js';
import type { KubeObject } from '../../kube/types.js';
import { isJsonObject, type JsonObject } from '../../json.js';
import { patchTargetsFor } from '../../patches/filename.js';
import { patchTarget, type PatchCtx } from '../../patches/run.js';
import type { PatchSchema } from '../../patches/schema.js';
import type { VersionProfile } from '../../versions/table-types.js';

/** Rewrites a rendered addon object before it is sent. */
export type ObjectPatcher = (object: KubeObject) => Promise<KubeObject>;

export interface AddonPatchTarget {
  /** The target's name in patch file names. */
  readonly target: string;
  readonly schema: PatchSchema;
  /** The object in messages ("the CoreDNS Deployment"). */
  readonly what: string;
}

/** The patcher of one target, or undefined when there is no --patches directory or the minor has no such target (`known`). */
export function addonObjectPatcher(ctx: PatchCtx, dir: string | undefined, versions: VersionProfile, known: boolean, t: AddonPatchTarget): ObjectPatcher | undefined {
  if (!dir || !known) return undefined;
  return async (object) => {
    const doc = JSON.parse(JSON.stringify(object)) as JsonObject;
    const patched = await patchTarget(ctx, dir, t.target, patchTargetsFor(versions), doc, t.schema);
    if (patched === doc) return object;
    if (!isJsonObject(patched) || !isJsonObject(patched.metadata) || typeof patched.apiVersion !== 'string' || typeof patched.kind !== 'string') {
      throw new TsadmError('E_CONFIG_INVALID', `patches from "${dir}" made ${t.what} invalid: it must stay an object with apiVersion, kind and metadata`, {
        hint: `check the ${t.target} patch files`,
      });
    }
    return patched as unknown as KubeObject;
  };
}
