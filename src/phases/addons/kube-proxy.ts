import type { Logger } from '../../log/events.js';
import type { KubeApi, KubeObject } from '../../kube/types.js';
import { kubeProxyConfigMap, kubeProxyDaemonSet, kubeProxyRbac, kubeProxyServiceAccount, type EnvVar } from './kube-proxy-render.js';
import type { DaemonSetPatcher } from './kube-proxy-patch.js';

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

export async function ensureKubeProxy(api: KubeApi, input: KubeProxyInput, log: Pick<Logger, 'info'>, patchDaemonSet?: DaemonSetPatcher): Promise<void> {
  await api.ensure(kubeProxyServiceAccount(), 'retain');
  await api.ensure(kubeProxyConfigMap(input.config, input.server, input.sign));
  const daemonSet = kubeProxyDaemonSet(input.image, input.proxyEnv);
  // The `kubeproxydaemonset` --patches (1.37+) are applied to the DaemonSet before it is sent.
  await api.ensure(patchDaemonSet ? await patchDaemonSet(daemonSet) : daemonSet);
  for (const obj of kubeProxyRbac()) await api.ensure(obj);
  log.info('Applied essential addon: kube-proxy', { prefix: 'addons' });
}

/** The objects ensureKubeProxy applies, in its order (the DaemonSet patched as there): what `--print-manifest` prints. */
export async function kubeProxyManifests(input: KubeProxyInput, patchDaemonSet?: DaemonSetPatcher): Promise<KubeObject[]> {
  const daemonSet = kubeProxyDaemonSet(input.image, input.proxyEnv);
  return [kubeProxyServiceAccount(), kubeProxyConfigMap(input.config, input.server, input.sign), patchDaemonSet ? await patchDaemonSet(daemonSet) : daemonSet, ...kubeProxyRbac()];
}
