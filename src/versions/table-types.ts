/**
 * The shape of a version row: what kubeadm of one minor does that tsadm renders from (flags,
 * images, probes, names, API versions, labels, phases, checks). The rows themselves are in
 * src/versions/table.ts; what each fact means and where it comes from: docs/kubeadm-reference.md.
 */
import type { SupportedMinor } from './minors.js';

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
    /**
     * After dockershim (1.24, 1.25) kubeadm-flags.env still carries --container-runtime=remote
     * for every runtime, beside --container-runtime-endpoint; kubeadm 1.26 stops writing it and
     * its upgrade removes it (PR #112000, release-1.26 notes; kubeadm v1.24.4's file quoted in
     * kubernetes/kubeadm#2742).
     */
    readonly remoteRuntimeFlagAfterDockershim: boolean;
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
    /** init's show-join-command is a phase of its own (1.26, PR #111512); before, the join command was printed after the phases. */
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
    /**
     * The bridge-netfilter file checks: bridge/bridge-nf-call-iptables with the IPv4 checks and
     * bridge/bridge-nf-call-ip6tables with the IPv6 ones (kubeadm's bridgenf and bridgenf6), each
     * placed where that family's forwarding check is. Removed in 1.30 (PR #123464, 1.30 release
     * notes: "the bridge-nf-call-iptables=1 and bridge-nf-call-ip6tables=1 preflight checks are
     * removed"): network plugins set them when they use Linux bridges.
     */
    readonly bridgeNetfilter: boolean;
    /**
     * `conntrack` is a mandatory binary in PATH (FileExisting-conntrack, PR #85857). kubeadm 1.32
     * checks it only for a Kubernetes version below 1.32 (checks_linux.go addExecChecks, PR
     * #126953: kube-proxy 1.32 no longer runs the conntrack binary, PR #126847), so a 1.32+ target
     * is not asked for it.
     */
    readonly conntrackInPath: boolean;
    /**
     * ExternalEtcdVersion's minimum: each external etcd endpoint must name at least this server
     * version (kubeadm's MinExternalEtcdVersion, cmd/kubeadm/app/constants/constants.go).
     */
    readonly minExternalEtcdVersion: string;
  };
}

/** A row written as what changed from the previous one: each group of facts may name only the facts that changed. */
export type Delta = { readonly [K in keyof VersionProfile]?: VersionProfile[K] extends object ? Partial<VersionProfile[K]> : VersionProfile[K] };

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
