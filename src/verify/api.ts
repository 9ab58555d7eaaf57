import { openKubeApi } from '../kube/open.js';
import { NO_RETRY } from '../kube/retry.js';
import type { KubeApi } from '../kube/types.js';
import type { InitCtx } from '../workflows/context.js';

/**
 * The API client exit checks read the cluster with: the run's kubeconfig, asked once (no
 * retries: a check reports "does not answer" instead of waiting), never dry-run (a check only
 * reads). The one place exit checks open the API; the caller closes it.
 */
export function openCheckApi(ctx: InitCtx): Promise<KubeApi> {
  return openKubeApi({ host: ctx.host, kubeconfigPath: ctx.options.kubeconfigPath, log: ctx.log, dryRun: false, retry: NO_RETRY });
}
