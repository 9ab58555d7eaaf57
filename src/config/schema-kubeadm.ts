/**
 * The known fields of every kubeadm config kind, per API version, as data (from kubeadm's
 * apis/kubeadm/v1beta{2,3,4}/types.go and apis/bootstraptoken/v1). Each version is written as
 * the previous one plus what changed, so a difference between versions is visible in one place.
 */
import type { SupportedMinor } from '../versions/minors.js';
import { fields, list, map, type Schema } from './schema.js';

export const KUBEADM_GROUP = 'kubeadm.k8s.io';
export type KubeadmVersion = 'v1beta2' | 'v1beta3' | 'v1beta4';
export const KUBEADM_VERSIONS: readonly KubeadmVersion[] = ['v1beta2', 'v1beta3', 'v1beta4'];

/** One kubeadm document of a config file: its kind and API version (judged by src/config/api-versions.ts). */
export interface ApiVersionUse {
  readonly kind: string;
  readonly version: KubeadmVersion;
}
export type KubeadmKind = 'InitConfiguration' | 'ClusterConfiguration' | 'JoinConfiguration' | 'ResetConfiguration' | 'ClusterStatus' | 'UpgradeConfiguration';

export const KUBELET_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const KUBE_PROXY_API_VERSION = 'kubeproxy.config.k8s.io/v1alpha1';

const S: Schema = 'string';
const B: Schema = 'bool';
const I: Schema = 'int';
const D: Schema = 'duration';
const STRINGS = list(S);

const TYPE_META = { apiVersion: S, kind: S };
const HOST_PATH_MOUNT = fields({ name: S, hostPath: S, mountPath: S, readOnly: B, pathType: S });
const ARG = fields({ name: S, value: S });
const ENV_VAR = fields({ name: S, value: S, valueFrom: 'any' });
const TAINT = fields({ key: S, value: S, effect: S, timeAdded: 'any' });
const BOOTSTRAP_TOKEN = fields({ token: S, description: S, ttl: D, expires: S, usages: STRINGS, groups: STRINGS });
const API_ENDPOINT = fields({ advertiseAddress: S, bindPort: I });
const PATCHES = fields({ directory: S });
const IMAGE_META = { imageRepository: S, imageTag: S };
const EXTERNAL_ETCD = fields({ endpoints: STRINGS, caFile: S, certFile: S, keyFile: S });
const TIMEOUTS = fields({
  controlPlaneComponentHealthCheck: D,
  kubeletHealthCheck: D,
  kubernetesAPICall: D,
  etcdAPICall: D,
  tlsBootstrap: D,
  discovery: D,
  upgradeManifests: D,
});
const BOOTSTRAP_TOKEN_DISCOVERY = fields({ token: S, apiServerEndpoint: S, caCertHashes: STRINGS, unsafeSkipCAVerification: B });
const FILE_DISCOVERY = fields({ kubeConfigPath: S });

// ---- v1beta2 (Kubernetes 1.15–1.21): extraArgs are string maps.
const V2_EXTRA_ARGS = map(S);
const V2_COMPONENT = { extraArgs: V2_EXTRA_ARGS, extraVolumes: list(HOST_PATH_MOUNT) };
const V2_NODE_REGISTRATION = {
  name: S,
  criSocket: S,
  taints: list(TAINT),
  kubeletExtraArgs: V2_EXTRA_ARGS,
  ignorePreflightErrors: STRINGS,
};
const V2_LOCAL_ETCD = { ...IMAGE_META, dataDir: S, extraArgs: V2_EXTRA_ARGS, serverCertSANs: STRINGS, peerCertSANs: STRINGS };
const V2_CLUSTER = {
  ...TYPE_META,
  etcd: fields({ local: fields(V2_LOCAL_ETCD), external: EXTERNAL_ETCD }),
  networking: fields({ serviceSubnet: S, podSubnet: S, dnsDomain: S }),
  kubernetesVersion: S,
  controlPlaneEndpoint: S,
  apiServer: fields({ ...V2_COMPONENT, certSANs: STRINGS, timeoutForControlPlane: D }),
  controllerManager: fields(V2_COMPONENT),
  scheduler: fields(V2_COMPONENT),
  dns: fields({ type: S, ...IMAGE_META }),
  certificatesDir: S,
  imageRepository: S,
  useHyperKubeImage: B,
  featureGates: map(B),
  clusterName: S,
};
const V2_INIT = {
  ...TYPE_META,
  bootstrapTokens: list(BOOTSTRAP_TOKEN),
  nodeRegistration: fields(V2_NODE_REGISTRATION),
  localAPIEndpoint: API_ENDPOINT,
  certificateKey: S,
};
const V2_DISCOVERY = { bootstrapToken: BOOTSTRAP_TOKEN_DISCOVERY, file: FILE_DISCOVERY, tlsBootstrapToken: S, timeout: D };
const V2_JOIN = {
  ...TYPE_META,
  nodeRegistration: fields(V2_NODE_REGISTRATION),
  caCertPath: S,
  discovery: fields(V2_DISCOVERY),
  controlPlane: fields({ localAPIEndpoint: API_ENDPOINT, certificateKey: S }),
};

// ---- v1beta3 (1.22+): skipPhases, patches, imagePullPolicy; no useHyperKubeImage, no dns.type, no ClusterStatus.
const { type: _dnsType, ...V3_DNS } = { type: S, ...IMAGE_META };
const { useHyperKubeImage: _hyperkube, ...V3_CLUSTER_BASE } = V2_CLUSTER;
const V3_CLUSTER = { ...V3_CLUSTER_BASE, dns: fields(V3_DNS) };
const V3_NODE_REGISTRATION = { ...V2_NODE_REGISTRATION, imagePullPolicy: S };
const V3_INIT = { ...V2_INIT, nodeRegistration: fields(V3_NODE_REGISTRATION), skipPhases: STRINGS, patches: PATCHES };
const V3_JOIN = { ...V2_JOIN, nodeRegistration: fields(V3_NODE_REGISTRATION), skipPhases: STRINGS, patches: PATCHES };

// ---- v1beta4 (1.31+): extraArgs are lists, extraEnvs, timeouts, dryRun, addons can be disabled, PKI knobs.
const V4_EXTRA_ARGS = list(ARG);
const V4_COMPONENT = { extraArgs: V4_EXTRA_ARGS, extraVolumes: list(HOST_PATH_MOUNT), extraEnvs: list(ENV_VAR) };
const V4_NODE_REGISTRATION = { ...V3_NODE_REGISTRATION, kubeletExtraArgs: V4_EXTRA_ARGS, imagePullSerial: B };
const V4_LOCAL_ETCD = { ...V2_LOCAL_ETCD, extraArgs: V4_EXTRA_ARGS, extraEnvs: list(ENV_VAR) };
// httpEndpoints: added to v1beta4 by kubeadm 1.35 (PR #134890); FIELDS_SINCE refuses it for older targets.
const V4_EXTERNAL_ETCD = fields({ endpoints: STRINGS, httpEndpoints: STRINGS, caFile: S, certFile: S, keyFile: S });
const V4_CLUSTER = {
  ...V3_CLUSTER,
  etcd: fields({ local: fields(V4_LOCAL_ETCD), external: V4_EXTERNAL_ETCD }),
  apiServer: fields({ ...V4_COMPONENT, certSANs: STRINGS }),
  controllerManager: fields(V4_COMPONENT),
  scheduler: fields(V4_COMPONENT),
  dns: fields({ ...V3_DNS, disabled: B }),
  proxy: fields({ disabled: B }),
  encryptionAlgorithm: S,
  certificateValidityPeriod: D,
  caCertificateValidityPeriod: D,
};
const V4_INIT = { ...V3_INIT, nodeRegistration: fields(V4_NODE_REGISTRATION), dryRun: B, timeouts: TIMEOUTS };
const { timeout: _discoveryTimeout, ...V4_DISCOVERY } = V2_DISCOVERY;
const V4_JOIN = { ...V3_JOIN, nodeRegistration: fields(V4_NODE_REGISTRATION), discovery: fields(V4_DISCOVERY), dryRun: B, timeouts: TIMEOUTS };
const V4_RESET = {
  ...TYPE_META,
  cleanupTmpDir: B,
  certificatesDir: S,
  criSocket: S,
  dryRun: B,
  force: B,
  ignorePreflightErrors: STRINGS,
  skipPhases: STRINGS,
  unmountFlags: STRINGS,
  timeouts: TIMEOUTS,
};
// UpgradeConfiguration (v1beta4 only): one section per `upgrade` subcommand, as in types.go.
const V4_UPGRADE_APPLY = fields({
  kubernetesVersion: S,
  allowExperimentalUpgrades: B,
  allowRCUpgrades: B,
  certificateRenewal: B,
  dryRun: B,
  etcdUpgrade: B,
  forceUpgrade: B,
  ignorePreflightErrors: STRINGS,
  patches: PATCHES,
  printConfig: B,
  skipPhases: STRINGS,
  imagePullPolicy: S,
  imagePullSerial: B,
});
const V4_UPGRADE_NODE = fields({
  certificateRenewal: B,
  dryRun: B,
  etcdUpgrade: B,
  ignorePreflightErrors: STRINGS,
  skipPhases: STRINGS,
  patches: PATCHES,
  imagePullPolicy: S,
  imagePullSerial: B,
});
// etcdUpgrade: kubeadm 1.33+ (PR #130023); `config print upgrade-defaults` writes it from 1.33.
const V4_UPGRADE_PLAN = fields({ kubernetesVersion: S, allowExperimentalUpgrades: B, allowRCUpgrades: B, dryRun: B, etcdUpgrade: B, ignorePreflightErrors: STRINGS, printConfig: B });
// The Go field is DiffContextLines; its JSON name is contextLines.
const V4_UPGRADE_DIFF = fields({ kubernetesVersion: S, contextLines: I });
const V4_UPGRADE = { ...TYPE_META, apply: V4_UPGRADE_APPLY, node: V4_UPGRADE_NODE, plan: V4_UPGRADE_PLAN, diff: V4_UPGRADE_DIFF, timeouts: TIMEOUTS };

/** Known kinds and their fields, per kubeadm API version. */
export const KUBEADM_SCHEMAS: Readonly<Record<KubeadmVersion, Partial<Record<KubeadmKind, Schema>>>> = {
  v1beta2: {
    InitConfiguration: fields(V2_INIT),
    ClusterConfiguration: fields(V2_CLUSTER),
    JoinConfiguration: fields(V2_JOIN),
    ClusterStatus: fields({ ...TYPE_META, apiEndpoints: map(API_ENDPOINT) }),
  },
  v1beta3: {
    InitConfiguration: fields(V3_INIT),
    ClusterConfiguration: fields(V3_CLUSTER),
    JoinConfiguration: fields(V3_JOIN),
  },
  v1beta4: {
    InitConfiguration: fields(V4_INIT),
    ClusterConfiguration: fields(V4_CLUSTER),
    JoinConfiguration: fields(V4_JOIN),
    ResetConfiguration: fields(V4_RESET),
    UpgradeConfiguration: fields(V4_UPGRADE),
  },
};

/**
 * Fields a later kubeadm minor added to an API version it already had: the version's schema knows
 * them, and the loader refuses them as unknown fields when the target minor is older than `since`
 * (kubeadm of that minor decodes the file strictly and does not know the field).
 */
export const FIELDS_SINCE: ReadonlyArray<{ readonly kind: KubeadmKind; readonly version: KubeadmVersion; readonly path: string; readonly since: SupportedMinor; readonly source: string }> = [
  { kind: 'ClusterConfiguration', version: 'v1beta4', path: 'etcd.external.httpEndpoints', since: '1.35', source: 'kubeadm PR #134890' },
];

/** Component configs are passed through to the kubelet / kube-proxy; only their type is checked. */
export const COMPONENT_KINDS: Readonly<Record<string, { readonly apiVersion: string; readonly key: 'kubelet' | 'kubeProxy' }>> = {
  KubeletConfiguration: { apiVersion: KUBELET_API_VERSION, key: 'kubelet' },
  KubeProxyConfiguration: { apiVersion: KUBE_PROXY_API_VERSION, key: 'kubeProxy' },
};

/** kubeadm API versions tsadm no longer reads (kubeadm itself refuses them too). */
export const OLD_KUBEADM_VERSIONS: readonly string[] = ['v1alpha1', 'v1alpha2', 'v1alpha3', 'v1beta1'];
