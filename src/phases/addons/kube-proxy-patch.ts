/**
 * The `kubeproxydaemonset` --patches target (kubeadm 1.37, PR #138090): kubeadm's addon phase
 * applies the patches of that target to the kube-proxy DaemonSet it rendered, before creating or
 * updating it, in init and in upgrade alike (as `corednsdeployment` does for CoreDNS). Before 1.37
 * the target is unknown: its files are skipped with kubeadm's "unknown target" notice when the
 * directory is read, and the DaemonSet is sent as rendered.
 */
import { TsadmError } from '../../errors.js';
import type { KubeObject } from '../../kube/types.js';
import { isJsonObject, type JsonObject } from '../../manifest/json.js';
import { KUBE_PROXY_DAEMONSET_PATCH_TARGET, patchTargetsFor } from '../../patches/filename.js';
import { patchTarget, type PatchCtx } from '../../patches/run.js';
import { DAEMONSET_PATCH_SCHEMA } from '../../patches/schema.js';
import type { VersionProfile } from '../../versions/table.js';

/** Rewrites the rendered DaemonSet before it is sent. */
export type DaemonSetPatcher = (daemonSet: KubeObject) => Promise<KubeObject>;

/** The patcher for this run, or undefined when there is no --patches directory or the minor has no such target. */
export function kubeProxyDaemonSetPatcher(ctx: PatchCtx, dir: string | undefined, versions: VersionProfile): DaemonSetPatcher | undefined {
  if (!dir || !versions.addons.kubeProxyPatchTarget) return undefined;
  return async (daemonSet) => {
    const doc = JSON.parse(JSON.stringify(daemonSet)) as JsonObject;
    const patched = await patchTarget(ctx, dir, KUBE_PROXY_DAEMONSET_PATCH_TARGET, patchTargetsFor(versions), doc, DAEMONSET_PATCH_SCHEMA);
    if (patched === doc) return daemonSet;
    if (!isJsonObject(patched) || !isJsonObject(patched.metadata) || typeof patched.apiVersion !== 'string' || typeof patched.kind !== 'string') {
      throw new TsadmError('E_CONFIG_INVALID', `patches from "${dir}" made the kube-proxy DaemonSet invalid: it must stay an object with apiVersion, kind and metadata`, {
        hint: `check the ${KUBE_PROXY_DAEMONSET_PATCH_TARGET} patch files`,
      });
    }
    return patched as unknown as KubeObject;
  };
}
