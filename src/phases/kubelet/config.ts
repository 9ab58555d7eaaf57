/**
 * /var/lib/kubelet/config.yaml: the cluster-wide KubeletConfiguration with kubeadm's defaults
 * merged in (componentconfigs/kubelet.go Default). kubeadm keeps a user value that differs from
 * its recommendation but warns; a few values it forces. Pure: host facts are passed in.
 */
import path from 'node:path';
import { clusterDnsIp } from '../../config/component-defaults.js';
import { formatDuration, parseDuration } from '../../duration.js';
import type { ClusterConfiguration } from '../../config/types.js';
import { MANIFESTS_DIR, PORTS } from '../../constants.js';
import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../json.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { DUAL_STACK_GATE } from '../../manifest/feature-gates.js';
import { DOCKERSHIM_SOCKET } from './flags-env.js';

export const KUBELET_CONFIG_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
const KIND = 'KubeletConfiguration';
const DEFAULT_CLUSTER_DNS_IP = '10.96.0.10';
const SYSTEMD_RESOLV_CONF = '/run/systemd/resolve/resolv.conf';

/**
 * Non-pointer metav1.Duration fields of v1beta1.KubeletConfiguration: Go's serializer always
 * writes them, as "0s" when unset (kubeadm 1.20's file shows exactly these). The kubelet
 * defaults zero values itself, so they only matter for byte parity.
 */
const ZERO_DURATION_FIELDS = [
  'authentication.webhook.cacheTTL', 'authorization.webhook.cacheAuthorizedTTL', 'authorization.webhook.cacheUnauthorizedTTL',
  'cpuManagerReconcilePeriod', 'evictionPressureTransitionPeriod', 'fileCheckFrequency', 'httpCheckFrequency', 'imageMinimumGCAge',
  'nodeStatusReportFrequency', 'nodeStatusUpdateFrequency', 'runtimeRequestTimeout', 'shutdownGracePeriod',
  'shutdownGracePeriodCriticalPods', 'streamingConnectionIdleTimeout', 'syncFrequency', 'volumeStatsAggPeriod',
];
/** Duration fields a user may set; Go re-formats them ("1m" → "1m0s"). */
const DURATION_FIELDS = [...ZERO_DURATION_FIELDS, 'cpuCFSQuotaPeriod', 'imageMaximumGCAge', 'containerLogMonitorInterval'];

export interface KubeletConfigInput {
  readonly cluster: ClusterConfiguration;
  /** The user's KubeletConfiguration document (apiVersion/kind optional), or {}. */
  readonly user: Readonly<Record<string, unknown>>;
  readonly criSocket: string;
  /** `docker info` cgroup driver (dockershim only): the driver, or why it could not be read. */
  readonly dockerCgroupDriver?: { readonly driver: string } | { readonly error: string };
  /** systemd-resolved is active (true/false), or why that could not be determined. */
  readonly systemdResolved: boolean | { readonly error: string };
}

export interface RenderedKubeletConfig {
  readonly config: JsonObject;
  /** kubeadm's warnings about user values it does not recommend or overrides. */
  readonly warnings: readonly string[];
}

export function renderKubeletConfig(input: KubeletConfigInput, versions: VersionProfile): RenderedKubeletConfig {
  const { cluster } = input;
  const c = userConfig(input.user);
  const warnings: string[] = [];
  const warn = (field: string, recommended: JsonValue, provided: JsonValue): void => {
    warnings.push(`The recommended value for "${field}" in "${KIND}" is: ${goValue(recommended)}; the provided value is: ${goValue(provided)}`);
  };
  /** Set a default, or warn when the user chose another value. */
  const recommend = (field: string, value: JsonValue): void => {
    const current = getPath(c, field);
    if (current === undefined || current === null || current === '') setPath(c, field, value);
    else if (!jsonEqual(current, value)) warn(field, value, current);
  };

  const gates = isJsonObject(c.featureGates) ? c.featureGates : {};
  const dualStack = cluster.featureGates[DUAL_STACK_GATE];
  if (versions.controlPlane.dualStackFeatureGate && dualStack !== undefined) gates[DUAL_STACK_GATE] = dualStack;
  c.featureGates = gates;

  recommend('staticPodPath', MANIFESTS_DIR);
  const dns = clusterDnsIp(cluster.networking.serviceSubnet) ?? DEFAULT_CLUSTER_DNS_IP;
  if (c.clusterDNS === undefined || c.clusterDNS === null) c.clusterDNS = [dns];
  else if (!jsonEqual(c.clusterDNS, [dns])) warn('clusterDNS', [dns], c.clusterDNS);
  if (!c.clusterDomain) c.clusterDomain = cluster.networking.dnsDomain;
  else if (cluster.networking.dnsDomain && c.clusterDomain !== cluster.networking.dnsDomain) warn('clusterDomain', cluster.networking.dnsDomain, c.clusterDomain);
  recommend('authentication.x509.clientCAFile', path.posix.join(cluster.certificatesDir, 'ca.crt'));
  recommend('authentication.anonymous.enabled', false);
  recommend('authorization.mode', 'Webhook');
  recommend('authentication.webhook.enabled', true);
  recommend('healthzBindAddress', '127.0.0.1');
  recommend('healthzPort', PORTS.kubeletHealthz);
  if (c.readOnlyPort !== undefined && c.readOnlyPort !== 0) warn('readOnlyPort', 0, c.readOnlyPort);
  // Forced: the field is a plain bool, so kubeadm cannot tell "unset" from "false".
  c.rotateCertificates = true;

  if (versions.kubelet.defaultCgroupDriverSystemd) {
    if (!c.cgroupDriver) c.cgroupDriver = 'systemd';
  } else if (input.criSocket === DOCKERSHIM_SOCKET && input.dockerCgroupDriver) {
    const docker = input.dockerCgroupDriver;
    if ('error' in docker) {
      warnings.push(`cannot automatically set CgroupDriver when starting the Kubelet: ${docker.error}`);
    } else {
      if (c.cgroupDriver && c.cgroupDriver !== docker.driver) {
        warnings.push(`detected "${docker.driver}" as the Docker cgroup driver, the provided value "${typeof c.cgroupDriver === 'string' ? c.cgroupDriver : JSON.stringify(c.cgroupDriver)}" in "${KIND}" will be overrided`);
      }
      c.cgroupDriver = docker.driver;
    }
  }

  if (typeof input.systemdResolved === 'object') {
    warnings.push(`cannot determine if systemd-resolved is active: ${input.systemdResolved.error}`);
  } else if (input.systemdResolved) {
    recommend('resolvConf', SYSTEMD_RESOLV_CONF);
  }

  return { config: finish(c), warnings };
}

/**
 * The KubeletConfiguration init uploads to the kubelet-config ConfigMap, from this node's
 * config.yaml: from 1.38 (kubeadm PR #141337, kubernetes/kubeadm#3034) without the systemd-resolved
 * resolvConf kubeadm chose for this node, which other nodes (another distribution, no
 * systemd-resolved) may not have; each node's config.yaml gets it from its own host, as join's
 * kubelet-start already does (renderKubeletConfig). A resolvConf the user set stays. Line-based,
 * so the rest of the text stays byte for byte what the node runs with.
 */
export function clusterKubeletConfigYaml(nodeYaml: string, user: Readonly<Record<string, unknown>>, versions: VersionProfile): string {
  if (versions.kubelet.resolvConfInConfigMap || user.resolvConf !== undefined) return nodeYaml;
  return nodeYaml.replace(/^resolvConf: \/run\/systemd\/resolve\/resolv\.conf\n/m, '');
}

function userConfig(user: Readonly<Record<string, unknown>>): JsonObject {
  const c = cloneJson(user as JsonObject);
  delete c.apiVersion;
  delete c.kind;
  return c;
}

/** What Go's typed round trip writes: normalized durations, zero-value artifacts, no empties. */
function finish(c: JsonObject): JsonObject {
  for (const field of DURATION_FIELDS) {
    const v = getPath(c, field);
    if (typeof v === 'string') {
      try {
        setPath(c, field, formatDuration(parseDuration(v)));
      } catch {
        // Left as written: the kubelet reports a bad duration better than tsadm could here.
      }
    }
  }
  for (const field of ZERO_DURATION_FIELDS) if (getPath(c, field) === undefined) setPath(c, field, '0s');
  if (!isJsonObject(c.logging)) c.logging = {};
  // omitempty: an empty featureGates map and a zero readOnlyPort are not written.
  if (isJsonObject(c.featureGates) && Object.keys(c.featureGates).length === 0) delete c.featureGates;
  if (c.readOnlyPort === 0) delete c.readOnlyPort;
  dropNulls(c);
  return { apiVersion: KUBELET_CONFIG_API_VERSION, kind: KIND, ...c };
}

function dropNulls(o: JsonObject): void {
  for (const [k, v] of Object.entries(o)) {
    if (v === null || k.startsWith('$')) delete o[k];
    else if (isJsonObject(v)) dropNulls(v);
  }
}

function getPath(o: JsonObject, dotted: string): JsonValue | undefined {
  let cur: JsonValue | undefined = o;
  for (const part of dotted.split('.')) {
    if (!isJsonObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function setPath(o: JsonObject, dotted: string, value: JsonValue): void {
  const parts = dotted.split('.');
  let cur = o;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (!isJsonObject(next)) cur[part] = {};
    cur = cur[part] as JsonObject;
  }
  cur[parts[parts.length - 1] as string] = value;
}

/** Go's %v: lists as [a b], everything else as its plain text. */
function goValue(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isJsonObject(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k] as JsonValue)}`).join(' ')}]`;
  return String(v);
}
