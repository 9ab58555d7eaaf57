/**
 * The user's input before defaulting, in one shape whatever its source: every external version
 * (v1beta2/3/4 documents) and the command-line flags are first brought to this v1beta4-like form,
 * so defaulting and validation are written once. Every field is optional ("not set");
 * durations stay Go duration strings until defaulting.
 */
import type { Arg } from './types.js';

interface NHostPathMount {
  name?: string;
  hostPath?: string;
  mountPath?: string;
  readOnly?: boolean;
  pathType?: string;
}

interface NEnvVar {
  name?: string;
  value?: string;
  valueFrom?: unknown;
}

export interface NComponent {
  extraArgs?: Arg[];
  extraVolumes?: NHostPathMount[];
  extraEnvs?: NEnvVar[];
}

export interface NCluster {
  kubernetesVersion?: string;
  controlPlaneEndpoint?: string;
  clusterName?: string;
  certificatesDir?: string;
  imageRepository?: string;
  networking?: { serviceSubnet?: string; podSubnet?: string; dnsDomain?: string };
  etcd?: {
    local?: NComponent & { imageRepository?: string; imageTag?: string; dataDir?: string; serverCertSANs?: string[]; peerCertSANs?: string[] };
    external?: { endpoints?: string[]; httpEndpoints?: string[]; caFile?: string; certFile?: string; keyFile?: string };
  };
  /** timeoutForControlPlane is v1beta2/v1beta3 only; v1beta4 moved it to InitConfiguration timeouts. */
  apiServer?: NComponent & { certSANs?: string[]; timeoutForControlPlane?: string };
  controllerManager?: NComponent;
  scheduler?: NComponent;
  dns?: { imageRepository?: string; imageTag?: string; disabled?: boolean };
  proxy?: { disabled?: boolean };
  featureGates?: Record<string, boolean>;
  encryptionAlgorithm?: string;
  certificateValidityPeriod?: string;
  caCertificateValidityPeriod?: string;
}

interface NTaint {
  key?: string;
  value?: string;
  effect?: string;
}

export interface NNodeRegistration {
  name?: string;
  criSocket?: string;
  /** undefined = not set (kubeadm: nil); [] = explicitly none. */
  taints?: NTaint[];
  kubeletExtraArgs?: Arg[];
  ignorePreflightErrors?: string[];
  imagePullPolicy?: string;
  imagePullSerial?: boolean;
}

export interface NBootstrapToken {
  token?: string;
  description?: string;
  ttl?: string;
  expires?: string;
  usages?: string[];
  groups?: string[];
}

export interface NAPIEndpoint {
  advertiseAddress?: string;
  bindPort?: number;
}

export interface NTimeouts {
  controlPlaneComponentHealthCheck?: string;
  kubeletHealthCheck?: string;
  kubernetesAPICall?: string;
  etcdAPICall?: string;
  tlsBootstrap?: string;
  discovery?: string;
  upgradeManifests?: string;
}

export interface NInit {
  bootstrapTokens?: NBootstrapToken[];
  dryRun?: boolean;
  nodeRegistration?: NNodeRegistration;
  localAPIEndpoint?: NAPIEndpoint;
  certificateKey?: string;
  skipPhases?: string[];
  patches?: { directory?: string };
  timeouts?: NTimeouts;
}

export interface NJoin {
  dryRun?: boolean;
  nodeRegistration?: NNodeRegistration;
  caCertPath?: string;
  discovery?: {
    bootstrapToken?: { token?: string; apiServerEndpoint?: string; caCertHashes?: string[]; unsafeSkipCAVerification?: boolean };
    file?: { kubeConfigPath?: string };
    tlsBootstrapToken?: string;
  };
  controlPlane?: { localAPIEndpoint?: NAPIEndpoint; certificateKey?: string };
  skipPhases?: string[];
  patches?: { directory?: string };
  timeouts?: NTimeouts;
}

export interface NReset {
  cleanupTmpDir?: boolean;
  certificatesDir?: string;
  criSocket?: string;
  dryRun?: boolean;
  force?: boolean;
  ignorePreflightErrors?: string[];
  skipPhases?: string[];
  timeouts?: NTimeouts;
  unmountFlags?: string[];
}
