import { loadYaml } from '../../yaml/read.js';
import { KUBECONFIG_FILES, KUBERNETES_DIR } from '../../constants.js';
import { TsadmError, errorMessage } from '../../errors.js';
import { EtcdClient } from '../../etcd-client/client.js';
import { EtcdRequestError } from '../../etcd-client/transport.js';
import { etcdClientURL, etcdTlsFromDir } from '../../etcd-client/urls.js';
import { NO_RETRY } from '../../kube/retry.js';
import type { JoinCtx } from './context.js';
import { ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION } from '../etcd/render.js';
import { clusterConfig, joinApiOptions } from './state.js';

/**
 * Where the stacked etcd members listen (kubeadm's etcdutil.NewFromCluster): the annotation the
 * etcd static pods carry, else (v1beta2 clusters) the control planes of ClusterStatus; then the
 * client follows the member list (Sync). Mirror pods appear about a minute after a control
 * plane starts, so the pod list is retried for a while before giving up.
 */
export function endpointsFromPods(pods: unknown): string[] {
  const items = (pods as { items?: Array<{ metadata?: { annotations?: Record<string, string> } }> } | undefined)?.items ?? [];
  return [...new Set(items.flatMap((p) => (p.metadata?.annotations?.[ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION] ?? '').split(',').filter(Boolean)))];
}

export function endpointsFromClusterStatus(clusterStatusYaml: string | undefined): string[] {
  if (!clusterStatusYaml) return [];
  try {
    const doc = loadYaml(clusterStatusYaml) as { apiEndpoints?: Record<string, { advertiseAddress?: string }> } | undefined;
    return Object.values(doc?.apiEndpoints ?? {}).map((e) => e.advertiseAddress).filter((a): a is string => !!a).map(etcdClientURL);
  } catch {
    return [];
  }
}

/** One quick look (no retries): the caller polls. */
async function listEtcdPodEndpoints(ctx: JoinCtx): Promise<string[]> {
  const file = `${KUBERNETES_DIR}/${KUBECONFIG_FILES.admin}`;
  const text = (await ctx.host.readFile(file))?.toString('utf8');
  if (text === undefined) return [];
  try {
    const api = await ctx.api.open({ text, source: file }, { ...joinApiOptions(ctx), retry: NO_RETRY, requestTimeoutMs: 10_000 });
    return endpointsFromPods({ items: await api.list('Pod', 'kube-system', { labelSelector: 'component=etcd,tier=control-plane' }) });
  } catch {
    return [];
  }
}

async function etcdEndpointsFromCluster(ctx: JoinCtx, waitMs = 90_000): Promise<string[]> {
  const cluster = await clusterConfig(ctx);
  const fromStatus = endpointsFromClusterStatus(cluster.clusterStatusYaml);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const fromPods = await listEtcdPodEndpoints(ctx);
    if (fromPods.length > 0) return fromPods;
    if (fromStatus.length > 0) return fromStatus;
    if (Date.now() >= deadline) {
      throw new TsadmError('E_PRECONDITION', 'could not find the etcd members of the cluster: no etcd Pod carries the annotation ' + ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION, {
        hint: 'the etcd mirror Pods appear in kube-system about a minute after a control plane starts; check `kubectl -n kube-system get pods -l component=etcd`',
      });
    }
    ctx.log.debug('no etcd Pods listed yet; retrying', { prefix: 'etcd' });
    await ctx.deps.sleep(5000);
  }
}

/** An etcd client on the cluster's members, with the healthcheck-client identity, synced to the member list. */
export async function etcdClientForCluster(ctx: JoinCtx): Promise<EtcdClient> {
  const cluster = await clusterConfig(ctx);
  const tls = await etcdTlsFromDir(ctx.host, cluster.init.cluster.certificatesDir);
  const endpoints = await etcdEndpointsFromCluster(ctx);
  ctx.log.debug(`etcd endpoints: ${endpoints.join(', ')}`, { prefix: 'etcd' });
  const client = ctx.deps.etcdClient(endpoints, tls, ctx.cfg.join.timeouts.etcdAPICallMs);
  await etcdCall(() => client.sync(), 'list the etcd members');
  return client;
}

/** etcd failures as one-line TsadmErrors naming what was attempted (and, when given, how to go on). */
export async function etcdCall<T>(fn: () => Promise<T>, what: string, hint?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof EtcdRequestError)) throw err;
    throw new TsadmError('E_API', `failed to ${what}: ${errorMessage(err)} (${err.endpoint})`, {
      cause: err,
      hint: hint ?? 'check the etcd members: `kubectl -n kube-system get pods -l component=etcd` and their logs on the control-plane nodes',
    });
  }
}
