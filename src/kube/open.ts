import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { journalOf } from '../plan/journal.js';
import type { ApiLog } from './api-log.js';
import { DryRunKubeApi } from './dry-run-api.js';
import { RestKubeApi } from './rest-api.js';
import { DEFAULT_RETRY, NO_RETRY, type RetryPolicy } from './retry.js';
import { transportFromKubeconfig } from './transport.js';
import type { KubeApi } from './types.js';

export interface OpenKubeApiOptions {
  /** Reads the kubeconfig: under --rootfs, and through the dry-run overlay (a planned admin.conf counts). */
  readonly host: Pick<Host, 'readFile'>;
  /** Host path, e.g. /etc/kubernetes/admin.conf. */
  readonly kubeconfigPath: string;
  readonly log: ApiLog;
  readonly dryRun: boolean;
  readonly retry?: RetryPolicy;
}

/**
 * The KubeApi a command uses: real, or dry-run over a best-effort real reader. A dry-run never
 * waits for an absent API server (one quick attempt, then "empty cluster").
 */
export async function openKubeApi(o: OpenKubeApiOptions): Promise<KubeApi> {
  const text = (await o.host.readFile(o.kubeconfigPath))?.toString('utf8');
  if (o.dryRun) {
    // A dry-run host's journal also records what the API calls would change (for --plan).
    const journal = journalOf(o.host);
    const plan = journal ? { journal, kubeconfig: o.kubeconfigPath } : undefined;
    if (text === undefined) return new DryRunKubeApi(undefined, o.log, plan);
    const transport = await transportFromKubeconfig(text, o.kubeconfigPath, 2000).catch(() => undefined);
    const reader = transport ? new RestKubeApi(transport, { retry: NO_RETRY }) : undefined;
    return new DryRunKubeApi(reader, o.log, plan && transport ? { ...plan, server: transport.server } : plan);
  }
  if (text === undefined) {
    throw new TsadmError('E_PRECONDITION', `couldn't read the kubeconfig ${o.kubeconfigPath}: no such file`, {
      hint: 'create it first (tsadm init phase kubeconfig admin) or point --kubeconfig at an admin kubeconfig',
    });
  }
  const transport = await transportFromKubeconfig(text, o.kubeconfigPath);
  return new RestKubeApi(transport, { log: o.log, retry: o.retry ?? DEFAULT_RETRY });
}
