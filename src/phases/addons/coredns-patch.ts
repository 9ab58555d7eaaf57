/**
 * The `corednsdeployment` --patches target (kubeadm 1.31, PR #124820): kubeadm's addon phase
 * applies the patches of that target to the CoreDNS Deployment it rendered, before creating or
 * updating it, in init and in upgrade alike. Before 1.31 the target is unknown and its files are
 * skipped with kubeadm's "unknown target" notice.
 */
import { COREDNS_DEPLOYMENT_PATCH_TARGET } from '../../patches/filename.js';
import type { PatchCtx } from '../../patches/run.js';
import { DEPLOYMENT_PATCH_SCHEMA } from '../../patches/schema.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { addonObjectPatcher } from './addon-patch.js';
import type { DeploymentPatcher } from './coredns.js';

/** The patcher for this run, or undefined when there is no --patches directory or the minor has no such target. */
export function corednsDeploymentPatcher(ctx: PatchCtx, dir: string | undefined, versions: VersionProfile): DeploymentPatcher | undefined {
  return addonObjectPatcher(ctx, dir, versions, versions.addons.corednsPatchTarget,
    { target: COREDNS_DEPLOYMENT_PATCH_TARGET, schema: DEPLOYMENT_PATCH_SCHEMA, what: 'the CoreDNS Deployment' });
}
