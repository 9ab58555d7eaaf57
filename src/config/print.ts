/**
 * `tsadm config print init-defaults / join-defaults` and the ClusterConfiguration document of the
 * kubeadm-config ConfigMap. The layout follows the config API version kubeadm of the target minor
 * uses (v1beta2 for 1.20/1.21, v1beta3 for 1.22–1.30, v1beta4 from 1.31); values are tsadm's
 * defaults with kubeadm's placeholders (token abcdef.0123456789abcdef, address 1.2.3.4, node "node").
 */
import { TsadmError } from '../errors.js';
import { DEFAULT_KUBERNETES_VERSION, normalizeKubernetesVersion, profileFor } from '../versions/resolve.js';
import type { VersionProfile } from '../versions/table-types.js';
import { toKubeYaml, toKubeYamlDocuments } from '../yaml/write.js';
import { COMPONENT_CONFIG_KINDS, kubeletDefaults, kubeProxyDefaults, type ComponentConfigKind } from './component-defaults.js';
import { DEFAULT_TIMEOUTS, defaultReset, defaultTimeouts } from './defaults.js';
import { formatDuration, parseDuration } from '../duration.js';
import { resolveInitConfig, resolveJoinConfig, type ConfigEnv } from './load.js';
import { BOOL_DEFAULTS } from './load-upgrade.js';
import { clusterToExternal, initToExternal, joinToExternal, resetToExternal, timeoutsToExternal, type KubeadmApiVersion } from './serialize.js';
import type { ClusterConfiguration, Taint } from './types.js';
import { isPlainObject } from '../util/plain-object.js';

const PLACEHOLDER_TOKEN = 'abcdef.0123456789abcdef';
const PLACEHOLDER_ENV: ConfigEnv = { hostname: 'node', defaultAdvertiseAddress: '1.2.3.4', now: new Date(0), randomBytes: (n) => new Uint8Array(n) };

export interface PrintOptions {
  /** --kubernetes-version (default: the newest version tsadm knows). */
  readonly version?: string;
}

export interface PrintInitOptions extends PrintOptions {
  /** --component-configs: "KubeletConfiguration", "KubeProxyConfiguration". */
  readonly componentConfigs: readonly string[];
}

function target(version: string | undefined): { version: string; profile: VersionProfile } {
  const v = normalizeKubernetesVersion(version ?? DEFAULT_KUBERNETES_VERSION);
  return { version: v, profile: profileFor(v) };
}

/** kubeadm's default CRI socket of the era: dockershim before 1.24, containerd (as URL) after. */
function placeholderCriSocket(profile: VersionProfile): string {
  return profile.kubelet.criSocketUrl ? 'unix:///var/run/containerd/containerd.sock' : '/var/run/dockershim.sock';
}

export function printInitDefaults(opts: PrintInitOptions): string {
  const unknown = opts.componentConfigs.filter((k) => !(COMPONENT_CONFIG_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new TsadmError('E_USAGE', `unknown component config kind(s): ${unknown.join(', ')}`, { hint: `use ${COMPONENT_CONFIG_KINDS.join(', ')}` });
  }
  const { version, profile } = target(opts.version);
  const apiVersion = profile.configApiVersion;
  const resolved = resolveInitConfig({ flags: { 'kubernetes-version': version }, env: PLACEHOLDER_ENV });
  const init = {
    ...resolved.init,
    bootstrapTokens: resolved.init.bootstrapTokens.map((t) => ({ ...t, token: PLACEHOLDER_TOKEN, description: '' })),
    nodeRegistration: {
      ...resolved.init.nodeRegistration,
      criSocket: placeholderCriSocket(profile),
      // kubeadm ≤1.21 printed dynamically defaulted values, taint included; later versions print static defaults (taints: null).
      taints: apiVersion === 'kubeadm.k8s.io/v1beta2' ? profile.controlPlane.markTaints.map(parseTaint) : undefined,
    },
  };
  const docs: unknown[] = [initToExternal(init, apiVersion), clusterToExternal(resolved.cluster, apiVersion)];
  const kinds = new Set(opts.componentConfigs as readonly ComponentConfigKind[]);
  if (kinds.has('KubeletConfiguration')) docs.push(kubeletDefaults(resolved.cluster, profile));
  if (kinds.has('KubeProxyConfiguration')) docs.push(kubeProxyDefaults(resolved.cluster, profile));
  return toKubeYamlDocuments(docs);
}

export function printJoinDefaults(opts: PrintOptions = {}): string {
  const { profile } = target(opts.version);
  const resolved = resolveJoinConfig({
    flags: { token: PLACEHOLDER_TOKEN, 'discovery-token-unsafe-skip-ca-verification': true },
    apiServerEndpoint: 'kube-apiserver:6443',
    env: PLACEHOLDER_ENV,
  });
  const join = { ...resolved.join, nodeRegistration: { ...resolved.join.nodeRegistration, criSocket: placeholderCriSocket(profile) } };
  return toKubeYaml(joinToExternal(join, profile.configApiVersion));
}

/** ResetConfiguration and UpgradeConfiguration exist in v1beta4 only (kubeadm 1.31+ prints them). */
function requireV4(profile: VersionProfile, version: string, kind: string): void {
  if (profile.configApiVersion !== 'kubeadm.k8s.io/v1beta4') {
    throw new TsadmError('E_USAGE', `${kind} does not exist in ${profile.configApiVersion}, the config API of Kubernetes ${version}`, {
      hint: 'ResetConfiguration and UpgradeConfiguration are kubeadm.k8s.io/v1beta4 kinds (kubeadm 1.31 and later); give --kubernetes-version 1.31 or newer',
    });
  }
}

/**
 * `config print reset-defaults`: kubeadm's DefaultedResetConfiguration of an empty document with
 * CRI detection skipped (SetDefaults_ResetConfiguration: certificatesDir and every timeout;
 * SetResetDynamicDefaults: the default containerd socket).
 */
export function printResetDefaults(opts: PrintOptions = {}): string {
  const { version, profile } = target(opts.version);
  requireV4(profile, version, 'ResetConfiguration');
  const reset = { ...defaultReset({}), criSocket: placeholderCriSocket(profile) };
  return toKubeYaml(resetToExternal(reset, DEFAULT_TIMEOUTS));
}

/**
 * `config print upgrade-defaults`: v1beta4 SetDefaults_UpgradeConfiguration of an empty document.
 * apply and node get certificateRenewal, etcdUpgrade, imagePullPolicy IfNotPresent and
 * imagePullSerial; plan gets etcdUpgrade from 1.33 (PR #130023); diff stays empty; every timeout.
 */
export function printUpgradeDefaults(opts: PrintOptions = {}): string {
  const { version, profile } = target(opts.version);
  requireV4(profile, version, 'UpgradeConfiguration');
  return toKubeYaml(defaultedUpgradeConfiguration({}, profile));
}

/**
 * A v1beta4 UpgradeConfiguration (schema-checked, as written) with kubeadm's
 * SetDefaults_UpgradeConfiguration of `profile`'s minor filled in where a field is unset, as
 * `config print upgrade-defaults` and (kubeadm 1.36+, PR #135148) `config migrate` write it.
 */
export function defaultedUpgradeConfiguration(written: Readonly<Record<string, unknown>>, profile: VersionProfile): Record<string, unknown> {
  const given = (key: string): Record<string, unknown> => {
    const v = written[key];
    return isPlainObject(v) ? v : {};
  };
  const section = (key: string): Record<string, unknown> => ({
    certificateRenewal: BOOL_DEFAULTS.certificateRenewal,
    etcdUpgrade: BOOL_DEFAULTS.etcdUpgrade,
    imagePullPolicy: 'IfNotPresent',
    imagePullSerial: true,
    ...given(key),
  });
  const writtenTimeouts = given('timeouts');
  const timeouts = timeoutsToExternal(defaultTimeouts(writtenTimeouts));
  // timeoutsToExternal writes kubeadm's default upgradeManifests; a written one is kept.
  if (typeof writtenTimeouts.upgradeManifests === 'string') timeouts.upgradeManifests = formatDuration(parseDuration(writtenTimeouts.upgradeManifests));
  return {
    apiVersion: profile.configApiVersion,
    kind: 'UpgradeConfiguration',
    apply: section('apply'),
    diff: given('diff'),
    node: section('node'),
    plan: { ...(profile.upgrade.planEtcdUpgrade ? { etcdUpgrade: BOOL_DEFAULTS.etcdUpgrade } : {}), ...given('plan') },
    timeouts,
  };
}

/**
 * The ClusterConfiguration document kubeadm stores in kube-system/kubeadm-config. kubeadm before
 * v1beta4 stored `authorization-mode: Node,RBAC` among the API server's extraArgs (its manifest code
 * wrote the default into the config it then uploaded), so the same is done for v1beta2/v1beta3.
 */
export function serializeClusterConfiguration(cluster: ClusterConfiguration, apiVersion: KubeadmApiVersion): string {
  let c = cluster;
  if (apiVersion !== 'kubeadm.k8s.io/v1beta4' && !cluster.apiServer.extraArgs.some((a) => a.name === 'authorization-mode')) {
    c = { ...cluster, apiServer: { ...cluster.apiServer, extraArgs: [...cluster.apiServer.extraArgs, { name: 'authorization-mode', value: 'Node,RBAC' }] } };
  }
  return toKubeYaml(clusterToExternal(c, apiVersion));
}

/** "node-role.kubernetes.io/master:NoSchedule" (the version table's notation) → {key, effect}. */
export function parseTaint(text: string): Taint {
  const colon = text.lastIndexOf(':');
  return { key: text.slice(0, colon), effect: text.slice(colon + 1) as Taint['effect'] };
}
