import type { Logger } from '../../log/events.js';
import type { ConfigMapObject, KubeApi, KubeObject } from '../../kube/types.js';
import { isDeepStrictEqual } from 'node:util';
import { COREDNS, DEFAULT_COREDNS_REPLICAS, DNS_LABELS, corednsDeployment, corednsObjects, isDefaultCorefile, type CorednsInput } from './coredns-render.js';
import { corednsTemplates } from './coredns-template.js';
import { KUBE_SYSTEM } from '../../constants.js';

/**
 * The CoreDNS addon: create what is missing, update what kubeadm owns, keep what the user owns.
 * A Corefile the user edited is retained (kubeadm's CreateOrRetainConfigMap); ServiceAccounts
 * are never rewritten (their token Secrets hang off them); a running Deployment keeps its
 * replica count.
 */
/** Rewrites the rendered Deployment before it is sent (the `corednsdeployment` --patches, 1.31+). */
export type DeploymentPatcher = (deployment: KubeObject) => Promise<KubeObject>;

export async function ensureCoredns(
  api: KubeApi,
  input: Omit<CorednsInput, 'replicas'>,
  log: Pick<Logger, 'info' | 'debug'>,
  patchDeployment?: DeploymentPatcher,
): Promise<void> {
  const deployments = await api.list('Deployment', KUBE_SYSTEM, { labelSelector: `k8s-app=${DNS_LABELS['k8s-app']}` });
  const running = deployments.find((d) => d.metadata.name === COREDNS) ?? (deployments.length === 1 ? deployments[0] : undefined);
  const replicas = (running as { spec?: { replicas?: number } } | undefined)?.spec?.replicas ?? DEFAULT_COREDNS_REPLICAS;
  const liveCm = await api.get<ConfigMapObject>('ConfigMap', COREDNS, KUBE_SYSTEM);
  const liveCorefile = liveCm?.data?.Corefile ?? '';
  const userCorefile = liveCorefile !== '' && !isDefaultCorefile(liveCorefile);
  if (userCorefile) log.debug('retaining the existing CoreDNS Corefile: it differs from kubeadm\'s default', { prefix: 'addons' });
  for (const rendered of corednsObjects({ ...input, replicas })) {
    const obj = rendered.kind === 'Deployment' && patchDeployment ? await patchDeployment(rendered) : rendered;
    await api.ensure(obj, modeFor(obj, userCorefile));
  }
  log.info('Applied essential addon: CoreDNS', { prefix: 'addons' });
}

function modeFor(obj: KubeObject, userCorefile: boolean): 'update' | 'retain' {
  if (obj.kind === 'ServiceAccount') return 'retain';
  if (obj.kind === 'ConfigMap' && userCorefile) return 'retain';
  return 'update';
}

/**
 * What `--print-manifest` prints, as kubeadm's coreDNSAddon prints it
 * (cmd/kubeadm/app/phases/addons/dns/dns.go): the text of its six templates filled in with
 * kubeadm's default replica count, in its print order (Deployment, ConfigMap, Service,
 * ClusterRole, ClusterRoleBinding, ServiceAccount; coredns-template.ts). Asks no cluster. A
 * Deployment the `corednsdeployment` patches change is printed as the patched object instead of
 * the template (UNSURE whether kubeadm's patches reach its printout: dns.go with the patches was
 * not read; kube-proxy's DaemonSet is printed the same way, kube-proxy.ts).
 */
export async function corednsManifests(input: Omit<CorednsInput, 'replicas'>, patchDeployment?: DeploymentPatcher): Promise<Array<KubeObject | string>> {
  const full = { ...input, replicas: DEFAULT_COREDNS_REPLICAS };
  const [deploymentText, ...rest] = corednsTemplates(full);
  const deployment = corednsDeployment(full);
  const patched = patchDeployment ? await patchDeployment(deployment) : deployment;
  return [isDeepStrictEqual(patched, deployment) ? deploymentText : patched, ...rest];
}
