/**
 * Types of the component-config fields kubeadm users set most (KubeletConfiguration v1beta1,
 * KubeProxyConfiguration v1alpha1). kubeadm decodes these documents into the components' Go
 * types, so `clusterDNS: 10.96.0.10` (a string where a list belongs) is refused at once; tsadm
 * checks the JSON type of every field listed here and passes other fields through for the
 * kubelet and kube-proxy to validate, as they did before.
 */
import { fields, list, map, openFields, type Schema } from './schema.js';

const S: Schema = 'string';
const B: Schema = 'bool';
const I: Schema = 'int';
const N: Schema = 'number';
const D: Schema = 'duration';
const STRINGS = list(S);
const STRING_MAP = map(S);

const KUBELET: Schema = openFields({
  staticPodPath: S, syncFrequency: D, fileCheckFrequency: D, httpCheckFrequency: D, staticPodURL: S,
  staticPodURLHeader: map(STRINGS), address: S, port: I, readOnlyPort: I, tlsCertFile: S, tlsPrivateKeyFile: S,
  tlsCipherSuites: STRINGS, tlsMinVersion: S, rotateCertificates: B, serverTLSBootstrap: B,
  authentication: openFields({
    x509: openFields({ clientCAFile: S }),
    webhook: openFields({ enabled: B, cacheTTL: D }),
    anonymous: openFields({ enabled: B }),
  }),
  authorization: openFields({ mode: S, webhook: openFields({ cacheAuthorizedTTL: D, cacheUnauthorizedTTL: D }) }),
  registryPullQPS: I, registryBurst: I, eventRecordQPS: I, eventBurst: I, enableDebuggingHandlers: B,
  enableContentionProfiling: B, healthzPort: I, healthzBindAddress: S, oomScoreAdj: I, clusterDomain: S,
  clusterDNS: STRINGS, streamingConnectionIdleTimeout: D, nodeStatusUpdateFrequency: D, nodeStatusReportFrequency: D,
  nodeLeaseDurationSeconds: I, imageMinimumGCAge: D, imageMaximumGCAge: D, imageGCHighThresholdPercent: I,
  imageGCLowThresholdPercent: I, volumeStatsAggPeriod: D, kubeletCgroups: S, systemCgroups: S, cgroupRoot: S,
  cgroupsPerQOS: B, cgroupDriver: S, cpuManagerPolicy: S, cpuManagerPolicyOptions: STRING_MAP,
  cpuManagerReconcilePeriod: D, memoryManagerPolicy: S, topologyManagerPolicy: S, topologyManagerScope: S,
  qosReserved: STRING_MAP, runtimeRequestTimeout: D, hairpinMode: S, maxPods: I, podCIDR: S, podPidsLimit: I,
  resolvConf: S, runOnce: B, cpuCFSQuota: B, cpuCFSQuotaPeriod: D, nodeStatusMaxImages: I, maxOpenFiles: I,
  contentType: S, kubeAPIQPS: I, kubeAPIBurst: I, serializeImagePulls: B, maxParallelImagePulls: I,
  evictionHard: STRING_MAP, evictionSoft: STRING_MAP, evictionSoftGracePeriod: STRING_MAP,
  evictionPressureTransitionPeriod: D, evictionMaxPodGracePeriod: I, evictionMinimumReclaim: STRING_MAP,
  podsPerCore: I, enableControllerAttachDetach: B, protectKernelDefaults: B, makeIPTablesUtilChains: B,
  iptablesMasqueradeBit: I, iptablesDropBit: I, featureGates: map(B), failSwapOn: B, memorySwap: openFields({ swapBehavior: S }),
  containerLogMaxSize: S, containerLogMaxFiles: I, configMapAndSecretChangeDetectionStrategy: S,
  systemReserved: STRING_MAP, kubeReserved: STRING_MAP, reservedSystemCPUs: S, showHiddenMetricsForVersion: S,
  systemReservedCgroup: S, kubeReservedCgroup: S, enforceNodeAllocatable: STRINGS, allowedUnsafeSysctls: STRINGS,
  volumePluginDir: S, providerID: S, kernelMemcgNotification: B, logging: openFields({ format: S, verbosity: I }),
  enableSystemLogHandler: B, shutdownGracePeriod: D, shutdownGracePeriodCriticalPods: D, reservedMemory: list('any'),
  enableProfilingHandler: B, enableDebugFlagsHandler: B, seccompDefault: B, registerNode: B,
  registerWithTaints: list(fields({ key: S, value: S, effect: S, timeAdded: S })), localStorageCapacityIsolation: B,
  containerRuntimeEndpoint: S, imageServiceEndpoint: S, podLogsDir: S, failCgroupV1: B,
});

const KUBE_PROXY: Schema = openFields({
  featureGates: map(B), bindAddress: S, healthzBindAddress: S, metricsBindAddress: S, bindAddressHardFail: B,
  enableProfiling: B, clusterCIDR: S, hostnameOverride: S,
  clientConnection: openFields({ kubeconfig: S, acceptContentTypes: S, contentType: S, qps: N, burst: I }),
  iptables: openFields({ masqueradeBit: I, masqueradeAll: B, localhostNodePorts: B, syncPeriod: D, minSyncPeriod: D }),
  ipvs: openFields({
    syncPeriod: D, minSyncPeriod: D, scheduler: S, excludeCIDRs: STRINGS, strictARP: B, tcpTimeout: D, tcpFinTimeout: D, udpTimeout: D,
  }),
  oomScoreAdj: I, mode: S, portRange: S, udpIdleTimeout: D,
  conntrack: openFields({ maxPerCore: I, min: I, tcpEstablishedTimeout: D, tcpCloseWaitTimeout: D }),
  configSyncPeriod: D, nodePortAddresses: STRINGS, showHiddenMetricsForVersion: S, detectLocalMode: S,
  logging: openFields({ format: S, verbosity: I }),
});

export const COMPONENT_SCHEMAS: Readonly<Record<string, Schema>> = {
  KubeletConfiguration: KUBELET,
  KubeProxyConfiguration: KUBE_PROXY,
};
