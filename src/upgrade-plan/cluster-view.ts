/**
 * What `tsadm upgrade` knows about the cluster before it changes anything, read once per run
 * (kubeadm's enforceRequirements + FetchInitConfigurationFromCluster): the configuration stored in
 * kubeadm-config and the kubelet ConfigMap, the API server's version, every kubelet's version,
 * this node's name, registration and, on a control-plane node, its API endpoint.
 *
 * `targetInitConfig` (pure) turns that into the init configuration of this node at the target
 * version, so the init renderers (static Pods, kubelet config, cluster objects, addons) produce
 * exactly what `tsadm init` of the target version would have produced for this cluster.
 */
import path from 'node:path';
import { loadYaml } from '../yaml/read.js';
import { parseYamlDocuments } from '../config/yaml-docs.js';
import { resolveInitConfig } from '../config/load.js';
import type { ResolvedInitConfig, Taint } from '../config/types.js';
import { CRI_SOCKET_ANNOTATION, MANIFESTS_DIR } from '../constants.js';
import { TsadmError, errorMessage, isTsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { STORED_CONFIG_API_VERSION_CHECK } from '../kube/kubeadm-config.js';
import type { KubeApi, NodeObject } from '../kube/types.js';
import { isPlainObject } from '../util/plain-object.js';
import { splitHostPort } from '../net/host-port.js';
import { fetchClusterConfigTexts, storedKubernetesVersion, type ClusterConfigTexts } from '../stored-config/cluster-config.js';
import { nodeNameFromKubeletConf } from '../kubeconfig/node-name.js';
import { profileFor } from '../versions/resolve.js';
import type { VersionProfile } from '../versions/table-types.js';

/** The annotation kubeadm puts on the kube-apiserver static Pod: this member's advertise address and port. */
const ADVERTISE_ENDPOINT_ANNOTATION = 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint';
export const APISERVER_MANIFEST = path.posix.join(MANIFESTS_DIR, 'kube-apiserver.yaml');

export interface UpgradeClusterView {
  readonly texts: ClusterConfigTexts;
  /** kubernetesVersion of the stored ClusterConfiguration. */
  readonly storedVersion: string;
  /** The API server's gitVersion (kubeadm's "cluster version"). */
  readonly serverVersion: string;
  /** kubeletVersion of every Node; undefined when the Nodes could not be listed. */
  readonly kubeletVersions: readonly string[] | undefined;
  readonly nodes: readonly NodeObject[];
  /** This node's name (kubelet.conf's client certificate, else the hostname). */
  readonly nodeName: string;
  /** This node's Node object, when it is registered. */
  readonly node: NodeObject | undefined;
  /** This machine runs a control-plane member: its kube-apiserver manifest exists. */
  readonly controlPlane: boolean;
  /** The local API server's advertise address and port (control-plane nodes). */
  readonly localAPIEndpoint: { readonly advertiseAddress: string; readonly bindPort: number } | undefined;
}

/** Reads the cluster through `api` and this machine through `host`. Changes nothing. */
export async function readUpgradeCluster(api: KubeApi, host: Pick<Host, 'readFile'>, hostname: string): Promise<UpgradeClusterView> {
  const texts = await fetchClusterConfigTexts(api);
  const storedVersion = storedKubernetesVersion(texts.clusterConfigurationYaml);
  const serverVersion = await api.serverVersion();
  let nodes: NodeObject[] = [];
  let kubeletVersions: string[] | undefined;
  try {
    nodes = await api.list<NodeObject>('Node', undefined);
    kubeletVersions = nodes.map(kubeletVersionOf).filter((v): v is string => v !== undefined);
    if (kubeletVersions.length !== nodes.length) kubeletVersions = undefined;
  } catch {
    // kubeadm goes on without them; the version policy reports it (skippable).
    kubeletVersions = undefined;
  }
  const nodeName = (await nodeNameFromKubeletConf(host)) ?? hostname;
  const manifest = (await host.readFile(APISERVER_MANIFEST))?.toString('utf8');
  return {
    texts,
    storedVersion,
    serverVersion,
    kubeletVersions,
    nodes,
    nodeName,
    node: nodes.find((n) => n.metadata.name === nodeName),
    controlPlane: manifest !== undefined,
    localAPIEndpoint: manifest === undefined ? undefined : advertisedEndpoint(manifest),
  };
}

function kubeletVersionOf(node: NodeObject): string | undefined {
  const v = (node.status as { nodeInfo?: { kubeletVersion?: unknown } } | undefined)?.nodeInfo?.kubeletVersion;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The local API server's endpoint: kubeadm's annotation on the kube-apiserver manifest, else the
 * manifest's own --advertise-address and --secure-port flags.
 */
function advertisedEndpoint(manifestText: string): { advertiseAddress: string; bindPort: number } | undefined {
  let doc: unknown;
  try {
    doc = loadYaml(manifestText);
  } catch {
    return undefined;
  }
  const pod = doc as { metadata?: { annotations?: Record<string, unknown> }; spec?: { containers?: Array<{ command?: unknown }> } } | undefined;
  const value = pod?.metadata?.annotations?.[ADVERTISE_ENDPOINT_ANNOTATION];
  if (typeof value === 'string') {
    const hp = splitHostPort(value);
    const port = 'error' in hp ? NaN : Number(hp.port);
    if (!('error' in hp) && Number.isInteger(port) && port > 0) return { advertiseAddress: hp.host, bindPort: port };
  }
  const command = pod?.spec?.containers?.[0]?.command;
  if (!Array.isArray(command)) return undefined;
  const flag = (name: string): string | undefined => command.map(String).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const address = flag('advertise-address');
  const port = Number(flag('secure-port') ?? '6443');
  return address && Number.isInteger(port) && port > 0 ? { advertiseAddress: address, bindPort: port } : undefined;
}

/** A Node's InternalIP as its kubelet reports it. */
function internalIp(node: NodeObject | undefined): string | undefined {
  const addresses = (node?.status as { addresses?: Array<{ type?: string; address?: string }> } | undefined)?.addresses ?? [];
  return addresses.find((a) => a.type === 'InternalIP')?.address;
}

export interface TargetOptions {
  /** The version to render for ("v1.20.3"). */
  readonly version: string;
  /** A ClusterConfiguration replacing the stored one (kubeadm 1.20's `upgrade apply --config`). */
  readonly clusterOverride?: { readonly text: string; readonly source: string };
  readonly patchesDir?: string;
  readonly ignorePreflightErrors: readonly string[];
  readonly now: Date;
}

export interface UpgradeTarget {
  readonly cfg: ResolvedInitConfig;
  readonly versions: VersionProfile;
}

/**
 * Pure: this node's init configuration at the target version: the stored (or given)
 * ClusterConfiguration with the new kubernetesVersion, the stored KubeletConfiguration, and this
 * node's registration (name, CRI socket annotation, taints) and API endpoint.
 */
export function targetInitConfig(view: UpgradeClusterView, opts: TargetOptions): UpgradeTarget {
  const versions = profileFor(opts.version);
  const clusterText = opts.clusterOverride?.text ?? view.texts.clusterConfigurationYaml;
  const clusterDoc = clusterConfigurationDocument(clusterText, opts.clusterOverride?.source ?? 'the kubeadm-config ConfigMap');
  const kubeletSource = `ConfigMap kube-system/${profileFor(view.storedVersion).kubelet.configMapName}`;
  const kubelet = parseYamlDocuments(view.texts.kubeletConfigurationYaml, kubeletSource);
  // The documents as parsed, with the target version: nothing is written out as YAML to be read again.
  const configDocuments = {
    documents: [
      { ...clusterDoc, index: 1, value: { ...clusterDoc.value, kubernetesVersion: opts.version } },
      ...kubelet.documents.map((d, i) => ({ ...d, index: i + 2 })),
    ],
    errors: kubelet.errors,
  };
  // A worker has no API server: its endpoint is only a placeholder the defaults need (the
  // renderers that read it, static Pods, never run there); the Node's own address serves.
  const endpoint = view.localAPIEndpoint ?? { advertiseAddress: internalIp(view.node) ?? '127.0.0.1', bindPort: 6443 };
  let resolved: ResolvedInitConfig;
  try {
    resolved = resolveInitConfig({
      configDocuments,
      configPath: opts.clusterOverride?.source ?? `ConfigMaps kube-system/kubeadm-config and kube-system/${profileFor(view.storedVersion).kubelet.configMapName}`,
      flags: {},
      env: { hostname: view.nodeName, defaultAdvertiseAddress: endpoint.advertiseAddress, now: opts.now },
      // What the cluster stored is kubeadm's own record, converted internally as kubeadm's upgrade
      // does whatever API version it was written in; only a user's file is judged by the target.
      ...(opts.clusterOverride ? {} : { apiVersionCheck: STORED_CONFIG_API_VERSION_CHECK }),
    });
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `the cluster's configuration could not be read for the upgrade to ${opts.version}: ${errorMessage(err)}`, {
      cause: err,
      ...(isTsadmError(err) && err.details.length > 0 ? { details: err.details } : {}),
      hint: 'check the stored configuration with `kubectl -n kube-system get cm kubeadm-config -o yaml`',
    });
  }
  const criSocket = view.node?.metadata.annotations?.[CRI_SOCKET_ANNOTATION] ?? '';
  const taints = view.node?.spec?.taints?.map((t): Taint => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect as Taint['effect'] }));
  const cfg: ResolvedInitConfig = {
    ...resolved,
    init: {
      ...resolved.init,
      bootstrapTokens: [],
      nodeRegistration: {
        ...resolved.init.nodeRegistration,
        name: view.nodeName,
        criSocket,
        taints: taints ?? resolved.init.nodeRegistration.taints,
        ignorePreflightErrors: opts.ignorePreflightErrors,
      },
      localAPIEndpoint: endpoint,
      ...(opts.patchesDir !== undefined ? { patches: { directory: opts.patchesDir } } : {}),
    },
  };
  return { cfg, versions };
}

/** The ClusterConfiguration document of TEXT (a user's file may hold others), parsed as config files are. */
function clusterConfigurationDocument(text: string, source: string): { index: number; line: number; value: Record<string, unknown> } {
  const parsed = parseYamlDocuments(text, source);
  if (parsed.errors.length > 0) {
    throw new TsadmError('E_CONFIG_INVALID', `${source}: the ClusterConfiguration is not valid YAML: ${parsed.errors.join('; ')}`, { hint: 'fix the YAML' });
  }
  const found = parsed.documents.find((d) => isPlainObject(d.value) && d.value.kind === 'ClusterConfiguration');
  const doc = found && isPlainObject(found.value) ? { ...found, value: found.value } : undefined;
  if (!doc) {
    throw new TsadmError('E_CONFIG_INVALID', `${source}: no ClusterConfiguration document`, { hint: 'give a file with a ClusterConfiguration (kubeadm.k8s.io/v1beta2 or v1beta3)' });
  }
  return doc;
}
