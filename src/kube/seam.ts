import path from 'node:path';
import type { Host } from '../host/host.js';
import type { KubeconfigFiles } from './credential-policy.js';
import { journalOf } from '../host/journal.js';
import type { ApiLog } from './api-log.js';
import type { RetryPolicy } from './retry.js';
import type { KubeApi } from './types.js';

/** Whose credentials a client uses. */
type KubeconfigSource =
  /** A kubeconfig file on the host (under --rootfs, through the dry-run overlay); a dry run records its planned writes in the plan. */
  | { readonly path: string }
  /** Credentials in hand (discovery's bootstrap kubeconfig, a file the caller read); `source` names them in messages. */
  | { readonly text: string; readonly source: string };

export interface ApiOpenOptions {
  readonly log: ApiLog;
  /** Retries of a real client's transient failures (DEFAULT_RETRY by default). */
  readonly retry?: RetryPolicy;
  /** Request timeout of a real client (the transport's default, 30 s, when unset). */
  readonly requestTimeoutMs?: number;
  /** Request timeout of a dry run's reads of the cluster (2 s by default: a dry run never waits for an absent cluster). */
  readonly dryRunRequestTimeoutMs?: number;
  /**
   * Runs once, on the first open of this kubeconfig in the run (e.g. init's kubeadm:cluster-admins
   * binding); when it fails, the open fails and the next caller tries again.
   */
  readonly prepare?: (api: KubeApi) => Promise<void>;
}

/**
 * How the phases of one run reach the cluster, chosen once by the runtime as the host is: real
 * REST, or dry-run (reads pass through to the cluster when it answers, writes are listed and,
 * for a --plan, recorded in the host's journal). Phases ask the seam of their context for a
 * client and never choose a kind themselves. A client is opened once per kubeconfig, retry
 * policy and timeouts in a run; the workflow closes the seam, and with it every client, when
 * the run ends.
 */
export interface ApiSeam {
  /** True when writes are listed rather than sent (the run's --dry-run). */
  readonly dryRun: boolean;
  open(kubeconfig: KubeconfigSource, options: ApiOpenOptions): Promise<KubeApi>;
  /** Closes every client opened through this seam. */
  close(): void;
}

/** The seam of a run over `host`: a dry-run seam when `dryRun` (the host then is a DryRunHost). */
export function createApiSeam(host: SeamHost, dryRun: boolean): ApiSeam {
  return new OpeningApiSeam(dryRun, async (kubeconfig, o) => {
    const text = 'path' in kubeconfig ? (await host.readFile(kubeconfig.path))?.toString('utf8') : kubeconfig.text;
    const source = 'path' in kubeconfig ? kubeconfig.path : kubeconfig.source;
    // Credentials in hand whose source is a host path were read from that file; others (discovery's) name no file.
    const files = 'path' in kubeconfig || source.startsWith('/') ? kubeconfigFilesOn(host, source) : undefined;
    // Loaded on first use: a command that never reaches a cluster (a snapshot save) does not load
    // the REST and dry-run clients at start-up (docs/decisions.md, decision 65).
    const { openKubeApi } = await import('./open.js');
    return openKubeApi({
      kubeconfigText: text,
      ...(dryRun && 'path' in kubeconfig && (await plansOnly(host, kubeconfig.path)) ? { plannedByThisRun: true } : {}),
      source,
      ...(files ? { files } : {}),
      log: o.log,
      dryRun,
      // Only a kubeconfig file can be named in a plan that `tsadm apply` replays.
      ...('path' in kubeconfig ? { journal: journalOf(host) } : {}),
      ...(o.retry ? { retry: o.retry } : {}),
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
      ...(o.dryRunRequestTimeoutMs !== undefined ? { dryRunRequestTimeoutMs: o.dryRunRequestTimeoutMs } : {}),
    });
  });
}

/**
 * The files a kubeconfig at host path KUBECONFIG names, read through HOST (so under --rootfs they
 * resolve inside that root, with the host seam's guards); its exec plugin runs only on the
 * machine's own root (src/kube/credential-policy.ts).
 */
export function kubeconfigFilesOn(host: SeamHost, kubeconfig: string): KubeconfigFiles {
  return { read: (p) => host.readFile(p), dir: path.posix.dirname(kubeconfig), allowExec: (host.root ?? '/') === '/' };
}

/** What the seam needs of the host: its reads, and its root ("/" when unset). */
type SeamHost = Pick<Host, 'readFile'> & { readonly root?: string };

type Opener = (kubeconfig: KubeconfigSource, options: ApiOpenOptions) => Promise<KubeApi>;

class OpeningApiSeam implements ApiSeam {
  private readonly clients = new Map<string, Promise<KubeApi>>();
  private readonly opened: KubeApi[] = [];

  constructor(readonly dryRun: boolean, private readonly openClient: Opener) {}

  open(kubeconfig: KubeconfigSource, options: ApiOpenOptions): Promise<KubeApi> {
    // One client per kubeconfig and way of calling (retries, timeouts): a quick probe and a patient writer differ.
    const how = JSON.stringify([options.retry ?? null, options.requestTimeoutMs ?? null, options.dryRunRequestTimeoutMs ?? null]);
    const key = 'path' in kubeconfig ? `path\0${kubeconfig.path}\0${how}` : `text\0${kubeconfig.source}\0${kubeconfig.text}\0${how}`;
    let client = this.clients.get(key);
    if (!client) {
      client = (async () => {
        const api = await this.openClient(kubeconfig, options);
        this.opened.push(api);
        await options.prepare?.(api);
        return api;
      })();
      this.clients.set(key, client);
      // A failed open is tried again by the next caller (e.g. the next phase).
      client.catch(() => { if (this.clients.get(key) === client) this.clients.delete(key); });
    }
    return client;
  }

  close(): void {
    for (const api of this.opened.splice(0)) api.close();
    this.clients.clear();
  }
}

/** A dry-run host's answer to "does only this run's plan have PATH?" (false for any other host). */
async function plansOnly(host: object, hostPath: string): Promise<boolean> {
  const plans = (host as { plansOnly?: (p: string) => Promise<boolean> }).plansOnly;
  return typeof plans === 'function' ? plans.call(host, hostPath) : false;
}
