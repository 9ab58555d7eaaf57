import { TsadmError, isTsadmError } from '../errors.js';
import { loadYaml } from '../yaml/read.js';
import type { PlanJournal } from '../host/journal.js';
import type { ApiLog } from './api-log.js';
import type { KubeconfigFiles } from './credential-policy.js';
import { DryRunKubeApi } from './dry-run-api.js';
import { RestKubeApi } from './rest-api.js';
import { DEFAULT_RETRY, NO_RETRY, type RetryPolicy } from './retry.js';
import { transportFromKubeconfig } from './transport.js';
import type { KubeApi } from './types.js';

export interface OpenKubeApiOptions {
  /** The kubeconfig's text; undefined when its file does not exist. */
  readonly kubeconfigText: string | undefined;
  /**
   * Dry run: the kubeconfig exists only as this run's planned write (init's admin.conf), so the
   * API server it names is one this run would start and nothing answers there yet.
   */
  readonly plannedByThisRun?: boolean;
  /** Where the kubeconfig comes from (a host path such as /etc/kubernetes/admin.conf, or what it is). */
  readonly source: string;
  /** How the files the kubeconfig names are read (undefined: it must name none; src/kube/credential-policy.ts). */
  readonly files?: KubeconfigFiles;
  readonly log: ApiLog;
  readonly dryRun: boolean;
  /** Dry run: where planned writes are recorded for --plan (the dry-run host's journal). */
  readonly journal?: PlanJournal | undefined;
  readonly retry?: RetryPolicy;
  /** Request timeout of a real client (the transport's default when unset). */
  readonly requestTimeoutMs?: number;
  /** Dry run: request timeout of its reads of the cluster (DRY_RUN_REQUEST_TIMEOUT_MS by default). */
  readonly dryRunRequestTimeoutMs?: number;
}

/** How long a dry run tries to reach the cluster for its reads before it plans for an empty one. */
const DRY_RUN_REQUEST_TIMEOUT_MS = 2000;

/**
 * The one way a client is made (src/kube/seam.ts calls it for every run): real, or dry-run over
 * a best-effort real reader. A dry run never waits for an absent API server (one quick
 * attempt, then "empty cluster").
 */
export async function openKubeApi(o: OpenKubeApiOptions): Promise<KubeApi> {
  const text = o.kubeconfigText;
  if (o.dryRun) {
    // A dry-run host's journal also records what the API calls would change (for --plan).
    const plan = o.journal ? { journal: o.journal, kubeconfig: o.source } : undefined;
    if (text === undefined) return new DryRunKubeApi(undefined, o.log, plan);
    // No cluster to read (decision 53): no connection, and so no client-node loaded (~27 MB RSS) by
    // a dry run that only writes files. The plan still names the server the file points at.
    if (o.plannedByThisRun) {
      const server = currentServer(text);
      o.log.info(`${o.source} is this run's own; dry-run assumes an empty cluster`, { prefix: 'dryrun', verbosity: 1 });
      return new DryRunKubeApi(undefined, o.log, plan && server ? { ...plan, server } : plan, server);
    }
    // A kubeconfig that cannot be used plans for an empty cluster, but one tsadm refuses to trust
    // (an auth-provider, a plugin under --rootfs) stops the dry run as it would stop the real one.
    const transport = await transportFromKubeconfig(text, o.source, o.dryRunRequestTimeoutMs ?? DRY_RUN_REQUEST_TIMEOUT_MS, o.files)
      .catch((err: unknown) => { if (isTsadmError(err) && err.code === 'E_TRUST') throw err; return undefined; });
    const reader = transport ? new RestKubeApi(transport, { retry: NO_RETRY }) : undefined;
    return new DryRunKubeApi(reader, o.log, plan && transport ? { ...plan, server: transport.server } : plan);
  }
  if (text === undefined) {
    throw new TsadmError('E_PRECONDITION', `couldn't read the kubeconfig ${o.source}: no such file`, {
      hint: 'create it first (tsadm init phase kubeconfig admin) or point --kubeconfig at an admin kubeconfig',
    });
  }
  const transport = await transportFromKubeconfig(text, o.source, o.requestTimeoutMs, o.files);
  return new RestKubeApi(transport, { log: o.log, retry: o.retry ?? DEFAULT_RETRY });
}

/**
 * The server of the current context of a kubeconfig this run wrote itself (so of a shape tsadm
 * knows), as the transport names it (no trailing slash); undefined when it has none.
 */
function currentServer(text: string): string | undefined {
  type Named<T> = { name?: string } & T;
  let doc: {
    'current-context'?: string;
    contexts?: Named<{ context?: { cluster?: string } }>[];
    clusters?: Named<{ cluster?: { server?: string } }>[];
  } | undefined;
  try {
    doc = loadYaml(text) as typeof doc;
  } catch {
    return undefined;
  }
  const cluster = doc?.contexts?.find((c) => c.name === doc?.['current-context'])?.context?.cluster;
  const server = doc?.clusters?.find((c) => c.name === cluster)?.cluster?.server;
  return typeof server === 'string' && server !== '' ? server.replace(/\/+$/, '') : undefined;
}
