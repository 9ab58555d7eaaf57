/**
 * The config loader: config file (or flags) → normalized input → kubeadm defaults → validation,
 * as kubeadm's LoadOrDefault{Init,Join,Reset}Configuration do. Pure: the caller reads the file
 * and detects hostname and address (ConfigEnv). Every problem is collected and thrown as one
 * E_CONFIG_INVALID error; only the --config mixing rule fails early, as in kubeadm.
 */
import { supportedProfile } from '../versions/resolve.js';
import { SUPPORTED_MINORS } from '../versions/minors.js';
import type { VersionProfile } from '../versions/table-types.js';
import { apiVersionFindings } from './api-versions.js';
import { featureGateWarnings } from './feature-gates.js';
import type { FlagValues } from '../flags.js';
import { splitHostPort } from '../net/host-port.js';
import { parseIp } from '../net/ip.js';
import { defaultCluster } from './defaults-cluster.js';
import { defaultInit, defaultJoin, defaultReset, resetTimeoutWarnings, UNUSED_TIMEOUTS, unusedTimeoutWarnings } from './defaults.js';
import { readConfigDocuments, readParsedDocuments, type ConfigCommand, type ConfigDocuments } from './documents.js';
import type { ParsedYaml } from './yaml-docs.js';
import type { ConfigEnv } from './env.js';
import {
  flagList,
  initFromFlags,
  joinFromFlags,
  overlayCommonFlags,
  resetFromFlags,
  validateMixedArguments,
  type Origins,
} from './flag-overlay.js';
import type { NCluster, NInit, NJoin, NReset } from './normalized.js';
import { isPlainObject } from '../util/plain-object.js';
import { FIELDS_SINCE, KUBEADM_GROUP } from './schema-kubeadm.js';
import { storedFieldFindings } from './stored-fields.js';
import type { ResolvedInitConfig, ResolvedJoinConfig, ResolvedResetConfig } from './types.js';
import type { Findings } from './upconvert.js';
import { configInvalid, validateInitConfig, validateJoinConfig, validateResetConfig } from './validate.js';

export type { ConfigEnv } from './env.js';

export interface ConfigInput {
  /** Content of the --config file, read by the caller. */
  readonly configText?: string;
  /**
   * The configuration's documents already parsed, instead of configText (upgrade: the stored
   * ClusterConfiguration at the target version, without writing it out as YAML again).
   */
  readonly configDocuments?: ParsedYaml;
  /** The --config path, for messages. */
  readonly configPath?: string;
  /** Only the flags the user set. */
  readonly flags: FlagValues;
  readonly env: ConfigEnv;
  /**
   * How the file's kubeadm API versions are checked against the target minor
   * (src/config/api-versions.ts): 'enforce' (default: unread versions refused, deprecated ones
   * warn), 'allow-deprecated' (`config validate --allow-deprecated-api`: no deprecation warning),
   * 'any' (`config migrate`, which exists to read old versions).
   */
  readonly apiVersionCheck?: 'enforce' | 'allow-deprecated' | 'any';
  /**
   * Fields the target's kubeadm-config cannot carry (src/config/stored-fields.ts): 'judge' (default,
   * except with apiVersionCheck 'any') for whatever may upload the configuration: init and its
   * phases, `config validate`, an upgrade's override; 'skip' for commands that use the file for
   * this run only and store nothing (`certs renew --config` with a 2-hour period, `config images`,
   * `token create --config`).
   */
  readonly storedFields?: 'judge' | 'skip';
}

export interface JoinConfigInput extends ConfigInput {
  /** The positional [api-server-endpoint] argument of `join`. */
  readonly apiServerEndpoint?: string;
}

interface Loaded {
  readonly docs: ConfigDocuments;
  readonly hasConfig: boolean;
  readonly source: string | undefined;
  readonly f: Findings;
  readonly origins: Origins;
}

/** Shared first steps: the mixing rule, then the file's documents (if any). */
function load(input: ConfigInput, command: ConfigCommand): Loaded {
  const hasConfig = input.configText !== undefined || input.configDocuments !== undefined || input.flags.config !== undefined;
  validateMixedArguments(input.flags, hasConfig);
  const source = input.configPath ?? (typeof input.flags.config === 'string' ? input.flags.config : hasConfig ? 'config' : undefined);
  if (!hasConfig) return { docs: {}, hasConfig, source, f: { errors: [], warnings: [] }, origins: new Map() };
  const read = input.configDocuments
    ? readParsedDocuments(input.configDocuments, source ?? 'config', command)
    : readConfigDocuments(input.configText ?? '', source ?? 'config', command);
  return { docs: read.docs, hasConfig, source, f: { errors: [...read.errors], warnings: [...read.warnings] }, origins: new Map() };
}

export function resolveInitConfig(input: ConfigInput): ResolvedInitConfig {
  const { docs, hasConfig, source, f, origins } = load(input, 'init');
  let nInit: NInit;
  let nCluster: NCluster;
  if (hasConfig) {
    if (!docs.init && !docs.cluster && f.errors.length === 0) f.errors.push('config: no InitConfiguration or ClusterConfiguration kind was found in the YAML file');
    nInit = docs.init ?? {};
    nCluster = docs.cluster ?? {};
  } else {
    ({ init: nInit, cluster: nCluster } = initFromFlags(input.flags, f, origins));
  }
  nInit = overlayCommonFlags(nInit, input.flags, origins, 'nodeRegistration.name');
  f.warnings.push(...unusedTimeoutWarnings('InitConfiguration', 'init', nInit.timeouts, UNUSED_TIMEOUTS.init));
  const ctx = { env: input.env, f };
  const { cluster: defaulted } = defaultCluster(nCluster, ctx);
  const init0 = defaultInit(nInit, ctx, nCluster);
  const init = {
    ...init0,
    nodeRegistration: { ...init0.nodeRegistration, ignorePreflightErrors: mergeIgnorePreflightErrors(init0.nodeRegistration.ignorePreflightErrors, input.flags) },
  };
  const cluster = {
    ...defaulted,
    // kubeadm SetClusterDynamicDefaults: an endpoint without port gets the local API server's bind port.
    controlPlaneEndpoint: withPort(defaulted.controlPlaneEndpoint, init.localAPIEndpoint.bindPort),
    // One control-plane wait, whichever document it came from (v1beta4 timeouts or v1beta2/3 apiServer).
    apiServer: { ...defaulted.apiServer, timeoutForControlPlaneMs: init.timeouts.controlPlaneComponentHealthCheckMs },
  };
  const versions = supportedProfile(cluster.kubernetesVersion);
  const target = versions ? { kubernetesVersion: cluster.kubernetesVersion, profile: versions, ...(source !== undefined ? { source } : {}) } : undefined;
  // A user's file only: the stored record (apiVersionCheck 'any') and migrate's output hold what they read.
  const judge = input.apiVersionCheck !== 'any' && input.storedFields !== 'skip';
  const stored = target && judge ? storedFieldFindings(cluster, init.nodeRegistration, target) : undefined;
  const resolved: ResolvedInitConfig = {
    kind: 'init',
    init,
    cluster: stored?.cluster ?? cluster,
    componentConfigs: {
      kubelet: docs.kubelet ?? {},
      kubeProxy: docs.kubeProxy ?? {},
      userKubelet: docs.kubelet !== undefined,
      userKubeProxy: docs.kubeProxy !== undefined,
    },
    warnings: f.warnings,
  };
  if (versions && target) {
    f.warnings.push(...featureGateWarnings(cluster.featureGates, versions));
    checkApiVersions(docs, target, input.apiVersionCheck, f);
    f.errors.push(...newerFieldErrors(docs, cluster.kubernetesVersion, versions));
  }
  if (stored) {
    f.errors.push(...stored.errors);
    f.warnings.push(...stored.warnings);
  }
  finish(f, validateInitConfig(resolved), origins, source);
  return resolved;
}

export function resolveJoinConfig(input: JoinConfigInput): ResolvedJoinConfig {
  const { docs, hasConfig, source, f, origins } = load(input, 'join');
  let n: NJoin;
  if (hasConfig) {
    if (!docs.join && f.errors.length === 0) f.errors.push('config: no JoinConfiguration found in the supplied config');
    // kubeadm reads discovery from the file only; the positional endpoint is not used then.
    if (input.apiServerEndpoint !== undefined) f.warnings.push(`the API server endpoint argument "${input.apiServerEndpoint}" is ignored: --config is given`);
    n = docs.join ?? {};
  } else {
    n = joinFromFlags(input.flags, input.apiServerEndpoint, f, origins);
  }
  n = overlayCommonFlags(n, input.flags, origins, 'nodeRegistration.name');
  f.warnings.push(...unusedTimeoutWarnings('JoinConfiguration', 'join', n.timeouts, UNUSED_TIMEOUTS.join));
  const join0 = defaultJoin(n, { env: input.env, f });
  const join = {
    ...join0,
    nodeRegistration: { ...join0.nodeRegistration, ignorePreflightErrors: mergeIgnorePreflightErrors(join0.nodeRegistration.ignorePreflightErrors, input.flags) },
  };
  // The target (the cluster's version) is known only after discovery: join checks these then
  // (src/phases/join/state.ts, clusterConfig).
  const apiVersions = (docs.apiVersions ?? []).filter((u) => u.kind === 'JoinConfiguration');
  const resolved: ResolvedJoinConfig = { kind: 'join', join, warnings: f.warnings, ...(apiVersions.length > 0 ? { apiVersions } : {}) };
  finish(f, validateJoinConfig(resolved), origins, source);
  return resolved;
}

export function resolveResetConfig(input: ConfigInput): ResolvedResetConfig {
  const { docs, hasConfig, source, f, origins } = load(input, 'reset');
  let n: NReset;
  if (hasConfig) {
    if (!docs.reset && f.errors.length === 0) f.errors.push('config: no ResetConfiguration found in the supplied config');
    n = docs.reset ?? {};
  } else {
    n = resetFromFlags(input.flags, origins);
  }
  n = overlayCommonFlags(n, input.flags, origins, undefined);
  f.warnings.push(...resetTimeoutWarnings(n.timeouts));
  const reset0 = defaultReset(n);
  const reset = { ...reset0, ignorePreflightErrors: mergeIgnorePreflightErrors(reset0.ignorePreflightErrors, input.flags) };
  const resolved: ResolvedResetConfig = { kind: 'reset', reset, warnings: f.warnings };
  finish(f, validateResetConfig(resolved), origins, source);
  return resolved;
}

/**
 * kubeadm's ValidateIgnorePreflightErrors: the union of the file's and the flag's lists,
 * lowercased (check names are case-insensitive), deduplicated and sorted.
 */
function mergeIgnorePreflightErrors(fromConfig: readonly string[], flags: FlagValues): string[] {
  const all = [...fromConfig, ...(flagList(flags, 'ignore-preflight-errors') ?? [])].map((s) => s.toLowerCase());
  return [...new Set(all)].sort();
}

function withPort(endpoint: string, port: number): string {
  if (endpoint === '' || 'host' in splitHostPort(endpoint)) return endpoint;
  // A bare IPv6 address is a host without port (kubeadm ParseHostPort), written [ip]:port (Go JoinHostPort).
  if (parseIp(endpoint)?.family === 6) return `[${endpoint}]:${port}`;
  return endpoint.includes(':') ? endpoint : `${endpoint}:${port}`;
}

/** Throws every problem at once; a value that came from a flag says so. */
function finish(f: Findings, validation: readonly string[], origins: Origins, source: string | undefined): void {
  const lines = [...f.errors, ...validation].map((line) => withOrigin(line, origins));
  if (lines.length > 0) throw configInvalid(lines, source);
}

function withOrigin(line: string, origins: Origins): string {
  const path = line.slice(0, line.indexOf(':'));
  for (const [field, origin] of origins) {
    if (path === field || path.startsWith(`${field}[`) || path.startsWith(`${field}.`)) return `${line} (from ${origin})`;
  }
  return line;
}

/** The file's kubeadm API versions against what kubeadm of the target minor reads. */
function checkApiVersions(docs: ConfigDocuments, target: Parameters<typeof apiVersionFindings>[1], mode: ConfigInput['apiVersionCheck'], f: Findings): void {
  if (mode === 'any' || docs.apiVersions === undefined) return;
  const found = apiVersionFindings(docs.apiVersions, target, mode === 'allow-deprecated');
  f.errors.push(...found.errors);
  f.warnings.push(...found.warnings);
}

/**
 * Fields kubeadm added to an API version in a later minor (FIELDS_SINCE), given for an older
 * target: unknown fields for kubeadm of the target minor, refused as such.
 */
function newerFieldErrors(docs: ConfigDocuments, kubernetesVersion: string, versions: VersionProfile): string[] {
  const out: string[] = [];
  for (const field of FIELDS_SINCE) {
    if (field.kind !== 'ClusterConfiguration' || docs.clusterVersion !== field.version) continue;
    if (SUPPORTED_MINORS.indexOf(versions.minor) >= SUPPORTED_MINORS.indexOf(field.since)) continue;
    if (valueAt(docs.cluster, field.path) === undefined) continue;
    out.push(`${field.path}: unknown field (${field.kind} ${KUBEADM_GROUP}/${field.version} of Kubernetes ${kubernetesVersion}; the field exists from Kubernetes ${field.since} on, ${field.source})`);
  }
  return out;
}

function valueAt(doc: unknown, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split('.')) v = isPlainObject(v) ? v[part] : undefined;
  return v;
}
