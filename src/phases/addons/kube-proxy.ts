import type { Logger } from '../../log/events.js';
import type { KubeApi, KubeObject } from '../../kube/types.js';
import { kubeProxyConfigMap, kubeProxyDaemonSet, kubeProxyRbac, kubeProxyServiceAccount, type EnvVar } from './kube-proxy-render.js';

/**
 * The kube-proxy addon, in kubeadm's order: ServiceAccount (created once, never rewritten),
 * ConfigMap and DaemonSet (created or updated), then RBAC.
 */
export interface KubeProxyInput {
  readonly config: Record<string, unknown>;
  /** The control-plane endpoint URL kube-proxy pods talk to. */
  readonly server: string;
  readonly sign: boolean;
  readonly image: string;
  readonly proxyEnv: readonly EnvVar[];
}

export async function ensureKubeProxy(api: KubeApi, input: KubeProxyInput, log: Pick<Logger, 'info'>): Promise<void> {
  await api.ensure(kubeProxyServiceAccount(), 'retain');
  await api.ensure(kubeProxyConfigMap(input.config, input.server, input.sign));
  await api.ensure(kubeProxyDaemonSet(input.image, input.proxyEnv));
  for (const obj of kubeProxyRbac()) await api.ensure(obj);
  log.info('Applied essential addon: kube-proxy', { prefix: 'addons' });
}

/** The objects ensureKubeProxy applies, in its order: what `--print-manifest` prints. */
export function kubeProxyManifests(input: KubeProxyInput): KubeObject[] {
  return [kubeProxyServiceAccount(), kubeProxyConfigMap(input.config, input.server, input.sign), kubeProxyDaemonSet(input.image, input.proxyEnv), ...kubeProxyRbac()];
}
