/**
 * Version facts as data: one row per supported Kubernetes minor. Each row is the previous row
 * plus the changes that landed in that minor (the `changes` of each entry say why), so a fact
 * that changed in 1.29 is written once, in the 1.29 entry. Renderers take the row and never
 * compare versions themselves (the row's shape: src/versions/table-types.ts; the list of minors,
 * the newest released one and each minor's default patch: src/versions/minors.ts). Each change
 * names the kubeadm pull request it comes from;
 * test/fixtures/versions/ holds golden facts of some minors taken from kubeadm's own source, which
 * test/unit/versions/table.test.ts compares with what tsadm renders.
 * What each fact means and where it comes from: docs/kubeadm-reference.md.
 */
import { isPlainObject } from '../util/plain-object.js';
import type { SupportedMinor } from './minors.js';
import type { Delta, FeatureGateFact, PatchChange, VersionProfile } from './table-types.js';

/** A gate kubeadm removed at this minor, with the behaviour it keeps. */
const removedGate = (on: boolean): FeatureGateFact => ({ default: on, stage: on ? 'GA' : 'deprecated', ...(on ? { locked: true } : {}), removed: true });

const PUBLIC_KEYS_ECDSA_DEPRECATION = "The PublicKeysECDSA feature gate is deprecated and will be removed when v1beta3 is removed. v1beta4 supports a new option 'ClusterConfiguration.EncryptionAlgorithm'.";

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
    remoteRuntimeFlagAfterDockershim: false,
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
  preflight: { containerRuntimeVersionBelow: undefined, portChecksOnConfiguredAddresses: false, getentInPath: false, forwardingByIpFamily: false, bridgeNetfilter: true, conntrackInPath: true, minExternalEtcdVersion: '3.2.18' },
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
      kubelet: { configMapName: 'kubelet-config', configRbacName: 'kubeadm:kubelet-config', containerRuntimeRemoteFlag: false, remoteRuntimeFlagAfterDockershim: true, criSocketUrl: true },
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
    why: 'registry.k8s.io; only the control-plane taint; etcd watch-progress flag (PR #111383); serializable etcd probes (PR #110072); kubeletconfiguration patch target (PR #110405)',
    delta: {
      featureGates: { UnversionedKubeletConfigMap: { default: true, stage: 'GA', locked: true } },
      defaultImageRepository: 'registry.k8s.io',
      images: { etcdTag: '3.5.4-0', corednsTag: 'v1.9.3', pauseTag: '3.8' },
      kubelet: { configPatchTarget: true },
      controlPlane: { markTaints: ['node-role.kubernetes.io/control-plane:NoSchedule'], etcdWatchProgressFlag: true, etcdProbes: 'health-serializable' },
      addons: { corednsAntiAffinity: true }, // PR #110593
      upgrade: { removeOldControlPlaneLabel: false, removeOldControlPlaneTaint: true }, // cmd/upgrade/apply.go 1.25
      skew: { minKubelet: '1.24.0' },
    },
  },
  {
    minor: '1.26',
    why: 'image bumps; CoreDNS no longer tolerates the master taint; no --container-runtime=remote, removed on upgrade (PR #112000); show-join-command phase (PR #111512)',
    delta: {
      // PR #111512 is in the 1.26 notes (sig-release releases/release-1.26 maps, v1.26.0-alpha.1 notes), not 1.25's.
      workflow: { showJoinCommandPhase: true },
      featureGates: { UnversionedKubeletConfigMap: removedGate(true) },
      images: { etcdTag: '3.5.6-0', corednsTag: 'v1.9.3', pauseTag: '3.9' },
      kubelet: { remoteRuntimeFlagAfterDockershim: false, upgradeDropsFlags: ['container-runtime'] }, // PR #112000
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
      // A 1.26 node has no --container-runtime left to remove (UNSURE whether kubeadm 1.27 kept the cleanup; it would find nothing).
      kubelet: { upgradeDropsFlags: [] },
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
    why: 'image bumps; WaitForAllControlPlaneComponents alpha and join\'s hidden wait-control-plane (PR #123341); no bridge-netfilter preflight checks (PR #123464)',
    delta: {
      featureGates: { WaitForAllControlPlaneComponents: { default: false, stage: 'alpha' } }, // PR #123341
      workflow: { joinWaitControlPlane: true }, // PR #123341
      images: { etcdTag: '3.5.12-0', corednsTag: 'v1.11.1', pauseTag: '3.9' }, skew: { minKubelet: '1.27.0' },
      preflight: { bridgeNetfilter: false }, // PR #123464
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
      // CoreDNS v1.11.1 at v1.31.0; v1.11.3 from v1.31.1 (PATCH_CHANGES).
      images: { etcdTag: '3.5.15-0', corednsTag: 'v1.11.1', pauseTag: '3.10', skipDisabledAddons: true }, // PR #114534
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
    why: 'kube-scheduler /livez and /readyz probes (PR #126945); conntrack no longer a preflight requirement (PR #126953)',
    delta: {
      featureGates: { EtcdLearnerMode: { default: true, stage: 'GA', locked: true } },
      images: { etcdTag: '3.5.16-0', corednsTag: 'v1.11.3', pauseTag: '3.10' },
      controlPlane: { schedulerLivez: true },
      addons: { corednsCacheDisableClusterDomain: true }, // PR #128359
      upgrade: { nodeAddonPhases: true }, // PR #127242
      skew: { minKubelet: '1.29.0' },
      preflight: { conntrackInPath: false }, // PR #126953
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
      // MinExternalEtcdVersion 3.5.24-0: read in kubeadm's 1.36 constants.go (3.2.18 is the
      // reference kubeadm v1.20.2's). UNSURE for 1.21–1.35, whose constants were not read: kubeadm
      // PR #118733 (1.28) describes raising it to 3.4.13-4, so those rows may be too lenient (never
      // a false error; docs/decisions.md, decision 43).
      preflight: { containerRuntimeVersionBelow: '1.37.0', minExternalEtcdVersion: '3.5.24-0' },
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
      // PR #138957 also drops O=kubeadm:cluster-admins from apiserver-kubelet-client.crt, whose
      // rights now come from the kubeadm:apiserver-kubelet-client binding (the golden facts'
      // test/fixtures/versions/1.37.yaml: `o: []`; Cluster API's and Kamaji's reports of the
      // change, and aws/eks-anywhere-build-tooling PR #5655, describe the same diff).
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

export const PATCH_CHANGES: readonly PatchChange[] = [
  // Image tags kubeadm's patch releases changed (its constants cherry-picked into release branches):
  // the first patch of each minor whose `kubeadm config images list` names the new tag, from
  // minikube's table generated from that output for every release (kubernetes/minikube
  // pkg/minikube/constants/constants_kubeadm_images.go, stored version up to v1.32.0-beta.0, so
  // v1.31.2, v1.30.6, v1.29.10, v1.28.15 at most; later patches of 1.29-1.34 not read: UNSURE;
  // minikube PR #15390 on the first such bump, etcd in v1.25.4/v1.24.8/v1.23.14). Listed oldest
  // tag first: a version past several takes the last.
  ...imagePatches('etcdTag', [
    ['3.5.5-0', { '1.23': 'v1.23.14', '1.24': 'v1.24.8', '1.25': 'v1.25.4' }],
    ['3.5.6-0', { '1.22': 'v1.22.17', '1.23': 'v1.23.15', '1.24': 'v1.24.9', '1.25': 'v1.25.5' }],
    ['3.5.9-0', { '1.25': 'v1.25.15', '1.26': 'v1.26.10', '1.27': 'v1.27.7' }],
    ['3.5.10-0', { '1.26': 'v1.26.13', '1.27': 'v1.27.10', '1.28': 'v1.28.6' }],
    ['3.5.12-0', { '1.27': 'v1.27.12', '1.28': 'v1.28.8', '1.29': 'v1.29.3' }],
    ['3.5.15-0', { '1.28': 'v1.28.14', '1.29': 'v1.29.9', '1.30': 'v1.30.5' }],
    // CHANGELOG-1.33's v1.33.6 section ("updated the supported etcd version to v3.5.24 for the skewed
    // control plane version v1.33", cherry-pick #135018; read as quoted in a changelog tool's test
    // fixture, the CHANGELOG itself not being stored that far). The release-1.32 and release-1.34
    // bumps (#135019, #134779) are not placed: no section naming them was read (UNSURE).
    ['3.5.24-0', { '1.33': 'v1.33.6' }],
  ]),
  // CoreDNS v1.11.3 (PR #126449) reached 1.31 in v1.31.1 (cherry-pick #126796: "should've shipped in
  // 1.31 but it was available too late") and 1.30 in v1.30.5.
  ...imagePatches('corednsTag', [['v1.11.3', { '1.30': 'v1.30.5', '1.31': 'v1.31.1' }]]),
  {
    // kubeadm PR #135400 (1.36), cherry-picked by #135850 (release-1.32), #135851 (release-1.33),
    // #135852 (release-1.34) and #135853 (release-1.35), merged 2026-01-06..09. v1.35.1 and v1.34.4
    // from CHANGELOG-1.35.md and CHANGELOG-1.34.md (their "Changelog since v1.35.0" / "since
    // v1.34.3" list #135853 / #135852). v1.32.12 and v1.33.8 were released with them on 2026-02-10,
    // the first patches after the merges (kubernetes/kubeadm#3261: "the backport PRs were merged, so ...
    // the latest patch versions of 1.32+" that day); UNSURE only because CHANGELOG-1.32/1.33 were
    // not read at those sections.
    why: 'user extraArgs keep their order after the sorted defaults, in static pods and kubeadm-flags.env (PR #135400)',
    since: { '1.32': 'v1.32.12', '1.33': 'v1.33.8', '1.34': 'v1.34.4', '1.35': 'v1.35.1' },
    delta: { controlPlane: { extraArgsKeepUserOrder: true } },
  },
  {
    // kubeadm PR #138957 (in v1.37.0-alpha.1, CHANGELOG-1.37.md), cherry-picked on 2026-05-11 by
    // #138958 (release-1.36), #138959 (release-1.35), #138960 (release-1.34) and #138964
    // (release-1.33). The patches: v1.35.5 from kubernetes/kubeadm#3310 and kubernetes-sigs/cluster-api#13770
    // (an upgrade to v1.35.5 "released recently", 2026-05-13); v1.36.1 from clastix/kamaji#1171
    // and PR #1172 ("added in k8s v1.36.1"). UNSURE: v1.34.8 and v1.33.12 are the patches of
    // the same release day by the branches' patch offsets (v1.35.1/v1.34.4/v1.33.8 were released
    // together on 2026-02-10); CHANGELOG-1.34.md at 008b3652 ends at v1.34.7, released with v1.35.4
    // (the same Go 1.25.9 and fixes) and without the cherry-pick, so v1.34.8 is the first possible.
    why: 'apiserver-kubelet-client.crt without O=kubeadm:cluster-admins; ClusterRoleBinding kubeadm:apiserver-kubelet-client to system:kubelet-api-admin (PR #138957)',
    since: { '1.33': 'v1.33.12', '1.34': 'v1.34.8', '1.35': 'v1.35.5', '1.36': 'v1.36.1' },
    delta: { controlPlane: { kubeletApiAdminBinding: true }, pki: { apiserverKubeletClientOrg: undefined } },
  },
];

/** One patch change per tag: `images.<field>` becomes the tag from the named patch of each minor. */
function imagePatches(field: 'etcdTag' | 'corednsTag', tags: ReadonlyArray<readonly [string, PatchChange['since']]>): PatchChange[] {
  return tags.map(([tag, since]) => ({ why: `kubeadm's ${field === 'etcdTag' ? 'etcd' : 'CoreDNS'} image ${tag} in patch releases`, since, delta: { images: { [field]: tag } } }));
}

/** The row of a minor with the patch changes that apply to a version of it (pure; applied in order). */
export function withPatchChanges(row: VersionProfile, changes: readonly PatchChange[]): VersionProfile {
  if (changes.length === 0) return row;
  let next = row;
  for (const change of changes) next = applyDelta(next, next.minor, change.delta);
  return Object.freeze(next);
}
