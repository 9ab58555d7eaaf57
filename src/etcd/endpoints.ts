import { loadYaml } from '../yaml/read.js';
import { TsadmError, errorMessage } from '../errors.js';
import { EtcdRequestError } from '../etcd-client/transport.js';
import { etcdClientURL } from '../etcd-client/urls.js';
import { ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION } from '../manifest/etcd.js';

/**
 * Where the stacked etcd members listen (kubeadm's etcdutil.NewFromCluster): the annotation the
 * etcd static pods carry, else (v1beta2 clusters) the control planes of ClusterStatus; then the
 * client follows the member list (Sync). Mirror pods appear about a minute after a control
 * plane starts, so a joining control plane retries the pod list for a while (src/phases/join/etcd-endpoints.ts).
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
