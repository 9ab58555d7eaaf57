/**
 * kubeadm's ClusterConfiguration defaulting (SetDefaults_ClusterConfiguration and the cluster part
 * of the dynamic defaults): version and image repository from the version table, kubeadm's
 * paths, ranges and PKI settings. Problems are recorded in the context, not thrown.
 */
import { DEFAULT_CERT_DIR, DEFAULT_ETCD_DATA_DIR, DEFAULTS } from '../constants.js';
import { errorMessage } from '../errors.js';
import { DEFAULT_KUBERNETES_VERSION, normalizeKubernetesVersion, prereleaseWarning, profileFor } from '../versions/resolve.js';
import { NEWEST_MINOR } from '../versions/minors.js';
import { VERSION_TABLE } from '../versions/table.js';
import type { VersionProfile } from '../versions/table-types.js';
import { parseDuration } from '../duration.js';
import type { ConfigEnv } from './env.js';
import type { NCluster, NComponent } from './normalized.js';
import type { Findings } from './upconvert.js';
import type { ClusterConfiguration, ControlPlaneComponent, EncryptionAlgorithm, Etcd } from './types.js';

export interface DefaultsCtx {
  readonly env: ConfigEnv;
  readonly f: Findings;
}

function resolveVersion(raw: string | undefined, f: Findings): { version: string; profile: VersionProfile } {
  try {
    const version = normalizeKubernetesVersion(raw ?? DEFAULT_KUBERNETES_VERSION);
    const profile = profileFor(version);
    // A named pre-release of the preview minor: deployed, as kubeadm does, but its row may still change.
    const preview = prereleaseWarning(version);
    if (preview !== undefined) f.warnings.push(preview);
    return { version, profile };
  } catch (err) {
    f.errors.push(`kubernetesVersion: ${errorMessage(err)}`);
    return { version: raw ?? DEFAULT_KUBERNETES_VERSION, profile: VERSION_TABLE[NEWEST_MINOR] };
  }
}

export function defaultCluster(n: NCluster, ctx: DefaultsCtx): { cluster: ClusterConfiguration; profile: VersionProfile } {
  const { version, profile } = resolveVersion(n.kubernetesVersion, ctx.f);
  const featureGates = { ...n.featureGates };
  const cluster: ClusterConfiguration = {
    kubernetesVersion: version,
    controlPlaneEndpoint: n.controlPlaneEndpoint ?? '',
    clusterName: n.clusterName || DEFAULTS.clusterName,
    certificatesDir: n.certificatesDir || DEFAULT_CERT_DIR,
    imageRepository: n.imageRepository || profile.defaultImageRepository,
    networking: {
      serviceSubnet: n.networking?.serviceSubnet || DEFAULTS.serviceSubnet,
      podSubnet: n.networking?.podSubnet ?? '',
      dnsDomain: n.networking?.dnsDomain || DEFAULTS.dnsDomain,
    },
    etcd: defaultEtcd(n.etcd, ctx.f),
    apiServer: {
      ...defaultComponent(n.apiServer, 'apiServer', ctx.f),
      // kubeadm lowercases the API server SANs (some load-balancer names carry capitals).
      certSANs: (n.apiServer?.certSANs ?? []).map((s) => s.toLowerCase()),
      timeoutForControlPlaneMs: durationOr(n.apiServer?.timeoutForControlPlane, DEFAULTS.controlPlaneTimeoutMs),
    },
    controllerManager: defaultComponent(n.controllerManager, 'controllerManager', ctx.f),
    scheduler: defaultComponent(n.scheduler, 'scheduler', ctx.f),
    dns: { disabled: n.dns?.disabled ?? false, imageRepository: n.dns?.imageRepository ?? '', imageTag: n.dns?.imageTag ?? '' },
    proxy: { disabled: n.proxy?.disabled ?? false },
    featureGates,
    encryptionAlgorithm: encryptionAlgorithm(n, featureGates, ctx.f),
    certificateValidityMs: durationOr(n.certificateValidityPeriod, DEFAULTS.certificateValidityMs),
    caCertificateValidityMs: durationOr(n.caCertificateValidityPeriod, DEFAULTS.caCertificateValidityMs),
  };
  return { cluster, profile };
}

/**
 * kubeadm (1.31+) derives the algorithm from the PublicKeysECDSA gate when it is on, whatever
 * encryptionAlgorithm says; v1beta2/v1beta3 have only the gate.
 */
function encryptionAlgorithm(n: NCluster, gates: Readonly<Record<string, boolean>>, f: Findings): EncryptionAlgorithm {
  if (gates.PublicKeysECDSA === true) {
    if (n.encryptionAlgorithm !== undefined && n.encryptionAlgorithm !== 'ECDSA-P256') {
      f.warnings.push(`encryptionAlgorithm: "${n.encryptionAlgorithm}" is overridden by the PublicKeysECDSA feature gate (ECDSA-P256 is used)`);
    }
    return 'ECDSA-P256';
  }
  // An unknown value is kept as written for validate.ts to report.
  return (n.encryptionAlgorithm ?? 'RSA-2048') as EncryptionAlgorithm;
}

function defaultEtcd(n: NCluster['etcd'], f: Findings): Etcd {
  if (n?.external && n.local) f.errors.push('etcd: local and external are mutually exclusive');
  if (n?.external) {
    const e = n.external;
    return { mode: 'external', endpoints: e.endpoints ?? [], ...(e.httpEndpoints ? { httpEndpoints: e.httpEndpoints } : {}), caFile: e.caFile ?? '', certFile: e.certFile ?? '', keyFile: e.keyFile ?? '' };
  }
  const l = n?.local;
  return {
    mode: 'local',
    imageRepository: l?.imageRepository ?? '',
    imageTag: l?.imageTag ?? '',
    dataDir: l?.dataDir || DEFAULT_ETCD_DATA_DIR,
    extraArgs: l?.extraArgs ?? [],
    extraEnvs: envVars(l?.extraEnvs, 'etcd.local', f),
    serverCertSANs: l?.serverCertSANs ?? [],
    peerCertSANs: l?.peerCertSANs ?? [],
  };
}

function defaultComponent(n: NComponent | undefined, path: string, f: Findings): ControlPlaneComponent {
  return {
    extraArgs: (n?.extraArgs ?? []).map((a) => ({ name: a.name ?? '', value: a.value ?? '' })),
    extraVolumes: (n?.extraVolumes ?? []).map((v) => ({
      name: v.name ?? '',
      hostPath: v.hostPath ?? '',
      mountPath: v.mountPath ?? '',
      readOnly: v.readOnly ?? false,
      pathType: (v.pathType ?? '') as ControlPlaneComponent['extraVolumes'][number]['pathType'],
    })),
    extraEnvs: envVars(n?.extraEnvs, path, f),
  };
}

/** Static-pod environment variables; valueFrom (a Kubernetes API reference) has no meaning for tsadm's static pods. */
function envVars(n: NComponent['extraEnvs'], path: string, f: Findings): { name: string; value: string }[] {
  (n ?? []).forEach((e, i) => {
    if (e.valueFrom !== undefined) f.errors.push(`${path}.extraEnvs[${i}].valueFrom: not supported by tsadm; give a literal value`);
  });
  return (n ?? []).map((e) => ({ name: e.name ?? '', value: e.value ?? '' }));
}

/** Durations were syntax-checked by the schema or flag stage; absent → fallback. */
export function durationOr(text: string | undefined, fallbackMs: number): number {
  return text === undefined ? fallbackMs : parseDuration(text);
}
