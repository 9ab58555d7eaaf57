/**
 * kubeadm's defaulting of the node-level documents (Init/Join/ResetConfiguration: SetDefaults_*
 * plus the "dynamic defaults" of util/config). Values that need the machine (hostname,
 * default-route address) come from ConfigEnv; randomness from env.randomBytes. Problems found
 * while defaulting (no address to advertise) are recorded, not thrown, so they are reported
 * together with validation errors. The cluster part is in defaults-cluster.ts.
 */
import { DEFAULT_CERT_DIR, DEFAULTS } from '../constants.js';
import { isUnspecified, parseIp } from '../net/ip.js';
import { generateToken } from '../token/bootstrap-token.js';
import { durationOr, type DefaultsCtx } from './defaults-cluster.js';
import { parseDuration } from '../duration.js';
import type { ConfigEnv } from './env.js';
import type { NAPIEndpoint, NBootstrapToken, NCluster, NInit, NJoin, NNodeRegistration, NReset, NTimeouts } from './normalized.js';
import type {
  APIEndpoint,
  BootstrapToken,
  InitConfiguration,
  JoinConfiguration,
  NodeRegistration,
  ResetConfiguration,
  ResetTimeouts,
  Taint,
  Timeouts,
} from './types.js';

const DEFAULT_CA_CERT_PATH = `${DEFAULT_CERT_DIR}/ca.crt`;

/** kubeadm's v1beta4 SetDefaults_Timeouts. */
export const DEFAULT_TIMEOUTS: Timeouts = {
  controlPlaneComponentHealthCheckMs: DEFAULTS.controlPlaneTimeoutMs,
  kubeletHealthCheckMs: 4 * 60_000,
  kubernetesAPICallMs: 60_000,
  etcdAPICallMs: 2 * 60_000,
  tlsBootstrapMs: DEFAULTS.tlsBootstrapTimeoutMs,
  discoveryMs: DEFAULTS.discoveryTimeoutMs,
};

export function defaultInit(n: NInit, ctx: DefaultsCtx, cluster: NCluster): InitConfiguration {
  const timeouts = defaultTimeouts(n.timeouts, cluster.apiServer?.timeoutForControlPlane);
  const tokens = n.bootstrapTokens !== undefined && n.bootstrapTokens.length > 0 ? n.bootstrapTokens : [{}];
  return {
    bootstrapTokens: tokens.map((t, i) => defaultToken(t, i, ctx)),
    nodeRegistration: defaultNodeRegistration(n.nodeRegistration, ctx.env),
    localAPIEndpoint: defaultAPIEndpoint(n.localAPIEndpoint, ctx, 'localAPIEndpoint.advertiseAddress'),
    certificateKey: n.certificateKey ?? '',
    skipPhases: n.skipPhases ?? [],
    ...(n.patches?.directory ? { patches: { directory: n.patches.directory } } : {}),
    timeouts,
    dryRun: n.dryRun ?? false,
  };
}

/** SetDefaults_BootstrapToken plus the random token of SetBootstrapTokensDynamicDefaults. */
function defaultToken(t: NBootstrapToken, i: number, ctx: DefaultsCtx): BootstrapToken {
  // TTL and expires are exclusive; the default TTL only applies when neither is set.
  if (t.ttl !== undefined && t.expires !== undefined) ctx.f.errors.push(`bootstrapTokens[${i}]: the BootstrapToken .TTL and .Expires fields are mutually exclusive`);
  const ttlMs = t.ttl !== undefined ? parseDuration(t.ttl) : t.expires !== undefined ? 0 : DEFAULTS.tokenTtlMs;
  if (t.expires !== undefined && t.ttl === undefined) {
    const at = Date.parse(t.expires);
    if (!Number.isNaN(at) && at < ctx.env.now.getTime()) ctx.f.warnings.push(`bootstrapTokens[${i}].expires: "${t.expires}" is in the past`);
  }
  return {
    token: t.token || generateToken(ctx.env.randomBytes),
    description: t.description ?? '',
    ttlMs,
    ...(t.expires !== undefined ? { expires: t.expires } : {}),
    usages: t.usages !== undefined && t.usages.length > 0 ? t.usages : [...DEFAULTS.tokenUsages],
    groups: t.groups !== undefined && t.groups.length > 0 ? t.groups : [...DEFAULTS.tokenGroups],
  };
}

/** Node name = lowercased, trimmed hostname (kubeadm GetHostname); taints stay unset unless given. */
function defaultNodeRegistration(n: NNodeRegistration | undefined, env: ConfigEnv): NodeRegistration {
  return {
    name: (n?.name || env.hostname).trim().toLowerCase(),
    criSocket: n?.criSocket ?? '',
    taints: n?.taints?.map((t): Taint => ({
      key: t.key ?? '',
      ...(t.value !== undefined && t.value !== '' ? { value: t.value } : {}),
      effect: (t.effect ?? '') as Taint['effect'],
    })),
    kubeletExtraArgs: (n?.kubeletExtraArgs ?? []).map((a) => ({ name: a.name ?? '', value: a.value ?? '' })),
    ignorePreflightErrors: n?.ignorePreflightErrors ?? [],
    imagePullPolicy: (n?.imagePullPolicy || 'IfNotPresent') as NodeRegistration['imagePullPolicy'],
    imagePullSerial: n?.imagePullSerial ?? true,
  };
}

/**
 * An unset or unspecified (0.0.0.0, ::) advertise address means "the default-route interface",
 * as in kubeadm's ChooseAPIServerBindAddress.
 */
function defaultAPIEndpoint(n: NAPIEndpoint | undefined, ctx: DefaultsCtx, path: string): APIEndpoint {
  const given = n?.advertiseAddress ?? '';
  const ip = parseIp(given);
  let advertiseAddress = given;
  if (given === '' || (ip !== undefined && isUnspecified(ip))) {
    if (ctx.env.defaultAdvertiseAddress) advertiseAddress = ctx.env.defaultAdvertiseAddress;
    else {
      ctx.f.errors.push(`${path}: could not find the IP address of the default network interface; pass --apiserver-advertise-address or set ${path}`);
    }
  }
  return { advertiseAddress, bindPort: n?.bindPort || DEFAULTS.bindPort };
}

/** v1beta4 timeouts; for older documents the control-plane wait comes from apiServer.timeoutForControlPlane. */
export function defaultTimeouts(n: NTimeouts | undefined, timeoutForControlPlane?: string): Timeouts {
  const d = DEFAULT_TIMEOUTS;
  return {
    controlPlaneComponentHealthCheckMs: durationOr(n?.controlPlaneComponentHealthCheck ?? timeoutForControlPlane, d.controlPlaneComponentHealthCheckMs),
    kubeletHealthCheckMs: durationOr(n?.kubeletHealthCheck, d.kubeletHealthCheckMs),
    kubernetesAPICallMs: durationOr(n?.kubernetesAPICall, d.kubernetesAPICallMs),
    etcdAPICallMs: durationOr(n?.etcdAPICall, d.etcdAPICallMs),
    tlsBootstrapMs: durationOr(n?.tlsBootstrap, d.tlsBootstrapMs),
    discoveryMs: durationOr(n?.discovery, d.discoveryMs),
  };
}

export function defaultJoin(n: NJoin, ctx: DefaultsCtx): JoinConfiguration {
  const timeouts = defaultTimeouts(n.timeouts);
  const bt = n.discovery?.bootstrapToken;
  const file = n.discovery?.file;
  return {
    nodeRegistration: defaultNodeRegistration(n.nodeRegistration, ctx.env),
    caCertPath: n.caCertPath || DEFAULT_CA_CERT_PATH,
    discovery: {
      ...(bt ? {
        bootstrapToken: {
          token: bt.token ?? '',
          apiServerEndpoint: bt.apiServerEndpoint ?? '',
          caCertHashes: bt.caCertHashes ?? [],
          unsafeSkipCAVerification: bt.unsafeSkipCAVerification ?? false,
        },
      } : {}),
      ...(file ? { file: { kubeConfigPath: file.kubeConfigPath ?? '' } } : {}),
      // SetDefaults_Discovery: the TLS bootstrap token defaults to the discovery token.
      tlsBootstrapToken: n.discovery?.tlsBootstrapToken || bt?.token || '',
      timeoutMs: timeouts.discoveryMs,
    },
    ...(n.controlPlane ? {
      controlPlane: {
        localAPIEndpoint: defaultAPIEndpoint(n.controlPlane.localAPIEndpoint, ctx, 'controlPlane.localAPIEndpoint.advertiseAddress'),
        certificateKey: n.controlPlane.certificateKey ?? '',
      },
    } : {}),
    skipPhases: n.skipPhases ?? [],
    ...(n.patches?.directory ? { patches: { directory: n.patches.directory } } : {}),
    timeouts,
    dryRun: n.dryRun ?? false,
  };
}

export function defaultReset(n: NReset): ResetConfiguration {
  return {
    certificatesDir: n.certificatesDir || DEFAULT_CERT_DIR,
    criSocket: n.criSocket ?? '',
    force: n.force ?? false,
    ignorePreflightErrors: n.ignorePreflightErrors ?? [],
    skipPhases: n.skipPhases ?? [],
    cleanupTmpDir: n.cleanupTmpDir ?? false,
    dryRun: n.dryRun ?? false,
    unmountFlags: n.unmountFlags ?? [],
    ...(n.timeouts ? { timeouts: resetTimeouts(n.timeouts) } : {}),
  };
}

/** The timeouts reset reads (kubeadm's active timeouts during reset: the API and etcd calls). */
function resetTimeouts(n: NTimeouts): ResetTimeouts {
  return {
    ...(n.kubernetesAPICall !== undefined ? { kubernetesAPICallMs: parseDuration(n.kubernetesAPICall) } : {}),
    ...(n.etcdAPICall !== undefined ? { etcdAPICallMs: parseDuration(n.etcdAPICall) } : {}),
  };
}

const RESET_TIMEOUTS_READ: ReadonlySet<string> = new Set(['kubernetesAPICall', 'etcdAPICall']);

/**
 * One warning per ResetConfiguration timeout that reset has no use for: kubeadm accepts the
 * whole Timeouts struct there and its reset never waits for a control plane, a kubelet, a TLS
 * bootstrap, discovery or an upgrade, so tsadm says so instead of ignoring them silently.
 */
export function resetTimeoutWarnings(n: NTimeouts | undefined): string[] {
  return unusedTimeoutWarnings('ResetConfiguration', 'reset', n, Object.keys(n ?? {}).filter((k) => !RESET_TIMEOUTS_READ.has(k)));
}

/**
 * The v1beta4 timeouts a command has no use for, where that is plain from what the command does:
 * init does no discovery, TLS bootstrap, manifest upgrade or etcd call (its etcd member is the
 * first; kubeadm's init has no etcd client); join upgrades no manifest; upgrade does no discovery
 * or TLS bootstrap. One warning per such field set.
 */
export const UNUSED_TIMEOUTS: Readonly<Record<'init' | 'join' | 'upgrade', readonly string[]>> = {
  init: ['discovery', 'tlsBootstrap', 'upgradeManifests', 'etcdAPICall'],
  join: ['upgradeManifests'],
  upgrade: ['discovery', 'tlsBootstrap'],
};

/** kubeadm's v1beta4 default of each timeout (SetDefaults_Timeouts; upgradeManifests: constants.UpgradeManifestsTimeout). */
const TIMEOUT_DEFAULT_MS: Readonly<Record<string, number>> = {
  controlPlaneComponentHealthCheck: DEFAULT_TIMEOUTS.controlPlaneComponentHealthCheckMs,
  kubeletHealthCheck: DEFAULT_TIMEOUTS.kubeletHealthCheckMs,
  kubernetesAPICall: DEFAULT_TIMEOUTS.kubernetesAPICallMs,
  etcdAPICall: DEFAULT_TIMEOUTS.etcdAPICallMs,
  tlsBootstrap: DEFAULT_TIMEOUTS.tlsBootstrapMs,
  discovery: DEFAULT_TIMEOUTS.discoveryMs,
  upgradeManifests: 5 * 60_000,
};

/**
 * kubeadm prints every timeout, at its default, into each kind's defaults (`config print
 * init-defaults` and the like), so a value equal to the default says nothing: only a value the
 * user changed is warned about.
 */
export function unusedTimeoutWarnings(kind: string, command: string, n: NTimeouts | Readonly<Record<string, unknown>> | undefined, unused: readonly string[]): string[] {
  return Object.entries(n ?? {}).filter(([k, v]) => unused.includes(k) && typeof v === 'string' && !isDefaultDuration(k, v))
    .map(([k]) => `${kind} timeouts.${k} has no effect on ${command} (kubeadm's ${command} does not use it either); remove it to silence this warning`);
}

function isDefaultDuration(name: string, text: string): boolean {
  try {
    return parseDuration(text) === TIMEOUT_DEFAULT_MS[name];
  } catch {
    return false; // an invalid duration is reported by the schema check
  }
}
