/**
 * Version facts as data: one row per supported Kubernetes minor. Each row is the previous row
 * plus the changes that landed in that minor (the `changes` of each entry say why), so a fact
 * that changed in 1.29 is written once, in the 1.29 entry. Renderers take the row and never
 * compare versions themselves. Each change names the kubeadm pull request it comes from;
 * test/fixtures/versions/ holds golden facts of some minors taken from kubeadm's own source, which
 * test/unit/versions/table.test.ts compares with what tsadm renders.
 * What each fact means and where it comes from: docs/kubeadm-reference.md.
 */
import { isPlainObject } from '../util/plain-object.js';

export const SUPPORTED_MINORS = [
  '1.20', '1.21', '1.22', '1.23', '1.24', '1.25', '1.26', '1.27',
  '1.28', '1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35', '1.36', '1.37',
  // The preview minor (after NEWEST_MINOR): deployed only when one of its pre-releases is named
  // (src/versions/release.ts).
  '1.38',
] as const;
export type SupportedMinor = (typeof SUPPORTED_MINORS)[number];

/**
 * The newest *released* minor tsadm knows: its DEFAULT_PATCH is the default --kubernetes-version.
 * A row after it (the last of SUPPORTED_MINORS) is a preview built from pre-release notes; on
 * release day this constant and DEFAULT_PATCH change and nothing else (docs/architecture.md,
 * "Release day"; test/unit/versions/release.test.ts).
 */
export const NEWEST_MINOR: SupportedMinor = '1.37';
/** The minor after `minor` ("1.37" → "1.38"). */
export function minorAfter(minor: string): string {
  const [major, min] = minor.split('.').map(Number);
  return `${major}.${(min ?? 0) + 1}`;
}
/** The minor after NEWEST_MINOR: exists only as pre-releases (a final version of it is refused). */
export const NEXT_UNRELEASED_MINOR = minorAfter(NEWEST_MINOR);
/** Default patch version per minor for `--kubernetes-version` when only the minor is implied. */
export const DEFAULT_PATCH: Readonly<Record<SupportedMinor, string>> = {
  '1.20': 'v1.20.2', '1.21': 'v1.21.14', '1.22': 'v1.22.17', '1.23': 'v1.23.17',
  '1.24': 'v1.24.17', '1.25': 'v1.25.16', '1.26': 'v1.26.15', '1.27': 'v1.27.16',
  '1.28': 'v1.28.15', '1.29': 'v1.29.15', '1.30': 'v1.30.14', '1.31': 'v1.31.13',
  '1.32': 'v1.32.9', '1.33': 'v1.33.5', '1.34': 'v1.34.1',
  // The newest patch of each current minor confirmed from kubernetes/kubernetes CHANGELOG-1.3x.md
  // (docs/kubernetes-1.35-1.38.md names the source).
  // v1.35.4 and v1.36.0 are the newest in the stored changelogs (CHANGELOG-1.35.md at 008b3652,
  // CHANGELOG-1.36.md up to v1.36.0; re-read 2026-11-29); CHANGELOG-1.37.md lists only
  // v1.37.0-alpha.1, so v1.37.0 is attested only by third-party reports of kubeadm v1.37.0 runs.
  // Changes of later patches (PR #138957 from v1.35.5 and v1.36.1) are PATCH_CHANGES below;
  // how to bump an entry: docs/architecture.md, "Bumping a minor's default patch".
  '1.35': 'v1.35.4', '1.36': 'v1.36.0', '1.37': 'v1.37.0',
  // Preview minor: never a default while NEWEST_MINOR is older (src/versions/release.ts refuses
  // `1.38` and `stable-1.38`); the newest pre-release CHANGELOG-1.38.md lists. v1.38.0 on release day.
  '1.38': 'v1.38.0-alpha.2',
};

type EtcdProbeStyle = 'health' | 'health-serializable' | 'livez-readyz';

/**
 * One of kubeadm's own feature gates at one minor (kubeadm's cmd/kubeadm/app/features/features.go
 * of that release: InitFeatureGates).
 */
export interface FeatureGateFact {
  readonly default: boolean;
  readonly stage: 'alpha' | 'beta' | 'GA' | 'deprecated';
  /** LockToDefault: the gate cannot be set against its default (GA gates). */
  readonly locked?: boolean;
  /** DeprecationMessage: setting the gate warns with it. */
  readonly deprecation?: string;
  /**
   * kubeadm of this minor no longer has the gate (refused when set); its behaviour stays as the
   * gate's last default (a GA gate is removed once it is always on, a deprecated one once off).
   */
  readonly removed?: true;
}

/** A gate kubeadm removed at this minor, with the behaviour it keeps. */
const removedGate = (on: boolean): FeatureGateFact => ({ default: on, stage: on ? 'GA' : 'deprecated', ...(on ? { locked: true } : {}), removed: true });

export interface VersionProfile {
  readonly minor: SupportedMinor;
  /** kubeadm config API version kubeadm of this minor stores in kubeadm-config and prints. */
  readonly configApiVersion: 'kubeadm.k8s.io/v1beta2' | 'kubeadm.k8s.io/v1beta3' | 'kubeadm.k8s.io/v1beta4';
  /**
   * The kubeadm.k8s.io versions kubeadm of this minor reads from a config file (apis/kubeadm/scheme
   * and util/config's version checks); any other is refused with a hint naming `tsadm config migrate`.
   */
  readonly configApiVersionsRead: ReadonlyArray<'v1beta2' | 'v1beta3' | 'v1beta4'>;
  /** Versions read but deprecated (a warning names `tsadm config migrate`). */
  readonly configApiVersionsDeprecated: ReadonlyArray<'v1beta2' | 'v1beta3' | 'v1beta4'>;
  readonly defaultImageRepository: string;
  readonly images: {
    readonly etcdTag: string;
    readonly corednsTag: string;
    readonly pauseTag: string;
    /** Image path of CoreDNS under the *default* repository ("coredns" or "coredns/coredns"). */
    readonly corednsDefaultPath: string;
    /**
     * Order of GetControlPlaneImages: 1.20's kube images, pause, etcd, CoreDNS; from 1.29 kube
     * images, CoreDNS, pause, etcd (kubeadm v1.28.0 and v1.29.0 `config images list` output; the
     * PR was not identified).
     */
    readonly listOrder: 'pause-etcd-dns' | 'dns-pause-etcd';
    /** A disabled addon (proxy/dns.disabled, an init skipping addon/kube-proxy or addon/coredns) has no image in the list (1.31, PR #114534). */
    readonly skipDisabledAddons: boolean;
  };
  /** Images commands and the preflight image pull (cmd/config.go, apis/output, cmd/phases/init/preflight.go). */
  readonly imageCommands: {
    /** apiVersion of `config images list -o json|yaml`: v1alpha1; v1alpha2 from 1.23 (PR #105295); v1alpha3 from 1.31 (PR #124464). */
    readonly outputApiVersion: 'output.kubeadm.k8s.io/v1alpha1' | 'output.kubeadm.k8s.io/v1alpha2' | 'output.kubeadm.k8s.io/v1alpha3';
    /** preflight's third pull line says "in beforehand" until 1.30 and "beforehand" from 1.31 (kubeadm v1.30.1 and v1.31.3 output; the PR was not identified). */
    readonly pullHintInBeforehand: boolean;
  };
  readonly pki: {
    /** O of admin.conf's client cert. */
    readonly adminOrg: string;
    /** O of apiserver-kubelet-client.crt. */
    readonly apiserverKubeletClientOrg: string | undefined;
    /** O of etcd/healthcheck-client.crt and apiserver-etcd-client.crt. */
    readonly etcdClientOrg: string | undefined;
    /** Leaf NotBefore = the CA's NotBefore (1.20) or start − backdate (modern). */
    readonly leafNotBefore: 'ca-not-before' | 'backdated';
    readonly backdateMs: number;
    /** Modern leaves carry BasicConstraints CA:FALSE. */
    readonly leafBasicConstraints: boolean;
    /** CA serial number 0 (1.20) or random. */
    readonly caSerialZero: boolean;
    /** encryptionAlgorithm accepts ML-DSA-44, ML-DSA-65 and ML-DSA-87 (v1beta4; 1.38, PR #142037; no feature gate). */
    readonly mlDsa: boolean;
    /**
     * KeyUsage keyEncipherment only on certificates of RSA keys (1.38, PR #142037's first commit);
     * before, every certificate had it.
     */
    readonly keyEnciphermentRsaOnly: boolean;
  };
  readonly kubeconfig: {
    /** super-admin.conf exists (1.29+). */
    readonly superAdmin: boolean;
  };
  /**
   * kubeadm's feature gates of this minor (ClusterConfiguration.featureGates, --feature-gates):
   * which exist, their default, stage, lock and deprecation. Read only through
   * featureEnabled / validateFeatureGates in src/config/feature-gates.ts.
   */
  readonly featureGates: Readonly<Record<string, FeatureGateFact>>;
  readonly kubelet: {
    /** kubelet ConfigMap name: "kubelet-config-1.20" or "kubelet-config". */
    readonly configMapName: string;
    /** Role/RoleBinding name for that ConfigMap. */
    readonly configRbacName: string;
    /** 1.22+: cgroupDriver defaults to systemd when empty. */
    readonly defaultCgroupDriverSystemd: boolean;
    /** kubelet-finalize child phase name. */
    readonly finalizePhase: 'experimental-cert-rotation' | 'enable-client-cert-rotation';
    /** kubeadm-flags.env carries --container-runtime=remote (dockershim era). */
    readonly containerRuntimeRemoteFlag: boolean;
    /** CRI sockets are written as unix:// URLs. */
    readonly criSocketUrl: boolean;
    /** --patches knows the "kubeletconfiguration" target (1.25, PR #110405). */
    readonly configPatchTarget: boolean;
    /** kubeadm-flags.env carries --pod-infra-container-image (gone from 1.35: the kubelet dropped the flag, PR #133779). */
    readonly podInfraContainerImageFlag: boolean;
    /**
     * Flags `upgrade` removes from an existing kubeadm-flags.env when it moves a node to this minor
     * (kubeadm's unwantedFlags): --pod-infra-container-image at 1.35 (PR #133778; no longer at 1.36,
     * PR #135807), --container-runtime-endpoint at 1.37 (NodeLocalCRISocket removed, PR #138645).
     */
    readonly upgradeDropsFlags: readonly string[];
    /**
     * init's kubelet-config ConfigMap keeps the systemd-resolved resolvConf detected on the first
     * control plane; from 1.38 (PR #141337) it does not, and each node's config.yaml gets it from
     * its own host.
     */
    readonly resolvConfInConfigMap: boolean;
  };
  readonly controlPlane: {
    readonly markLabels: readonly string[];
    readonly markTaints: readonly string[];
    /** mark-control-plane log line: 1.20's `labels "a=''" and "b='' (deprecated)"` or the later `labels: [a b]`. */
    readonly markLogStyle: 'deprecated-pair' | 'list';
    /** kubeadm-config also holds ClusterStatus (v1beta2 era). */
    readonly clusterStatus: boolean;
    /** Static pods carry seccompProfile RuntimeDefault (1.22+). */
    readonly seccompRuntimeDefault: boolean;
    /** Static pods carry spec.priority 2000001000 (1.27+). */
    readonly podPriority: boolean;
    /** Probes use a named container port (1.34+). */
    readonly namedProbePorts: boolean;
    /**
     * Static pods are written without `metadata.creationTimestamp: null` (1.34+): apimachinery
     * v0.34.0 tags ObjectMeta.CreationTimestamp `omitempty,omitzero` (kubernetes PR #130989,
     * "Zero-value metadata.creationTimestamp values are now omitted"), and kubeadm's
     * MarshalToYaml goes through encoding/json, which honours omitzero from Go 1.24.
     */
    readonly omitEmptyCreationTimestamp: boolean;
    readonly apiserverInsecurePortFlag: boolean;
    readonly componentPortZeroFlag: boolean;
    /** kube-scheduler probes /livez + /readyz (1.32+) instead of /healthz. */
    readonly schedulerLivez: boolean;
    readonly etcdProbes: EtcdProbeStyle;
    readonly etcdCorruptCheckFlag: boolean;
    readonly etcdWatchProgressFlag: boolean;
    /** etcd ≥ 3.6 flag spelling (--feature-gates=InitialCorruptCheck=true, --watch-progress-notify-interval). */
    readonly etcd36Flags: boolean;
    /** etcd pod requests ephemeral-storage (1.20 observed). */
    readonly etcdEphemeralStorage: boolean;
    /**
     * How extraArgs combine with defaults: 'map' (v1beta2/v1beta3: override by name) or 'list'
     * (v1beta4, 1.31: a user arg replaces all defaults of its name; repeats allowed).
     */
    readonly extraArgsMode: 'map' | 'list';
    /** ClusterConfiguration featureGates.IPv6DualStack is passed as --feature-gates to apiserver/KCM/scheduler and the kubelet config (until GA in 1.23). */
    readonly dualStackFeatureGate: boolean;
    /** Host CA directories mounted read-only into apiserver/KCM when they exist on the host. */
    readonly caCertsExtraDirs: readonly string[];
    /** Container env = proxy vars merged with extraEnvs and sorted by name (v1beta4), else environment order. */
    readonly sortedEnv: boolean;
    /** kube-controller-manager mounts the flex-volume plugin dir (built-in flex-volume support removed in 1.36, PR #136423). */
    readonly flexVolumeMount: boolean;
    /**
     * User extraArgs keep the order the user wrote them in after the sorted defaults (1.36, PR
     * #135400); before, the whole merged command was sorted by flag name.
     */
    readonly extraArgsKeepUserOrder: boolean;
    /** Local etcd older than 3.6 is unsupported: the etcd 3.6 flag spelling whatever the image tag (1.36, PR #135701). */
    readonly etcdOnly36: boolean;
    /**
     * kube-apiserver's kubelet client (apiserver-kubelet-client.crt) is bound to the ClusterRole
     * system:kubelet-api-admin by a ClusterRoleBinding made in init's bootstrap-token phase and by
     * `upgrade apply` (1.37, PR #138957; from v1.33.12, v1.34.8, v1.35.5 and v1.36.1 by PATCH_CHANGES).
     */
    readonly kubeletApiAdminBinding: boolean;
  };
  readonly addons: {
    /** CoreDNS tolerates node-role.kubernetes.io/master:NoSchedule (dropped in 1.26). */
    readonly corednsMasterToleration: boolean;
    /** ClusterRole system:coredns may list/watch discovery.k8s.io EndpointSlices (CoreDNS ≥ 1.8.1). */
    readonly corednsEndpointSlices: boolean;
    /**
     * ClusterRole system:coredns may get nodes, a rule kept for CoreDNS's removed federation plugin;
     * kubeadm's DNS manifests dropped it in 1.28 (PR #117521, synced from coredns/deployment).
     */
    readonly corednsNodesGet: boolean;
    /** Value of the kube-dns Service label kubernetes.io/name. */
    readonly corednsServiceLabel: 'KubeDNS' | 'CoreDNS';
    /** Preferred pod anti-affinity on kubernetes.io/hostname (1.25, PR #110593). */
    readonly corednsAntiAffinity: boolean;
    /** capabilities.drop spelled "ALL" (1.29, PR #121384) instead of "all". */
    readonly corednsDropAllUpper: boolean;
    /** Corefile disables success/denial caching of the cluster domain (1.32, PR #128359). */
    readonly corednsCacheDisableClusterDomain: boolean;
    /** Probes use the named container ports liveness-probe / readiness-probe (1.33, PR #131587). */
    readonly corednsNamedProbePorts: boolean;
    /** --patches knows the "corednsdeployment" target, applied to the CoreDNS Deployment by init's and upgrade's addon phase (1.31, PR #124820). */
    readonly corednsPatchTarget: boolean;
    /** --patches knows the "kubeproxydaemonset" target, applied to the kube-proxy DaemonSet (1.37, PR #138090). */
    readonly kubeProxyPatchTarget: boolean;
    /** KubeProxyConfiguration's mode is defaulted to "iptables" when empty (1.37, PR #139777); before, it stayed "". */
    readonly kubeProxyDefaultModeIptables: boolean;
  };
  readonly workflow: {
    /** init's kubelet-start runs after etcd and control-plane (1.28, PR #117984) instead of right after kubeconfig. */
    readonly kubeletStartAfterControlPlane: boolean;
    /** init's show-join-command is a phase of its own (1.25, PR #111512); before, the join command was printed after the phases. */
    readonly showJoinCommandPhase: boolean;
    /** init's wait-control-plane has no `init phase` command (until WaitForAllControlPlaneComponents went GA in 1.34, PR #132594); join's says "EXPERIMENTAL" until then. */
    readonly waitControlPlaneHidden: boolean;
    /** join has a wait-control-plane phase, run for a control plane when WaitForAllControlPlaneComponents is on (1.30, PR #123341). */
    readonly joinWaitControlPlane: boolean;
    /**
     * join has the hidden etcd-join and kubelet-wait-bootstrap phases, run instead of
     * control-plane-join/etcd and kubelet-start's wait when ControlPlaneKubeletLocalMode is on
     * (1.31, PRs #125582 and #125780).
     */
    readonly joinLocalModePhases: boolean;
    /**
     * etcd-join and kubelet-wait-bootstrap are "[EXPERIMENTAL] … (only used when feature gate
     * ControlPlaneKubeletLocalMode is enabled)" and kubelet-wait-bootstrap is hidden (1.31–1.32);
     * 1.33 (PR #129956, the gate's beta) drops the prefix and shows kubelet-wait-bootstrap. etcd-join
     * stays hidden in 1.33/1.34 (unhidden only by later patch releases, PRs #135481 and #135482).
     */
    readonly joinLocalModeExperimental: boolean;
    /**
     * ControlPlaneKubeletLocalMode is the only behaviour (GA, 1.35, PR #134106): join's `etcd-join`
     * is visible and always runs for a control plane, `control-plane-join/etcd` is hidden and
     * deprecated (does nothing), and `kubelet-wait-bootstrap` always runs.
     */
    readonly joinEtcdJoinAlways: boolean;
    /** kubeadm removed join's control-plane-join/update-status (1.31, PR #124373): tsadm hides it (it still serves v1beta2 clusters). */
    readonly joinUpdateStatusRemoved: boolean;
  };
  /** What `upgrade apply` does beyond rendering init's objects at this minor (kubeadm's postupgrade.go and cmd/upgrade/apply.go). */
  readonly upgrade: {
    /** Give nodes that only have node-role.kubernetes.io/master the control-plane label too (1.20 LabelOldControlPlaneNodes). */
    readonly labelOldControlPlaneNodes: boolean;
    /** Remove the master label from control-plane nodes and add the control-plane taint next to the master one (1.24 RemoveOldControlPlaneLabel, AddNewControlPlaneTaint). */
    readonly removeOldControlPlaneLabel: boolean;
    /** Remove the master:NoSchedule taint from control-plane nodes (1.25 RemoveOldControlPlaneTaint; "Clean this up in 1.26"). */
    readonly removeOldControlPlaneTaint: boolean;
    /** The DNS addon counts as deployed when the kube-dns ConfigMap exists too, and a kube-dns Deployment is removed once CoreDNS runs (1.20 removeOldDNSDeploymentIfAnotherDNSIsUsed; kube-dns gone in 1.21). */
    readonly kubeDnsMigration: boolean;
    /** v1beta4 UpgradeConfiguration has plan.etcdUpgrade (default true) and `upgrade plan --etcd-upgrade` (1.33, PR #130023). */
    readonly planEtcdUpgrade: boolean;
    /**
     * CoreDNS and kube-proxy are upgraded only once every control-plane instance runs the new
     * kube-apiserver image, by `upgrade apply` and `upgrade node` alike (1.28, PR #116570 and
     * #117660; before, apply upgraded them at once). kubeadm tells upgraded instances by their
     * kube-apiserver Pod's image.
     */
    readonly addonsAfterAllControlPlanes: boolean;
    /** `upgrade node` has `addon` and `post-upgrade` phases of its own (1.32, PR #127242); 1.28–1.31 did the addons inside its control-plane step. */
    readonly nodeAddonPhases: boolean;
  };
  readonly skew: {
    /** Oldest kubelet this kubeadm accepts (preflight's KubeletVersion check): n-1 until 1.28, n-3 from 1.29 (PR #120825). */
    readonly minKubelet: string;
  };
  /** Preflight checks whose behaviour kubeadm changed at a minor (cmd/kubeadm/app/preflight/checks.go). */
  readonly preflight: {
    /**
     * ContainerRuntimeVersion: warns when the runtime does not answer the CRI RuntimeConfig call,
     * for kubelets older than this version (1.35 PR #134906 any kubelet; 1.36 PR #136898: < 1.37;
     * 1.37 PR #139122: < 1.38); undefined: kubeadm of this minor has no such check.
     */
    readonly containerRuntimeVersionBelow: string | undefined;
    /** Port checks bind to the configured component addresses, not all interfaces (1.37, PR #138250). */
    readonly portChecksOnConfiguredAddresses: boolean;
    /** Warns when getent is not in PATH (1.38, PR #141968: the kubelet resolves its user-namespace account with it). */
    readonly getentInPath: boolean;
    /**
     * The forwarding checks follow the cluster's IP families (1.27, PR #115420): ipv4/ip_forward
     * and ipv6/conf/default/forwarding for the families of init's Service and Pod subnets and
     * advertise address, or of join's discovery endpoint; before, ipv4/ip_forward always, among
     * the common checks.
     */
    readonly forwardingByIpFamily: boolean;
  };
}

const PUBLIC_KEYS_ECDSA_DEPRECATION = "The PublicKeysECDSA feature gate is deprecated and will be removed when v1beta3 is removed. v1beta4 supports a new option 'ClusterConfiguration.EncryptionAlgorithm'.";

type Delta = { readonly [K in keyof VersionProfile]?: VersionProfile[K] extends object ? Partial<VersionProfile[K]> : VersionProfile[K] };

const BASE_1_20: VersionProfile = {
  minor: '1.20',
  configApiVersion: 'kubeadm.k8s.io/v1beta2',
  configApiVersionsRead: ['v1beta2', 'v1beta3', 'v1beta4'],
  configApiVersionsDeprecated: [],
  defaultImageRepository: 'k8s.gcr.io',
  images: { etcdTag: '3.4.13-0', corednsTag: '1.7.0', pauseTag: '3.2', corednsDefaultPath: 'coredns', listOrder: 'pause-etcd-dns', skipDisabledAddons: false },
  imageCommands: { outputApiVersion: 'output.kubeadm.k8s.io/v1alpha1', pullHintInBeforehand: true },
  pki: {
    adminOrg: 'system:masters',
    apiserverKubeletClientOrg: 'system:masters',
    etcdClientOrg: 'system:masters',
    leafNotBefore: 'ca-not-before',
    backdateMs: 0,
    leafBasicConstraints: false,
    caSerialZero: true,
    mlDsa: false,
    keyEnciphermentRsaOnly: false,
  },
  kubeconfig: { superAdmin: false },
  featureGates: {
    IPv6DualStack: { default: false, stage: 'alpha' },
    PublicKeysECDSA: { default: false, stage: 'alpha' },
  },
  kubelet: {
    configMapName: 'kubelet-config-1.20',
    configRbacName: 'kubeadm:kubelet-config-1.20',
    defaultCgroupDriverSystemd: false,
    finalizePhase: 'experimental-cert-rotation',
    containerRuntimeRemoteFlag: true,
    criSocketUrl: false,
    configPatchTarget: false,
    podInfraContainerImageFlag: true,
    upgradeDropsFlags: [],
    resolvConfInConfigMap: true,
  },
  controlPlane: {
    markLabels: ['node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane'],
    markTaints: ['node-role.kubernetes.io/master:NoSchedule'],
    markLogStyle: 'deprecated-pair',
    clusterStatus: true,
    seccompRuntimeDefault: false,
    podPriority: false,
    namedProbePorts: false,
    omitEmptyCreationTimestamp: false,
    apiserverInsecurePortFlag: true,
    componentPortZeroFlag: true,
    schedulerLivez: false,
    etcdProbes: 'health',
    etcdCorruptCheckFlag: false,
    etcdWatchProgressFlag: false,
    etcd36Flags: false,
    etcdEphemeralStorage: true,
    extraArgsMode: 'map',
    dualStackFeatureGate: true,
    caCertsExtraDirs: ['/etc/pki', '/usr/share/ca-certificates', '/usr/local/share/ca-certificates', '/etc/ca-certificates'],
    sortedEnv: false,
    flexVolumeMount: true,
    extraArgsKeepUserOrder: false,
    etcdOnly36: false,
    kubeletApiAdminBinding: false,
  },
  addons: {
    corednsMasterToleration: true,
    corednsEndpointSlices: false,
    corednsNodesGet: true,
    corednsServiceLabel: 'KubeDNS',
    corednsAntiAffinity: false,
    corednsDropAllUpper: false,
    corednsCacheDisableClusterDomain: false,
    corednsNamedProbePorts: false,
    corednsPatchTarget: false,
    kubeProxyPatchTarget: false,
    kubeProxyDefaultModeIptables: false,
  },
  workflow: { kubeletStartAfterControlPlane: false, showJoinCommandPhase: false, waitControlPlaneHidden: true, joinWaitControlPlane: false, joinLocalModePhases: false, joinLocalModeExperimental: true, joinEtcdJoinAlways: false, joinUpdateStatusRemoved: false },
  upgrade: { labelOldControlPlaneNodes: true, removeOldControlPlaneLabel: false, removeOldControlPlaneTaint: false, kubeDnsMigration: true, addonsAfterAllControlPlanes: false, nodeAddonPhases: false, planEtcdUpgrade: false },
  skew: { minKubelet: '1.19.0' },
  preflight: { containerRuntimeVersionBelow: undefined, portChecksOnConfiguredAddresses: false, getentInPath: false, forwardingByIpFamily: false },
};

/** What changed in each minor, relative to the previous one. */
const CHANGES: ReadonlyArray<{ minor: SupportedMinor; why: string; delta: Delta }> = [
  {
    minor: '1.21',
    why: 'exclude-from-external-load-balancers label (PR #98269); coredns/coredns path with v tag; no etcd ephemeral-storage request (PR #102673, in 1.21 patches and the default v1.21.14)',
    delta: {
      featureGates: { IPv6DualStack: { default: true, stage: 'beta' } }, // dual-stack beta in 1.21
      images: { etcdTag: '3.4.13-0', corednsTag: 'v1.8.0', pauseTag: '3.4.1', corednsDefaultPath: 'coredns/coredns' },
      kubelet: { configMapName: 'kubelet-config-1.21', configRbacName: 'kubeadm:kubelet-config-1.21' },
      controlPlane: {
        markLabels: ['node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane', 'node.kubernetes.io/exclude-from-external-load-balancers'],
        markLogStyle: 'list',
        etcdEphemeralStorage: false,
      },
      // kube-dns removed; CoreDNS ≥ 1.8.1 watches EndpointSlices (Service label "CoreDNS": unverified minor)
      addons: { corednsEndpointSlices: true, corednsServiceLabel: 'CoreDNS' },
      // 1.20's one-off upgrade steps (unverified for 1.21: kubeadm's 1.21 apply.go was not read).
      upgrade: { labelOldControlPlaneNodes: false, kubeDnsMigration: false },
      skew: { minKubelet: '1.20.0' },
    },
  },
  {
    minor: '1.22',
    why: 'v1beta3; ClusterStatus dropped; seccomp RuntimeDefault (PR #100234); --insecure-port removed (PR #102121); cgroupDriver systemd default',
    delta: {
      featureGates: { RootlessControlPlane: { default: false, stage: 'alpha' } }, // PR #102158
      configApiVersion: 'kubeadm.k8s.io/v1beta3',
      images: { etcdTag: '3.5.0-0', corednsTag: 'v1.8.4', pauseTag: '3.5' },
      kubelet: { configMapName: 'kubelet-config-1.22', configRbacName: 'kubeadm:kubelet-config-1.22', defaultCgroupDriverSystemd: true },
      controlPlane: { clusterStatus: false, seccompRuntimeDefault: true, apiserverInsecurePortFlag: false },
      skew: { minKubelet: '1.21.0' },
    },
  },
  {
    minor: '1.23',
    why: '--port=0 removed from controller-manager/scheduler (kubeadm #2207); IPv6DualStack GA, no longer forwarded as a feature gate (PR #104691)',
    delta: {
      featureGates: { IPv6DualStack: { default: true, stage: 'GA', locked: true }, UnversionedKubeletConfigMap: { default: false, stage: 'alpha' } }, // dual-stack GA; PR #105741
      images: { etcdTag: '3.5.1-0', corednsTag: 'v1.8.6', pauseTag: '3.6' },
      imageCommands: { outputApiVersion: 'output.kubeadm.k8s.io/v1alpha2' }, // PR #105295
      kubelet: { configMapName: 'kubelet-config-1.23', configRbacName: 'kubeadm:kubelet-config-1.23' },
      controlPlane: { componentPortZeroFlag: false, dualStackFeatureGate: false },
      skew: { minKubelet: '1.22.0' },
    },
  },
  {
    minor: '1.24',
    why: 'UnversionedKubeletConfigMap; dockershim gone; master label dropped, control-plane taint added; etcd corrupt check (PR #109074)',
    delta: {
      featureGates: { IPv6DualStack: removedGate(true), UnversionedKubeletConfigMap: { default: true, stage: 'beta' } },
      images: { etcdTag: '3.5.3-0', corednsTag: 'v1.8.6', pauseTag: '3.7' },
      kubelet: { configMapName: 'kubelet-config', configRbacName: 'kubeadm:kubelet-config', containerRuntimeRemoteFlag: false, criSocketUrl: true },
      controlPlane: {
        markLabels: ['node-role.kubernetes.io/control-plane', 'node.kubernetes.io/exclude-from-external-load-balancers'],
        markTaints: ['node-role.kubernetes.io/master:NoSchedule', 'node-role.kubernetes.io/control-plane:NoSchedule'],
        etcdCorruptCheckFlag: true,
      },
      upgrade: { removeOldControlPlaneLabel: true }, // cmd/upgrade/apply.go 1.24
      skew: { minKubelet: '1.23.0' },
    },
  },
  {
    minor: '1.25',
    why: 'registry.k8s.io; only the control-plane taint; etcd watch-progress flag (PR #111383); serializable etcd probes (PR #110072); kubeletconfiguration patch target (PR #110405); show-join-command phase (PR #111512)',
    delta: {
      featureGates: { UnversionedKubeletConfigMap: { default: true, stage: 'GA', locked: true } },
      defaultImageRepository: 'registry.k8s.io',
      images: { etcdTag: '3.5.4-0', corednsTag: 'v1.9.3', pauseTag: '3.8' },
      kubelet: { configPatchTarget: true },
      controlPlane: { markTaints: ['node-role.kubernetes.io/control-plane:NoSchedule'], etcdWatchProgressFlag: true, etcdProbes: 'health-serializable' },
      addons: { corednsAntiAffinity: true }, // PR #110593
      workflow: { showJoinCommandPhase: true },
      upgrade: { removeOldControlPlaneLabel: false, removeOldControlPlaneTaint: true }, // cmd/upgrade/apply.go 1.25
      skew: { minKubelet: '1.24.0' },
    },
  },
  {
    minor: '1.26',
    why: 'image bumps; CoreDNS no longer tolerates the master taint',
    delta: {
      featureGates: { UnversionedKubeletConfigMap: removedGate(true) },
      images: { etcdTag: '3.5.6-0', corednsTag: 'v1.9.3', pauseTag: '3.9' },
      addons: { corednsMasterToleration: false },
      upgrade: { removeOldControlPlaneTaint: false },
      skew: { minKubelet: '1.25.0' },
    },
  },
  {
    minor: '1.27',
    why: 'static pods carry spec.priority (PR #114338)',
    delta: {
      featureGates: { EtcdLearnerMode: { default: false, stage: 'alpha' } }, // PR #113318
      images: { etcdTag: '3.5.7-0', corednsTag: 'v1.10.1', pauseTag: '3.9' },
      controlPlane: { podPriority: true },
      skew: { minKubelet: '1.26.0' },
      preflight: { forwardingByIpFamily: true }, // PR #115420
    },
  },
  {
    minor: '1.28',
    why: 'kubelet-start after the etcd and control-plane phases (PR #117984)',
    delta: {
      featureGates: { UpgradeAddonsBeforeControlPlane: { default: false, stage: 'deprecated', deprecation: 'The UpgradeAddonsBeforeControlPlane feature gate is deprecated and will be removed in a future release.' } }, // PR #117660
      images: { etcdTag: '3.5.9-0', corednsTag: 'v1.10.1', pauseTag: '3.9' },
      workflow: { kubeletStartAfterControlPlane: true },
      upgrade: { addonsAfterAllControlPlanes: true }, // PR #116570, #117660 (UpgradeAddonsBeforeControlPlane off)
      addons: { corednsNodesGet: false }, // PR #117521
      skew: { minKubelet: '1.27.0' },
    },
  },
  {
    minor: '1.29',
    why: 'kubeadm:cluster-admins (PR #121837), super-admin.conf, etcd client certs without O (PR #119859, #120521)',
    delta: {
      featureGates: { EtcdLearnerMode: { default: true, stage: 'beta' }, PublicKeysECDSA: { default: false, stage: 'deprecated', deprecation: PUBLIC_KEYS_ECDSA_DEPRECATION } }, // PR #120228
      images: { etcdTag: '3.5.10-0', corednsTag: 'v1.11.1', pauseTag: '3.9', listOrder: 'dns-pause-etcd' }, // list order: kubeadm 1.29.0 output
      pki: {
        adminOrg: 'kubeadm:cluster-admins',
        apiserverKubeletClientOrg: 'kubeadm:cluster-admins',
        etcdClientOrg: undefined,
      },
      kubeconfig: { superAdmin: true },
      addons: { corednsDropAllUpper: true }, // PR #121384
      skew: { minKubelet: '1.26.0' },
    },
  },
  {
    minor: '1.30',
    why: 'image bumps; WaitForAllControlPlaneComponents alpha and join\'s hidden wait-control-plane (PR #123341)',
    delta: {
      featureGates: { WaitForAllControlPlaneComponents: { default: false, stage: 'alpha' } }, // PR #123341
      workflow: { joinWaitControlPlane: true }, // PR #123341
      images: { etcdTag: '3.5.12-0', corednsTag: 'v1.11.1', pauseTag: '3.9' }, skew: { minKubelet: '1.27.0' },
    },
  },
  {
    minor: '1.31',
    why: 'v1beta4 (list extraArgs, extraEnvs sorted into env); backdated leaves and CA:FALSE; etcd /livez+/readyz probes (PR #124465); enable-client-cert-rotation; ControlPlaneKubeletLocalMode alpha with join\'s etcd-join and kubelet-wait-bootstrap (PRs #125582, #125780); /etc/pki no longer mounted, /etc/pki/ca-trust and /etc/pki/tls/certs instead (PR #124361); corednsdeployment patch target (PR #124820)',
    delta: {
      featureGates: {
        ControlPlaneKubeletLocalMode: { default: false, stage: 'alpha' }, // PR #125582
        UpgradeAddonsBeforeControlPlane: removedGate(false),
        // Deprecated in 1.31 (PR #124997); the message paraphrases that PR's release note, features.go's
        // own DeprecationMessage was not read at a tag (UNSURE, docs/kubernetes-1.35-1.38.md).
        RootlessControlPlane: { default: false, stage: 'deprecated', deprecation: 'Deprecated in favor of the core kubelet feature UserNamespacesSupport which is beta since 1.30. Once UserNamespacesSupport graduates to GA, kubeadm will start using it and RootlessControlPlane will be removed.' },
      },
      workflow: { joinLocalModePhases: true, joinUpdateStatusRemoved: true }, // PRs #125582, #125780; #124373
      configApiVersion: 'kubeadm.k8s.io/v1beta4',
      images: { etcdTag: '3.5.15-0', corednsTag: 'v1.11.3', pauseTag: '3.10', skipDisabledAddons: true }, // PR #114534
      imageCommands: { outputApiVersion: 'output.kubeadm.k8s.io/v1alpha3', pullHintInBeforehand: false }, // PR #124464
      pki: { leafNotBefore: 'backdated', backdateMs: 5 * 60 * 1000, leafBasicConstraints: true, caSerialZero: false },
      kubelet: { finalizePhase: 'enable-client-cert-rotation' },
      addons: { corednsPatchTarget: true }, // PR #124820
      controlPlane: {
        etcdProbes: 'livez-readyz',
        extraArgsMode: 'list',
        sortedEnv: true,
        caCertsExtraDirs: ['/etc/pki/ca-trust', '/etc/pki/tls/certs', '/usr/share/ca-certificates', '/usr/local/share/ca-certificates', '/etc/ca-certificates'],
      },
      skew: { minKubelet: '1.28.0' },
    },
  },
  {
    minor: '1.32',
    why: 'kube-scheduler /livez and /readyz probes (PR #126945)',
    delta: {
      featureGates: { EtcdLearnerMode: { default: true, stage: 'GA', locked: true } },
      images: { etcdTag: '3.5.16-0', corednsTag: 'v1.11.3', pauseTag: '3.10' },
      controlPlane: { schedulerLivez: true },
      addons: { corednsCacheDisableClusterDomain: true }, // PR #128359
      upgrade: { nodeAddonPhases: true }, // PR #127242
      skew: { minKubelet: '1.29.0' },
    },
  },
  {
    minor: '1.33',
    why: 'CoreDNS probes on named ports (PR #131587); plan.etcdUpgrade in UpgradeConfiguration (PR #130023); ControlPlaneKubeletLocalMode beta, on by default: kubelet.conf points at the local kube-apiserver (PR #129956)',
    delta: {
      // ControlPlaneKubeletLocalMode beta, on (PR #129956); WaitForAllControlPlaneComponents beta, on; NodeLocalCRISocket alpha; EtcdLearnerMode removed after GA.
      featureGates: {
        ControlPlaneKubeletLocalMode: { default: true, stage: 'beta' },
        WaitForAllControlPlaneComponents: { default: true, stage: 'beta' },
        NodeLocalCRISocket: { default: false, stage: 'alpha' },
        EtcdLearnerMode: removedGate(true),
      },
      workflow: { joinLocalModeExperimental: false }, // PR #129956
      upgrade: { planEtcdUpgrade: true }, // PR #130023: UpgradePlanConfiguration.etcdUpgrade
      images: { etcdTag: '3.5.21-0', corednsTag: 'v1.12.0', pauseTag: '3.10' },
      addons: { corednsNamedProbePorts: true },
      skew: { minKubelet: '1.30.0' },
    },
  },
  {
    minor: '1.34',
    why: 'etcd 3.6 flag spelling (PR #132838); named probe ports (PR #132776); no creationTimestamp: null in static pods (PR #130989, apimachinery omitzero); wait-control-plane visible (WaitForAllControlPlaneComponents GA, PR #132594)',
    delta: {
      images: { etcdTag: '3.6.4-0', corednsTag: 'v1.12.1', pauseTag: '3.10.1' },
      // PR #130989: apimachinery v0.34.0 omits the zero creationTimestamp (no `creationTimestamp: null`).
      controlPlane: { etcd36Flags: true, namedProbePorts: true, omitEmptyCreationTimestamp: true },
      // WaitForAllControlPlaneComponents GA (PR #132594); NodeLocalCRISocket beta, on by default.
      featureGates: {
        WaitForAllControlPlaneComponents: { default: true, stage: 'GA', locked: true },
        NodeLocalCRISocket: { default: true, stage: 'beta' },
      },
      workflow: { waitControlPlaneHidden: false },
      skew: { minKubelet: '1.31.0' },
    },
  },
  {
    minor: '1.35',
    why: 'ControlPlaneKubeletLocalMode GA: etcd-join visible, control-plane-join/etcd hidden (PR #134106); WaitForAllControlPlaneComponents removed (PR #134781); no --pod-infra-container-image (PRs #133779, #133778); ContainerRuntimeVersion check (PR #134906); etcd 3.6.6 (PRs #134251, #135271)',
    delta: {
      configApiVersionsRead: ['v1beta3', 'v1beta4'],
      configApiVersionsDeprecated: ['v1beta3'],
      featureGates: {
        ControlPlaneKubeletLocalMode: { default: true, stage: 'GA', locked: true },
        WaitForAllControlPlaneComponents: removedGate(true),
        RootlessControlPlane: removedGate(false), // PR #134178 (merged 2025-09-20, in the 1.35 cycle)
      },
      // CoreDNS v1.13.1 (PR #133968, "Update coredns to v1.13.1"; its release-note line says v1.12.4,
      // but kubeadm's constants.go at v1.35.8 and `kubeadm config images list` at v1.35.0, .1 and .4
      // give v1.13.1: docs/kubernetes-1.35-1.38.md); etcd 3.6.6 (PR #135271).
      images: { etcdTag: '3.6.6-0', corednsTag: 'v1.13.1', pauseTag: '3.10.1' },
      kubelet: { podInfraContainerImageFlag: false, upgradeDropsFlags: ['pod-infra-container-image'] },
      workflow: { joinEtcdJoinAlways: true },
      skew: { minKubelet: '1.32.0' },
      preflight: { containerRuntimeVersionBelow: 'any' },
    },
  },
  {
    minor: '1.36',
    why: 'no flex-volume mount (PR #136423); local etcd >= 3.6 only (PR #135701); user extraArgs keep their order (PR #135400); NodeLocalCRISocket GA (PR #135742), ControlPlaneKubeletLocalMode removed (PR #135773); upgrade keeps --pod-infra-container-image (PR #135807); pause 3.10.2, CoreDNS v1.14.2',
    delta: {
      featureGates: {
        NodeLocalCRISocket: { default: true, stage: 'GA', locked: true },
        ControlPlaneKubeletLocalMode: removedGate(true),
      },
      images: { etcdTag: '3.6.8-0', corednsTag: 'v1.14.2', pauseTag: '3.10.2' },
      kubelet: { upgradeDropsFlags: [] },
      controlPlane: { flexVolumeMount: false, extraArgsKeepUserOrder: true, etcdOnly36: true },
      skew: { minKubelet: '1.33.0' },
      preflight: { containerRuntimeVersionBelow: '1.37.0' },
    },
  },
  {
    minor: '1.37',
    why: 'v1beta3 removed, PublicKeysECDSA removed (PR #136016); NodeLocalCRISocket removed (PR #138645); kube-proxy mode iptables (PR #139777); kubeproxydaemonset patch target (PR #138090); system:kubelet-api-admin binding (PR #138957); port checks on configured addresses (PR #138250); etcd 3.7.0, CoreDNS v1.14.6',
    delta: {
      configApiVersionsRead: ['v1beta4'],
      configApiVersionsDeprecated: [],
      featureGates: {
        PublicKeysECDSA: removedGate(false),
        NodeLocalCRISocket: removedGate(true),
      },
      images: { etcdTag: '3.7.0-0', corednsTag: 'v1.14.6', pauseTag: '3.10.2' },
      kubelet: { upgradeDropsFlags: ['container-runtime-endpoint'] },
      controlPlane: { kubeletApiAdminBinding: true },
      // Value correction (issue-26-switches): PR #138957 also drops O=kubeadm:cluster-admins from
      // apiserver-kubelet-client.crt, whose rights now come from the kubeadm:apiserver-kubelet-client
      // binding (issue-26-facts' test/fixtures/versions/1.37.yaml: `o: []`; Cluster API's and Kamaji's
      // reports of the change, and aws/eks-anywhere-build-tooling PR #5655, describe the same diff).
      pki: { apiserverKubeletClientOrg: undefined },
      addons: { kubeProxyPatchTarget: true, kubeProxyDefaultModeIptables: true },
      skew: { minKubelet: '1.34.0' },
      preflight: { containerRuntimeVersionBelow: '1.38.0', portChecksOnConfiguredAddresses: true },
    },
  },
  {
    // Preview row (NEWEST_MINOR is older): from the v1.38.0-alpha.1 and -alpha.2 notes of
    // kubernetes/kubernetes CHANGELOG/CHANGELOG-1.38.md, the only 1.38 pre-releases listed there
    // (docs/kubernetes-1.35-1.38.md, "v1.38 (pre-release)"). Core feature gates removed in 1.38 (SeparateTaintEvictionController
    // #141789, PodSchedulingReadiness #141741, DynamicResourceAllocation #141946, KubeletTracing
    // #141714, ...) are the components' own: tsadm passes --feature-gates through unchecked, so no
    // row fact. The OpenRC fix (#141981) has no counterpart: tsadm's preflight does not read OpenRC.
    minor: '1.38',
    why: 'ML-DSA encryptionAlgorithm and keyEncipherment only for RSA keys (PR #142037); resolvConf kept out of the kubelet-config ConfigMap (PR #141337); getent preflight warning (PR #141968); etcd 3.7.1 (PR #141032), CoreDNS v1.14.7 (PR #141462)',
    delta: {
      // UNSURE: the notes name etcd "3.7.1" and CoreDNS "v1.14.7"; the "-0" image suffix follows
      // every earlier etcd tag of kubeadm's constants.go, which was not read at a 1.38 tag. No
      // pause bump is listed in either alpha, so pause stays 3.10.2 (UNSURE).
      images: { etcdTag: '3.7.1-0', corednsTag: 'v1.14.7', pauseTag: '3.10.2' },
      pki: { mlDsa: true, keyEnciphermentRsaOnly: true },
      // upgradeDropsFlags stays 1.37's (UNSURE: kubeadm's 1.38 unwantedFlags not read).
      kubelet: { resolvConfInConfigMap: false },
      // UNSURE: n-3 as every minor since 1.29 (PR #120825); the ContainerRuntimeVersion bound is
      // 1.37's (no 1.38 note changes it).
      skew: { minKubelet: '1.35.0' },
      preflight: { getentInPath: true },
    },
  },
];

function applyDelta(prev: VersionProfile, minor: SupportedMinor, delta: Delta): VersionProfile {
  const next: Record<string, unknown> = { ...prev, minor };
  for (const [key, value] of Object.entries(delta)) {
    const old = (prev as unknown as Record<string, unknown>)[key];
    next[key] = isPlainObject(value) && typeof old === 'object'
      ? { ...(old as object), ...value }
      : value;
  }
  return next as unknown as VersionProfile;
}

function buildTable(): Readonly<Record<SupportedMinor, VersionProfile>> {
  const table: Partial<Record<SupportedMinor, VersionProfile>> = { '1.20': BASE_1_20 };
  let prev = BASE_1_20;
  for (const change of CHANGES) {
    prev = applyDelta(prev, change.minor, change.delta);
    table[change.minor] = Object.freeze(prev);
  }
  return table as Record<SupportedMinor, VersionProfile>;
}

export const VERSION_TABLE: Readonly<Record<SupportedMinor, VersionProfile>> = buildTable();

/**
 * A fact kubeadm changed in patch releases (cherry-picks into release branches), not at a minor.
 * `since` names, per minor, the first patch that carries it; a minor not named keeps its row as
 * it is (a minor released after the change has it in its CHANGES entry already). Which patches
 * apply to a version is decided by src/versions/resolve.ts from the full version, so renderers
 * still take one profile and never compare versions themselves.
 */
export interface PatchChange {
  readonly why: string;
  readonly since: Readonly<Partial<Record<SupportedMinor, string>>>;
  readonly delta: Delta;
}

export const PATCH_CHANGES: readonly PatchChange[] = [
  {
    // kubeadm PR #135400 (1.36), cherry-picked by #135850 (release-1.32), #135851 (release-1.33),
    // #135852 (release-1.34) and #135853 (release-1.35), merged 2026-01-06..09. v1.35.1 and v1.34.4
    // from CHANGELOG-1.35.md and CHANGELOG-1.34.md (their "Changelog since v1.35.0" / "since
    // v1.34.3" list #135853 / #135852). v1.32.12 and v1.33.8 were released with them on 2026-02-10,
    // the first patches after the merges (kubeadm issue #3261: "the backport PRs were merged, so ...
    // the latest patch versions of 1.32+" that day); UNSURE only because CHANGELOG-1.32/1.33 were
    // not read at those sections.
    why: 'user extraArgs keep their order after the sorted defaults, in static pods and kubeadm-flags.env (PR #135400)',
    since: { '1.32': 'v1.32.12', '1.33': 'v1.33.8', '1.34': 'v1.34.4', '1.35': 'v1.35.1' },
    delta: { controlPlane: { extraArgsKeepUserOrder: true } },
  },
  {
    // kubeadm PR #138957 (in v1.37.0-alpha.1, CHANGELOG-1.37.md), cherry-picked on 2026-05-11 by
    // #138958 (release-1.36), #138959 (release-1.35), #138960 (release-1.34) and #138964
    // (release-1.33). The patches: v1.35.5 from kubeadm issue #3310 and cluster-api issue #13770
    // (an upgrade to v1.35.5 "released recently", 2026-05-13); v1.36.1 from clastix/kamaji issue
    // #1171 and PR #1172 ("added in k8s v1.36.1"). UNSURE: v1.34.8 and v1.33.12 are the patches of
    // the same release day by the branches' patch offsets (v1.35.1/v1.34.4/v1.33.8 were released
    // together on 2026-02-10); CHANGELOG-1.34.md at 008b3652 ends at v1.34.7, released with v1.35.4
    // (the same Go 1.25.9 and fixes) and without the cherry-pick, so v1.34.8 is the first possible.
    why: 'apiserver-kubelet-client.crt without O=kubeadm:cluster-admins; ClusterRoleBinding kubeadm:apiserver-kubelet-client to system:kubelet-api-admin (PR #138957)',
    since: { '1.33': 'v1.33.12', '1.34': 'v1.34.8', '1.35': 'v1.35.5', '1.36': 'v1.36.1' },
    delta: { controlPlane: { kubeletApiAdminBinding: true }, pki: { apiserverKubeletClientOrg: undefined } },
  },
];

/** The row of a minor with the patch changes that apply to a version of it (pure; applied in order). */
export function withPatchChanges(row: VersionProfile, changes: readonly PatchChange[]): VersionProfile {
  if (changes.length === 0) return row;
  let next = row;
  for (const change of changes) next = applyDelta(next, next.minor, change.delta);
  return Object.freeze(next);
}
