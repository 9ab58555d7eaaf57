/**
 * The etcd client of a joining control plane: the cluster's members found as src/etcd/endpoints.ts
 * says, through join's bootstrap view of the cluster.
 */
import { KUBECONFIG_FILES, KUBERNETES_DIR } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { EtcdClient } from '../../etcd-client/client.js';
import { etcdTlsFromDir } from '../../etcd-client/urls.js';
import { endpointsFromClusterStatus, endpointsFromPods, etcdCall } from '../../etcd/endpoints.js';
import { NO_RETRY } from '../../kube/retry.js';
import { ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION } from '../../manifest/etcd.js';
import type { JoinCtx } from './context.js';
import { clusterConfig, joinApiOptions } from './state.js';

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
