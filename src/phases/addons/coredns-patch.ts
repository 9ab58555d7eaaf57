/**
 * The `corednsdeployment` --patches target (kubeadm 1.31, PR #124820): kubeadm's addon phase
 * applies the patches of that target to the CoreDNS Deployment it rendered, before creating or
 * updating it, in init and in upgrade alike. Before 1.31 the target is unknown and its files are
 * skipped with kubeadm's "unknown target" notice.
 */
import { TsadmError } from '../../errors.js';
import type { KubeObject } from '../../kube/types.js';
import { isJsonObject, type JsonObject } from '../../manifest/json.js';
import { COREDNS_DEPLOYMENT_PATCH_TARGET, patchTargetsFor } from '../../patches/filename.js';
import { patchTarget, type PatchCtx } from '../../patches/run.js';
import { DEPLOYMENT_PATCH_SCHEMA } from '../../patches/schema.js';
import type { VersionProfile } from '../../versions/table.js';
import type { DeploymentPatcher } from './coredns.js';

/** The patcher for this run, or undefined when there is no --patches directory or the minor has no such target. */
export function corednsDeploymentPatcher(ctx: PatchCtx, dir: string | undefined, versions: VersionProfile): DeploymentPatcher | undefined {
  if (!dir || !versions.addons.corednsPatchTarget) return undefined;
  return async (deployment) => {
    const doc = JSON.parse(JSON.stringify(deployment)) as JsonObject;
    const patched = await patchTarget(ctx, dir, COREDNS_DEPLOYMENT_PATCH_TARGET, patchTargetsFor(versions), doc, DEPLOYMENT_PATCH_SCHEMA);
    if (patched === doc) return deployment;
    if (!isJsonObject(patched) || !isJsonObject(patched.metadata) || typeof patched.apiVersion !== 'string' || typeof patched.kind !== 'string') {
      throw new TsadmError('E_CONFIG_INVALID', `patches from "${dir}" made the CoreDNS Deployment invalid: it must stay an object with apiVersion, kind and metadata`, {
        hint: `check the ${COREDNS_DEPLOYMENT_PATCH_TARGET} patch files`,
      });
    }
    return patched as unknown as KubeObject;
  };
}
