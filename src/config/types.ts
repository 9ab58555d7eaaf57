import type { ApiVersionUse } from './schema-kubeadm.js';
import type { KeyAlgorithm } from '../pki/keys.js';

/**
 * The resolved configuration: kubeadm's internal config API (what every external version,
 * v1beta2/v1beta3/v1beta4, converts into), after defaulting, flag overlay and validation.
 * Phases read only this; nothing reads raw flags or raw YAML.
 *
 * Field names follow kubeadm's v1beta4 (the newest) so the mapping stays obvious.
 */

/** One command-line argument of a control-plane component (v1beta4 form; v1beta2/3 maps convert to this). */
export interface Arg {
  readonly name: string;
  readonly value: string;
}

export interface EnvVar {
  readonly name: string;
  readonly value: string;
}

export type HostPathType =
  | ''
  | 'DirectoryOrCreate'
  | 'Directory'
  | 'FileOrCreate'
  | 'File'
  | 'Socket'
  | 'CharDevice'
  | 'BlockDevice';

export interface HostPathMount {
  readonly name: string;
  readonly hostPath: string;
  readonly mountPath: string;
  readonly readOnly: boolean;
  readonly pathType: HostPathType;
}

export interface ControlPlaneComponent {
  readonly extraArgs: readonly Arg[];
  readonly extraVolumes: readonly HostPathMount[];
  readonly extraEnvs: readonly EnvVar[];
}

interface APIServer extends ControlPlaneComponent {
  readonly certSANs: readonly string[];
  /** v1beta2/v1beta3 `apiServer.timeoutForControlPlane`; v1beta4 `timeouts.controlPlaneComponentHealthCheck`. */
  readonly timeoutForControlPlaneMs: number;
}

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface NodeRegistration {
  readonly name: string;
  /** CRI socket as the user wrote it or as auto-detected; empty = detect at run time. */
  readonly criSocket: string;
  /** undefined = "not set" (kubeadm applies the control-plane default); [] = explicitly none. */
  readonly taints: readonly Taint[] | undefined;
  readonly kubeletExtraArgs: readonly Arg[];
  readonly ignorePreflightErrors: readonly string[];
  readonly imagePullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  /** v1beta4 `imagePullSerial` (default true): pull images one at a time. */
  readonly imagePullSerial?: boolean;
}

export interface APIEndpoint {
  readonly advertiseAddress: string;
  readonly bindPort: number;
}

export interface BootstrapToken {
  /** "abcdef.0123456789abcdef" */
  readonly token: string;
  readonly description: string;
  /** Time to live in ms; 0 = never expires. */
  readonly ttlMs: number;
  /** Absolute expiry (RFC 3339) when given instead of ttl. */
  readonly expires?: string;
  readonly usages: readonly string[];
  readonly groups: readonly string[];
}

export interface LocalEtcd {
  readonly mode: 'local';
  readonly imageRepository: string;
  readonly imageTag: string;
  readonly dataDir: string;
  readonly extraArgs: readonly Arg[];
  readonly extraEnvs: readonly EnvVar[];
  readonly serverCertSANs: readonly string[];
  readonly peerCertSANs: readonly string[];
}

export interface ExternalEtcd {
  readonly mode: 'external';
  /** The client (gRPC) URLs: kube-apiserver's --etcd-servers. */
  readonly endpoints: readonly string[];
  /**
   * v1beta4 `httpEndpoints` (kubeadm 1.35+, PR #134890): etcd's separate HTTP listener
   * (--listen-client-http-urls) for /version, /health and /metrics; empty = `endpoints` serve HTTP
   * too (kubeadm's ExternalEtcd.GetHTTPEndpoints). Set only when the file gives it.
   */
  readonly httpEndpoints?: readonly string[];
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export type Etcd = LocalEtcd | ExternalEtcd;

interface Networking {
  /** Comma-separated for dual-stack, as in kubeadm. */
  readonly serviceSubnet: string;
  readonly podSubnet: string;
  readonly dnsDomain: string;
}

export type EncryptionAlgorithm = KeyAlgorithm;

export interface ClusterConfiguration {
  readonly kubernetesVersion: string; // "v1.20.2"
  readonly controlPlaneEndpoint: string; // "host[:port]" or ""
  readonly clusterName: string;
  readonly certificatesDir: string;
  readonly imageRepository: string;
  readonly networking: Networking;
  readonly etcd: Etcd;
  readonly apiServer: APIServer;
  readonly controllerManager: ControlPlaneComponent;
  readonly scheduler: ControlPlaneComponent;
  readonly dns: { readonly disabled: boolean; readonly imageRepository: string; readonly imageTag: string };
  readonly proxy: { readonly disabled: boolean };
  readonly featureGates: Readonly<Record<string, boolean>>;
  readonly encryptionAlgorithm: EncryptionAlgorithm;
  /** Leaf certificate validity in ms (kubeadm: 8760h). */
  readonly certificateValidityMs: number;
  /** CA certificate validity in ms (kubeadm: 87600h). */
  readonly caCertificateValidityMs: number;
}

export interface Timeouts {
  readonly controlPlaneComponentHealthCheckMs: number;
  readonly kubeletHealthCheckMs: number;
  readonly kubernetesAPICallMs: number;
  readonly etcdAPICallMs: number;
  readonly tlsBootstrapMs: number;
  readonly discoveryMs: number;
}

interface Patches {
  readonly directory: string;
}

export interface InitConfiguration {
  readonly bootstrapTokens: readonly BootstrapToken[];
  readonly nodeRegistration: NodeRegistration;
  readonly localAPIEndpoint: APIEndpoint;
  readonly certificateKey: string;
  readonly skipPhases: readonly string[];
  readonly patches?: Patches;
  readonly timeouts: Timeouts;
  /** v1beta4 `dryRun` (or --dry-run, which wins when given). */
  readonly dryRun?: boolean;
}

interface BootstrapTokenDiscovery {
  readonly token: string;
  readonly apiServerEndpoint: string;
  readonly caCertHashes: readonly string[];
  readonly unsafeSkipCAVerification: boolean;
}

interface FileDiscovery {
  readonly kubeConfigPath: string;
}

export interface Discovery {
  readonly bootstrapToken?: BootstrapTokenDiscovery;
  readonly file?: FileDiscovery;
  readonly tlsBootstrapToken: string;
  readonly timeoutMs: number;
}

interface JoinControlPlane {
  readonly localAPIEndpoint: APIEndpoint;
  readonly certificateKey: string;
}

export interface JoinConfiguration {
  readonly nodeRegistration: NodeRegistration;
  readonly caCertPath: string;
  readonly discovery: Discovery;
  readonly controlPlane?: JoinControlPlane;
  readonly skipPhases: readonly string[];
  readonly patches?: Patches;
  readonly timeouts: Timeouts;
  /** v1beta4 `dryRun` (or --dry-run, which wins when given). */
  readonly dryRun?: boolean;
}

export interface ResetConfiguration {
  readonly certificatesDir: string;
  readonly criSocket: string;
  readonly force: boolean;
  readonly ignorePreflightErrors: readonly string[];
  readonly skipPhases: readonly string[];
  readonly cleanupTmpDir: boolean;
  /** v1beta4 `dryRun` (or --dry-run, which wins when given). */
  readonly dryRun?: boolean;
  /** v1beta4 `unmountFlags`: unmount2() flags (MNT_FORCE, MNT_DETACH, MNT_EXPIRE, UMOUNT_NOFOLLOW). */
  readonly unmountFlags?: readonly string[];
  /**
   * v1beta4 `timeouts` that reset uses, only when given (kubeadm sets them as the active timeouts
   * of the run): kubernetesAPICall bounds reset's API calls; etcdAPICall its etcd calls.
   */
  readonly timeouts?: ResetTimeouts;
}

export interface ResetTimeouts {
  readonly kubernetesAPICallMs?: number;
  readonly etcdAPICallMs?: number;
}

/**
 * Component configs passed through to the kubelet / kube-proxy. Kept as plain objects: tsadm
 * only merges kubeadm's defaults into them (see phases/kubelet, phases/addons).
 */
interface ComponentConfigs {
  readonly kubelet: Readonly<Record<string, unknown>>;
  readonly kubeProxy: Readonly<Record<string, unknown>>;
  /** Whether the user supplied them (kubeadm only warns about overridden defaults in that case). */
  readonly userKubelet: boolean;
  readonly userKubeProxy: boolean;
}

/** Everything `tsadm init` (and its phases) read. */
export interface ResolvedInitConfig {
  readonly kind: 'init';
  readonly init: InitConfiguration;
  readonly cluster: ClusterConfiguration;
  readonly componentConfigs: ComponentConfigs;
  /** Non-fatal observations made while loading (deprecated fields, defaults overriding user values, …). */
  readonly warnings: readonly string[];
}

/** Everything `tsadm join` (and its phases) read before discovery. */
export interface ResolvedJoinConfig {
  readonly kind: 'join';
  readonly join: JoinConfiguration;
  readonly warnings: readonly string[];
  /**
   * The API version of the --config JoinConfiguration: join checks it against the cluster's minor
   * once discovery has found it (src/config/api-versions.ts).
   */
  readonly apiVersions?: readonly ApiVersionUse[];
}

export interface ResolvedResetConfig {
  readonly kind: 'reset';
  readonly reset: ResetConfiguration;
  readonly warnings: readonly string[];
}

/** Which `upgrade` subcommand a configuration is resolved for (UpgradeConfiguration has one section each). */
export type UpgradeCommand = 'apply' | 'node' | 'plan' | 'diff';

/**
 * The settings of one `tsadm upgrade …` run: v1beta4 UpgradeConfiguration's section of the command,
 * with the flags overlaid (flags win), or the flags alone.
 */
export interface UpgradeSettings {
  /** The target (apply, plan, diff); undefined for node (the cluster's stored version is the target) or when not given. */
  readonly kubernetesVersion: string | undefined;
  readonly allowExperimentalUpgrades: boolean;
  readonly allowRCUpgrades: boolean;
  /** Renew the certificates of each upgraded component (default true). */
  readonly certificateRenewal: boolean;
  /** Upgrade etcd when its version changes (default true). */
  readonly etcdUpgrade: boolean;
  /** --force / forceUpgrade: skippable version-policy errors become warnings; implies --yes. */
  readonly force: boolean;
  /** --yes: no confirmation prompt. */
  readonly yes: boolean;
  readonly dryRun: boolean;
  readonly ignorePreflightErrors: readonly string[];
  readonly skipPhases: readonly string[];
  readonly patches?: { readonly directory: string };
  /** timeouts.upgradeManifests: how long one static Pod may take to come back after its manifest changed (default 5 min). */
  readonly upgradeManifestsTimeoutMs: number;
  /** timeouts.kubernetesAPICall (default 1 min). */
  readonly kubernetesAPICallMs: number;
  /** plan/apply --print-config. */
  readonly printConfig: boolean;
  /** diff: lines of context around each change (--context-lines / diff.contextLines, default 3). */
  readonly diffContextLines: number;
}

export interface ResolvedUpgradeConfig {
  readonly kind: 'upgrade';
  readonly command: UpgradeCommand;
  readonly upgrade: UpgradeSettings;
  /**
   * kubeadm 1.20's flow for v1beta2/v1beta3 files: `--config` holds a ClusterConfiguration that
   * replaces the one stored in the cluster (its kubernetesVersion is the target unless a version
   * argument is given).
   */
  readonly clusterOverride?: { readonly text: string; readonly source: string };
  readonly warnings: readonly string[];
}
