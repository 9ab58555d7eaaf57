import path from 'node:path';
import { MANIFESTS_DIR } from '../../constants.js';
import { nodeNameFromKubeletConf } from '../../kubeconfig/node-name.js';
import type { KubeApi } from '../../kube/types.js';
import type { ResetCtx, ResetRunState } from './context.js';
import { RESET_RETRY } from './deps.js';
import { parseEtcdManifest, type LocalEtcdMember } from './etcd-manifest.js';

export function newResetRunState(): ResetRunState {
  return {};
}

const ETCD_MANIFEST = path.posix.join(MANIFESTS_DIR, 'etcd.yaml');
export const APISERVER_MANIFEST = path.posix.join(MANIFESTS_DIR, 'kube-apiserver.yaml');

/** The local stacked etcd member, from its manifest (read before cleanup removes it). */
export function localEtcd(ctx: ResetCtx): Promise<LocalEtcdMember | undefined> {
  ctx.state.etcd ??= (async () => {
    const text = (await ctx.host.readFile(ETCD_MANIFEST))?.toString('utf8');
    if (text === undefined) return undefined;
    try {
      return parseEtcdManifest(text);
    } catch (err) {
      ctx.log.warn(`could not read ${ETCD_MANIFEST}: ${(err as Error).message}`, { prefix: 'reset' });
      return undefined;
    }
  })();
  return ctx.state.etcd;
}

/** The admin client from --kubeconfig, or undefined (with the reason logged) when there is none. */
export function adminApi(ctx: ResetCtx): Promise<KubeApi | undefined> {
  ctx.state.adminApi ??= (async () => {
    const file = ctx.options.kubeconfigPath;
    const text = (await ctx.host.readFile(file))?.toString('utf8');
    if (text === undefined) {
      ctx.log.debug(`no ${file}: the cluster is not contacted`, { prefix: 'reset' });
      return undefined;
    }
    try {
      // A reset that cannot reach the API server must not hang on it: short, bounded retries.
      // ResetConfiguration timeouts.kubernetesAPICall, when given, bounds them instead (kubeadm's active timeout).
      const deadlineMs = ctx.cfg.reset.timeouts?.kubernetesAPICallMs ?? RESET_RETRY.deadlineMs;
      return await ctx.api.open({ text, source: file }, { log: ctx.log, retry: { ...RESET_RETRY, deadlineMs }, requestTimeoutMs: Math.min(10_000, deadlineMs), dryRunRequestTimeoutMs: 5000 });
    } catch (err) {
      ctx.log.warn(`could not use ${file}: ${(err as Error).message}`, { prefix: 'reset' });
      return undefined;
    }
  })();
  return ctx.state.adminApi;
}

/** This node's name as the cluster knows it (kubelet.conf's client certificate), else the hostname. */
export async function nodeName(ctx: ResetCtx): Promise<string> {
  return (await nodeNameFromKubeletConf(ctx.host)) ?? ctx.deps.hostname();
}
