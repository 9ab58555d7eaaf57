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
  readonly endpoints: readonly string[];
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

export type EncryptionAlgorithm = 'RSA-2048' | 'RSA-3072' | 'RSA-4096' | 'ECDSA-P256' | 'ECDSA-P384';

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

export interface Patches {
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
}

export interface ResolvedResetConfig {
  readonly kind: 'reset';
  readonly reset: ResetConfiguration;
  readonly warnings: readonly string[];
}

/** The `tsadm upgrade` subcommands; each reads its own section of an UpgradeConfiguration. */
export type UpgradeCommand = 'apply' | 'node' | 'plan' | 'diff';

/**
 * Everything `tsadm upgrade apply|node|plan|diff` read from --config (a v1beta4
 * UpgradeConfiguration, or kubeadm ≤1.30's v1beta2/v1beta3 ClusterConfiguration) and the flags,
 * after kubeadm's defaults (SetDefaults_UpgradeConfiguration). One flat shape for the four
 * commands: a field the command's section does not have holds kubeadm's default, so callers
 * never branch on the command to read it.
 */
export interface ResolvedUpgradeConfig {
  readonly kind: 'upgrade';
  readonly command: UpgradeCommand;
  /**
   * The version asked for, normalised ("v1.20.3"): the positional [version] wins over the file's
   * `<command>.kubernetesVersion` (or an old ClusterConfiguration's kubernetesVersion); undefined
   * when neither gives one (plan then offers versions, diff takes the cluster's).
   */
  readonly kubernetesVersion?: string;
  readonly allowExperimentalUpgrades: boolean;
  readonly allowRCUpgrades: boolean;
  /** apply, node: renew the certificates of the upgraded components (default true). */
  readonly certificateRenewal: boolean;
  /** apply, node: upgrade the local etcd too (default true). */
  readonly etcdUpgrade: boolean;
  readonly dryRun: boolean;
  /** apply: `forceUpgrade` / --force, upgrade despite skippable version-policy violations. */
  readonly forceUpgrade: boolean;
  /** The union of the file's and --ignore-preflight-errors, lowercased and sorted (kubeadm's ValidateIgnorePreflightErrors). */
  readonly ignorePreflightErrors: readonly string[];
  readonly patches?: Patches;
  readonly printConfig: boolean;
  readonly skipPhases: readonly string[];
  /** diff: lines of context around each change (--context-lines, default 3). */
  readonly diffContextLines: number;
  /** `timeouts.upgradeManifests` (default 5m): the wait for each upgraded static pod. */
  readonly upgradeManifestsTimeoutMs: number;
  /**
   * kubeadm ≤1.30's `--config` with a v1beta2/v1beta3 ClusterConfiguration: it replaces the
   * cluster's stored one (its kubernetesVersion is the target unless [version] is given).
   */
  readonly clusterOverride?: ClusterConfiguration;
  readonly warnings: readonly string[];
}
