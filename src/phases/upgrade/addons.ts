/**
 * `upgrade apply phase addon coredns|kube-proxy`: init's addon logic at the target version
 * (kubeadm's EnsureDNSAddon / EnsureProxyAddon in PerformPostUpgradeTasks), under kubeadm's
 * conditions: an addon whose ConfigMap is absent was skipped at init (or removed by the user) and
 * is not deployed by an upgrade. The cluster's kube-proxy configuration and a customised Corefile
 * are kept; a kube-dns Deployment is removed once CoreDNS runs (1.20).
 */
import { loadYaml } from '../../yaml/read.js';
import type { Phase } from '../../engine/phase.js';
import { TsadmError, errorMessage } from '../../errors.js';
import { COMPONENT_CONFIG_HASH_ANNOTATION, configMapHash } from '../../kube/configmap-hash.js';
import type { ConfigMapObject, KubeApi, KubeObject } from '../../kube/types.js';
import type { InitCtx } from '../../run/context.js';
import type { UpgradeCtx } from './context.js';
import { applyCoredns, applyKubeProxy } from '../addons/addon-phase.js';
import { corednsImage } from '../addons/images.js';
import { COREDNS } from '../addons/coredns-render.js';
import { clusterApi } from '../cluster/api.js';
import { corefileDecision, imageTag } from './corefile-migration.js';
import { clusterView, initView } from './state.js';
import { unupgradedControlPlanes } from './unupgraded.js';
import { KUBE_SYSTEM } from '../../constants.js';

const KUBE_DNS = 'kube-dns';
const KUBE_PROXY = 'kube-proxy';
const KUBE_PROXY_CONFIG_KEY = 'config.conf';

async function configMap(api: KubeApi, name: string): Promise<ConfigMapObject | undefined> {
  return api.get<ConfigMapObject>('ConfigMap', name, KUBE_SYSTEM);
}

/**
 * kubeadm's conditions before any addon is touched (cmd/phases/upgrade/addons.go, 1.28+
 * postupgrade.go): only on a control-plane node (after the disabled check), and from 1.28 only once every control-plane
 * instance runs the new kube-apiserver (addons must not get ahead of an API server).
 */
async function skipAddon(ctx: UpgradeCtx, view: InitCtx, addon: 'coredns' | 'kube-proxy'): Promise<boolean> {
  if (!(await clusterView(ctx)).controlPlane) {
    ctx.log.info(`Skipping the addon/${addon} phase. Not a control plane node.`, { prefix: 'upgrade/addon' });
    return true;
  }
  if (!view.versions.upgrade.addonsAfterAllControlPlanes) return false;
  const pending = await unupgradedControlPlanes(await clusterApi(view), view.cfg.init.nodeRegistration.name);
  if (pending.length === 0) return false;
  ctx.log.info(`Skipping upgrade of addons because control plane instances [${pending.join(' ')}] have not been upgraded`, { prefix: 'upgrade/addon' });
  return true;
}

async function runCoredns(ctx: UpgradeCtx): Promise<void> {
  const view = await initView(ctx, 'addons');
  if (view.cfg.cluster.dns.disabled) {
    view.log.info('Skipping the CoreDNS addon: it is disabled in the ClusterConfiguration (dns.disabled)');
    return;
  }
  if (await skipAddon(ctx, view, 'coredns')) return;
  const api = await clusterApi(view);
  const kubeDnsToo = view.versions.upgrade.kubeDnsMigration;
  const corednsCm = await configMap(api, COREDNS);
  const kubeDnsCm = kubeDnsToo ? await configMap(api, KUBE_DNS) : undefined;
  if (!corednsCm && !kubeDnsCm) {
    const names = kubeDnsToo ? `"${COREDNS}"/"${KUBE_DNS}"` : `"${COREDNS}"`;
    view.log.warn(`the ConfigMaps ${names} in the namespace "${KUBE_SYSTEM}" were not found. Assuming that a DNS server was not deployed for this cluster. `
      + 'Skip this phase (--skip-phases=addon/coredns) to keep it that way without this warning');
    return;
  }
  const running = await api.get<KubeObject>('Deployment', COREDNS, KUBE_SYSTEM);
  const image = (running as { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } } | undefined)?.spec?.template?.spec?.containers?.[0]?.image;
  const decision = corefileDecision({
    corefile: corednsCm?.data?.Corefile,
    installedTag: image === undefined ? undefined : imageTag(image),
    targetTag: imageTag(corednsImage(view.cfg.cluster, view.versions)) ?? view.versions.images.corednsTag,
  });
  if (decision.action === 'retain' && decision.warning) view.log.warn(decision.warning);
  // ensureCoredns tells a default Corefile from the user's the same way: it replaces only the former.
  await applyCoredns(view);
  if (kubeDnsToo) await removeKubeDnsDeployment(view, api);
}

/**
 * kubeadm 1.20's removeOldDNSDeploymentIfAnotherDNSIsUsed: the kube-dns Deployment goes once
 * CoreDNS has a ready replica (not waited for in a dry run, nor when no node could run it).
 * Nothing is written when there is no kube-dns Deployment.
 */
async function removeKubeDnsDeployment(view: InitCtx, api: KubeApi): Promise<void> {
  const kubeDns = await api.get('Deployment', KUBE_DNS, KUBE_SYSTEM);
  // Absent, or already being deleted (foreground deletion waits for its Pods): nothing to write.
  if (!kubeDns || (kubeDns.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined) return;
  // No seam covers "is CoreDNS serving yet": a dry run created nothing that could be ready.
  if (!view.dryRun) {
    const schedulable = await api.list('Node', undefined, { fieldSelector: 'spec.unschedulable=false' });
    if (schedulable.length > 0) {
      const coredns = await api.get('Deployment', COREDNS, KUBE_SYSTEM);
      const ready = (coredns as { status?: { readyReplicas?: number } } | undefined)?.status?.readyReplicas ?? 0;
      if (ready === 0) {
        throw new TsadmError('E_PRECONDITION', 'the DNS deployment isn\'t ready yet: the kube-dns Deployment is removed only once CoreDNS has a ready replica', {
          hint: 'check `kubectl -n kube-system get deployment coredns`, then run `tsadm upgrade apply phase addon coredns` again',
        });
      }
    }
  }
  await api.delete('Deployment', KUBE_DNS, KUBE_SYSTEM, { propagationPolicy: 'Foreground' });
}

/** The live kube-proxy configuration (config.conf), which the upgrade keeps as init's "user" configuration. */
function liveKubeProxyConfig(cm: ConfigMapObject): Record<string, unknown> {
  const text = cm.data?.[KUBE_PROXY_CONFIG_KEY];
  if (text === undefined || text.trim() === '') return {};
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `the kube-proxy configuration in ConfigMap ${KUBE_SYSTEM}/${KUBE_PROXY} is not valid YAML: ${errorMessage(err)}`, {
      cause: err,
      hint: `fix it with \`kubectl -n ${KUBE_SYSTEM} edit cm ${KUBE_PROXY}\` (key ${KUBE_PROXY_CONFIG_KEY})`,
    });
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new TsadmError('E_PRECONDITION', `the kube-proxy configuration in ConfigMap ${KUBE_SYSTEM}/${KUBE_PROXY} is not a KubeProxyConfiguration object`, {
      hint: `fix it with \`kubectl -n ${KUBE_SYSTEM} edit cm ${KUBE_PROXY}\` (key ${KUBE_PROXY_CONFIG_KEY})`,
    });
  }
  return doc as Record<string, unknown>;
}

/** kubeadm re-signs only a ConfigMap whose signature still matches (one it wrote and nobody edited). */
function signedByKubeadm(cm: ConfigMapObject): boolean {
  const hash = cm.metadata.annotations?.[COMPONENT_CONFIG_HASH_ANNOTATION];
  return hash !== undefined && hash === configMapHash(cm.data ?? {}, cm.binaryData ?? {});
}

async function runKubeProxy(ctx: UpgradeCtx): Promise<void> {
  const view = await initView(ctx, 'addons');
  if (view.cfg.cluster.proxy.disabled) {
    view.log.info('Skipping the kube-proxy addon: it is disabled in the ClusterConfiguration (proxy.disabled)');
    return;
  }
  if (await skipAddon(ctx, view, 'kube-proxy')) return;
  const cm = await configMap(await clusterApi(view), KUBE_PROXY);
  if (!cm) {
    view.log.warn(`the ConfigMap "${KUBE_PROXY}" in the namespace "${KUBE_SYSTEM}" was not found. Assuming that kube-proxy was not deployed for this cluster. `
      + 'Skip this phase (--skip-phases=addon/kube-proxy) to keep it that way without this warning');
    return;
  }
  const signed = signedByKubeadm(cm);
  const withLive: InitCtx = {
    ...view,
    cfg: { ...view.cfg, componentConfigs: { ...view.cfg.componentConfigs, kubeProxy: liveKubeProxyConfig(cm), userKubeProxy: !signed } },
  };
  await applyKubeProxy(withLive, { sign: signed });
}

export const upgradeAddonPhase: Phase<UpgradeCtx> = {
  name: 'addon',
  summary: 'Upgrade the default kubeadm addons',
  children: [
    {
      name: 'coredns',
      summary: 'Upgrade the CoreDNS addon',
      description: 'Bring CoreDNS to the target version as init of that version deploys it, keeping a customised Corefile. '
        + 'Skipped with a warning when the cluster has no coredns ConfigMap.',
      flags: ['kubeconfig', 'patches'],
      run: runCoredns,
    },
    {
      name: 'kube-proxy',
      summary: 'Upgrade the kube-proxy addon',
      description: 'Bring kube-proxy to the target version (DaemonSet image, ConfigMap as init renders it from the cluster\'s configuration). '
        + 'Skipped with a warning when the cluster has no kube-proxy ConfigMap.',
      flags: ['kubeconfig'],
      run: runKubeProxy,
    },
  ],
};
