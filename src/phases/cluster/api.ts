import path from 'node:path';
import { KUBECONFIG_FILES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import { isForbidden } from '../../kube/errors.js';
import { openKubeApi } from '../../kube/open.js';
import { DEFAULT_RETRY } from '../../kube/retry.js';
import type { KubeApi } from '../../kube/types.js';
import type { InitCtx } from '../../workflows/context.js';
import { clusterRoleBinding, group } from './rbac.js';

/**
 * The API client of an init run, opened once per context from --kubeconfig (admin.conf by
 * default). Kept in a WeakMap rather than on the context because InitCtx has no API seam yet;
 * `useKubeApi` lets tests (or a future ctx.api) supply one.
 */
const clients = new WeakMap<object, Promise<KubeApi>>();

export function useKubeApi(ctx: object, api: KubeApi): void {
  clients.set(ctx, Promise.resolve(api));
}

export function kubeFor(ctx: InitCtx): Promise<KubeApi> {
  let api = clients.get(ctx);
  if (!api) {
    api = openInitApi(ctx);
    clients.set(ctx, api);
    api.catch(() => clients.delete(ctx)); // a failed open is retried by the next phase
  }
  return api;
}

async function openInitApi(ctx: InitCtx): Promise<KubeApi> {
  const retry = { ...DEFAULT_RETRY, deadlineMs: ctx.cfg.init.timeouts.kubernetesAPICallMs };
  const open = (kubeconfigPath: string): Promise<KubeApi> =>
    openKubeApi({ host: ctx.host, kubeconfigPath, log: ctx.log, dryRun: ctx.dryRun, retry });
  const api = await open(ctx.options.kubeconfigPath);
  const defaultAdmin = ctx.options.kubeconfigPath === path.posix.join(ctx.options.kubeconfigDir, KUBECONFIG_FILES.admin);
  if (ctx.versions.kubeconfig.superAdmin && defaultAdmin) {
    await ensureClusterAdminsBinding(api, () => open(path.posix.join(ctx.options.kubeconfigDir, KUBECONFIG_FILES.superAdmin)));
  }
  return api;
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
export async function ensureClusterAdminsBinding(admin: KubeApi, openSuperAdmin: () => Promise<KubeApi>): Promise<void> {
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
  try {
    await superAdmin.ensure(clusterAdminsBinding());
  } finally {
    superAdmin.close();
  }
}
