/**
 * The versions `tsadm upgrade plan` compares, read from the cluster and this machine, never
 * written (kubeadm's GetAvailableUpgrades inputs): the API server's version and the kubelets'
 * (the cluster view), the image tags of the local control-plane and etcd static Pod manifests
 * (kubeadm reads etcd's there: GetEtcdImageTagFromStaticPod), the CoreDNS Deployment's image
 * (dns.DeployedDNSAddon) and the kube-proxy DaemonSet's, and the API versions of the stored
 * component configs (componentconfigs.GetVersionStates).
 */
import path from 'node:path';
import { loadYamlAll } from '../yaml/read.js';
import { MANIFESTS_DIR } from '../constants.js';
import type { Host } from '../host/host.js';
import type { KubeApi, KubeObject } from '../kube/types.js';
import type { UpgradeClusterView } from './cluster-view.js';
import type { ClusterVersions } from './plan-compute.js';
import { configVersionStates, type ComponentConfigVersionState } from './plan-render.js';
import { isPlainObject } from '../util/plain-object.js';

export interface PlanReading {
  readonly versions: ClusterVersions;
  readonly configVersions: ComponentConfigVersionState[];
}

/**
 * Reads what the plan needs beyond the cluster view. GETs and file reads only. `clusterText` is
 * the ClusterConfiguration in force: the stored one, or kubeadm 1.20's --config replacement.
 */
export async function readPlanInputs(api: KubeApi, host: Pick<Host, 'readFile'>, view: UpgradeClusterView, clusterText = view.texts.clusterConfigurationYaml): Promise<PlanReading> {
  const stored = loadFirst(clusterText, 'ClusterConfiguration');
  const etcd = obj(stored?.etcd);
  const externalEtcd = obj(etcd?.external) !== undefined;
  const [controllerManager, scheduler, etcdTag, coreDNS, kubeProxy, proxyConfig] = await Promise.all([
    manifestTag(host, 'kube-controller-manager'),
    manifestTag(host, 'kube-scheduler'),
    externalEtcd ? Promise.resolve(undefined) : manifestTag(host, 'etcd'),
    workloadTag(api, 'Deployment', 'coredns', 'coredns'),
    workloadTag(api, 'DaemonSet', 'kube-proxy', 'kube-proxy'),
    api.get<KubeObject & { data?: Record<string, string> }>('ConfigMap', 'kube-proxy', 'kube-system'),
  ]);
  const versions: ClusterVersions = {
    clusterVersion: view.serverVersion,
    kubeletVersions: view.kubeletVersions,
    // kubeadm v1.20 shows the cluster's version for every control-plane component; tsadm shows
    // this node's manifests where they are readable (the same on a cluster kubeadm or tsadm made).
    kubeApiServer: view.serverVersion,
    kubeControllerManager: controllerManager ?? view.serverVersion,
    kubeScheduler: scheduler ?? view.serverVersion,
    ...(kubeProxy !== undefined ? { kubeProxy } : {}),
    ...(coreDNS !== undefined ? { coreDNS } : {}),
    ...(etcdTag !== undefined ? { etcd: etcdTag } : {}),
    externalEtcd,
    dnsDisabled: obj(stored?.dns)?.disabled === true,
    proxyDisabled: obj(stored?.proxy)?.disabled === true,
  };
  const kubelet = loadFirst(view.texts.kubeletConfigurationYaml, 'KubeletConfiguration');
  const proxy = loadFirst(proxyConfig?.data?.['config.conf'] ?? '', 'KubeProxyConfiguration');
  return {
    versions,
    configVersions: configVersionStates({
      ...(typeof kubelet?.apiVersion === 'string' ? { kubelet: kubelet.apiVersion } : {}),
      ...(typeof proxy?.apiVersion === 'string' ? { kubeProxy: proxy.apiVersion } : {}),
    }),
  };
}

/** The tag of the first container's image in /etc/kubernetes/manifests/<name>.yaml, if there. */
async function manifestTag(host: Pick<Host, 'readFile'>, name: string): Promise<string | undefined> {
  const text = (await host.readFile(path.posix.join(MANIFESTS_DIR, `${name}.yaml`)))?.toString('utf8');
  if (text === undefined) return undefined;
  const pod = loadFirst(text, 'Pod');
  return imageTag(firstImage(obj(pod?.spec)));
}

/** The tag of the named container's image in a kube-system Deployment or DaemonSet. */
async function workloadTag(api: KubeApi, kind: 'Deployment' | 'DaemonSet', name: string, container: string): Promise<string | undefined> {
  const found = await api.get(kind, name, 'kube-system');
  const podSpec = obj(obj(obj(found?.spec)?.template)?.spec);
  const containers = Array.isArray(podSpec?.containers) ? podSpec.containers : [];
  const named = containers.map(obj).find((c) => c?.name === container) ?? obj(containers[0]);
  return imageTag(typeof named?.image === 'string' ? named.image : undefined);
}

function firstImage(podSpec: Record<string, unknown> | undefined): string | undefined {
  const first = Array.isArray(podSpec?.containers) ? obj(podSpec.containers[0]) : undefined;
  return typeof first?.image === 'string' ? first.image : undefined;
}

/** "registry/path/name:tag[@digest]" → "tag" (a port in the registry host is not a tag). */
function imageTag(image: string | undefined): string | undefined {
  if (image === undefined) return undefined;
  const noDigest = image.split('@')[0] ?? '';
  const lastSlash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > lastSlash ? noDigest.slice(colon + 1) : undefined;
}

/** The first YAML document of the given kind (or the first document), as an object. */
function loadFirst(text: string, kind: string): Record<string, unknown> | undefined {
  let docs: unknown[];
  try {
    docs = loadYamlAll(text);
  } catch {
    return undefined;
  }
  const objects = docs.map(obj).filter((d): d is Record<string, unknown> => d !== undefined);
  return objects.find((d) => d.kind === kind) ?? objects[0];
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return isPlainObject(v) ? v : undefined;
}
