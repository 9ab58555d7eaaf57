/**
 * The `kubeproxydaemonset` --patches target (kubeadm 1.37, PR #138090): kubeadm's addon phase
 * applies the patches of that target to the kube-proxy DaemonSet it rendered, before creating or
 * updating it, in init and in upgrade alike (as `corednsdeployment` does for CoreDNS). Before 1.37
 * the target is unknown: its files are skipped with kubeadm's "unknown target" notice when the
 * directory is read, and the DaemonSet is sent as rendered.
 */
import type { KubeObject } from '../../kube/types.js';
import { KUBE_PROXY_DAEMONSET_PATCH_TARGET } from '../../patches/filename.js';
import type { PatchCtx } from '../../patches/run.js';
import { DAEMONSET_PATCH_SCHEMA } from '../../patches/schema.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { addonObjectPatcher } from './addon-patch.js';

/** Rewrites the rendered DaemonSet before it is sent. */
export type DaemonSetPatcher = (daemonSet: KubeObject) => Promise<KubeObject>;

/** The patcher for this run, or undefined when there is no --patches directory or the minor has no such target. */
export function kubeProxyDaemonSetPatcher(ctx: PatchCtx, dir: string | undefined, versions: VersionProfile): DaemonSetPatcher | undefined {
  return addonObjectPatcher(ctx, dir, versions, versions.addons.kubeProxyPatchTarget,
    { target: KUBE_PROXY_DAEMONSET_PATCH_TARGET, schema: DAEMONSET_PATCH_SCHEMA, what: 'the kube-proxy DaemonSet' });
}
