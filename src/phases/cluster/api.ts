import path from 'node:path';
import { KUBECONFIG_FILES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import { isForbidden } from '../../kube/errors.js';
import { DEFAULT_RETRY } from '../../kube/retry.js';
import type { KubeApi } from '../../kube/types.js';
import type { InitCtx } from '../../run/context.js';
import { clusterRoleBinding, group } from '../../kube/rbac.js';

/**
 * The API client of an init run, from --kubeconfig (admin.conf by default), through the run's
 * API seam (ctx.api: opened on first use, closed when the run ends). From 1.29 the first open
 * also makes sure admin.conf has rights (the kubeadm:cluster-admins binding).
 */
export function clusterApi(ctx: InitCtx): Promise<KubeApi> {
  const options = { log: ctx.log, retry: { ...DEFAULT_RETRY, deadlineMs: ctx.cfg.init.timeouts.kubernetesAPICallMs } };
  const defaultAdmin = ctx.options.kubeconfigPath === path.posix.join(ctx.options.kubeconfigDir, KUBECONFIG_FILES.admin);
  const superAdminPath = path.posix.join(ctx.options.kubeconfigDir, KUBECONFIG_FILES.superAdmin);
  return ctx.api.open({ path: ctx.options.kubeconfigPath }, {
    ...options,
    ...(ctx.versions.kubeconfig.superAdmin && defaultAdmin
      ? { prepare: (api: KubeApi) => ensureClusterAdminsBinding(api, () => ctx.api.open({ path: superAdminPath }, options)) }
      : {}),
  });
}
/** ClusterRoleBinding kubeadm:cluster-admins → cluster-admin, for admin.conf's group (1.29+). */
export function clusterAdminsBinding() {
  return clusterRoleBinding('kubeadm:cluster-admins', 'cluster-admin', [group('kubeadm:cluster-admins')]);
}

/**
 * From 1.29 admin.conf is in group kubeadm:cluster-admins, which has no rights until this
 * binding exists; kubeadm creates it with admin.conf and, when that is forbidden, with
 * super-admin.conf (system:masters).
 */
async function ensureClusterAdminsBinding(admin: KubeApi, openSuperAdmin: () => Promise<KubeApi>): Promise<void> {
  try {
    await admin.ensure(clusterAdminsBinding());
    return;
  } catch (err) {
    if (!isForbidden(err)) throw err;
  }
  let superAdmin: KubeApi;
  try {
    superAdmin = await openSuperAdmin();
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', 'admin.conf may not create the kubeadm:cluster-admins ClusterRoleBinding and super-admin.conf is not usable', {
      cause: err,
      hint: 'create super-admin.conf (tsadm init phase kubeconfig super-admin) or bind group kubeadm:cluster-admins to cluster-admin yourself',
    });
  }
  // Closed with the run's API seam, like every client.
  await superAdmin.ensure(clusterAdminsBinding());
}
