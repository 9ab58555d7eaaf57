import path from 'node:path';
import * as yaml from 'js-yaml';
import { KUBECONFIG_FILES, KUBERNETES_DIR, MANIFESTS_DIR } from '../../constants.js';
import { parseCertificatePem } from '../../pki/certificate.js';
import type { KubeApi } from '../../kube/types.js';
import type { ResetCtx, ResetRunState } from '../../workflows/context.js';
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
      return await ctx.api.open({ text, source: file }, { log: ctx.log, retry: RESET_RETRY, requestTimeoutMs: 10_000, dryRunRequestTimeoutMs: 5000 });
    } catch (err) {
      ctx.log.warn(`could not use ${file}: ${(err as Error).message}`, { prefix: 'reset' });
      return undefined;
    }
  })();
  return ctx.state.adminApi;
}

/**
 * This node's name as the cluster knows it: the CN "system:node:<name>" of kubelet.conf's client
 * certificate (kubeadm's getNodeNameFromKubeletConfig), else the hostname.
 */
export async function nodeName(ctx: ResetCtx): Promise<string> {
  const file = path.posix.join(KUBERNETES_DIR, KUBECONFIG_FILES.kubelet);
  const text = (await ctx.host.readFile(file))?.toString('utf8');
  const fromCert = text === undefined ? undefined : await nodeNameFromKubeletConf(ctx, text);
  return fromCert ?? ctx.deps.hostname();
}

async function nodeNameFromKubeletConf(ctx: ResetCtx, text: string): Promise<string | undefined> {
  try {
    const doc = (yaml.load(text) ?? {}) as {
      'current-context'?: string;
      contexts?: Array<{ name?: string; context?: { user?: string } }>;
      users?: Array<{ name?: string; user?: Record<string, string> }>;
    };
    const userName = doc.contexts?.find((c) => c.name === doc['current-context'])?.context?.user;
    const user = doc.users?.find((u) => u.name === userName)?.user ?? {};
    const pem = user['client-certificate-data'] ? Buffer.from(user['client-certificate-data'], 'base64')
      : user['client-certificate'] ? await ctx.host.readFile(user['client-certificate']) : undefined;
    if (!pem) return undefined;
    const cn = parseCertificatePem(pem, 'kubelet client certificate').subject.commonName;
    return cn?.startsWith('system:node:') ? cn.slice('system:node:'.length) : undefined;
  } catch {
    return undefined;
  }
}
