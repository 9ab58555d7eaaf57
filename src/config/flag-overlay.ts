/**
 * Command-line flags mapped onto the config fields kubeadm binds them to, and kubeadm's rule on
 * mixing them with --config (validation.ValidateMixedArguments): with a config file only flags
 * that are not config fields may be given, everything else must go into the file.
 */
import type { FlagName, FlagValues } from '../flags.js';
import { DEFAULTS } from '../constants.js';
import { TsadmError } from '../errors.js';
import { checkDuration } from '../duration.js';
import { parseFeatureGates } from './feature-gates.js';
import type { NCluster, NInit, NJoin, NNodeRegistration, NReset } from './normalized.js';
import type { Findings } from './upconvert.js';

/**
 * Flags allowed together with --config: kubeadm's isAllowedFlag list (1.22+), plus every
 * "skip-*" flag, plus tsadm's own flags that are not config fields (output, plan, resume, the hidden
 * upload-config-kubeconfig, the host phase's prepare-host, bundle, swap-off,
 * restart-container-runtime, override-host-settings, and certificate-auto-renew and tsadm-path
 * of the certs-auto-renew phase), plus --patches: kubeadm v1.20 accepts --experimental-patches with
 * --config (observed; v1beta2 files have no patches field), and the flag then wins over the
 * file's patches.directory as in kubeadm's PatchesDir(). kubeadm ≤1.21 also accepted
 * --cri-socket but ignored it (kubernetes/kubeadm#2039); tsadm refuses it, as kubeadm 1.22+ does.
 */
export const ALLOWED_WITH_CONFIG: ReadonlySet<string> = new Set([
  'config', 'ignore-preflight-errors', 'dry-run', 'kubeconfig', 'node-name', 'kubeconfig-dir', 'upload-certs',
  'print-join-command', 'rootfs', 'v', 'log-file', 'yes',
  'output', 'upload-config-kubeconfig', 'patches', 'plan', 'plan-without-keys', 'resume',
  'prepare-host', 'bundle', 'swap-off', 'restart-container-runtime', 'override-host-settings',
  'certificate-auto-renew', 'tsadm-path',
]);

export function isAllowedWithConfig(flag: string): boolean {
  return ALLOWED_WITH_CONFIG.has(flag) || flag.startsWith('skip-');
}

/** Throws kubeadm's error when --config is combined with config-bound flags. */
export function validateMixedArguments(flags: FlagValues, hasConfig: boolean): void {
  if (!hasConfig) return;
  // pflag visits flags in lexical order; kubeadm prints the Go slice as "[a b]".
  const mixed = Object.keys(flags).filter((f) => flags[f as FlagName] !== undefined && !isAllowedWithConfig(f)).sort();
  if (mixed.length === 0) return;
  throw new TsadmError('E_CONFIG_INVALID', `can not mix '--config' with arguments [${mixed.join(' ')}]`, {
    hint: 'put these settings into the configuration file, or drop --config',
  });
}

/** Config field path → where its value came from, e.g. "--pod-network-cidr" (errors name it). */
export type Origins = Map<string, string>;

function flagString(flags: FlagValues, name: FlagName): string | undefined {
  const v = flags[name];
  if (v === undefined || typeof v === 'boolean' || Array.isArray(v)) return undefined;
  return String(v);
}

/** Array flags also accept comma-separated values, as pflag's StringSlice does. */
export function flagList(flags: FlagValues, name: FlagName): string[] | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const items = Array.isArray(v) ? v : [String(v)];
  return items.flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

function flagBool(flags: FlagValues, name: FlagName): boolean | undefined {
  const v = flags[name];
  return typeof v === 'boolean' ? v : v === undefined ? undefined : v === 'true';
}

function flagPort(flags: FlagValues, name: FlagName, f: Findings): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n)) {
    f.errors.push(`--${name}: invalid port "${String(v)}"`);
    return undefined;
  }
  return n;
}

/** Records `path ← --flag` and returns the value, for one-line assignments. */
function from<T>(origins: Origins, path: string, flag: FlagName, value: T): T {
  if (value !== undefined) origins.set(path, `--${flag}`);
  return value;
}

/** init without --config: every config-bound flag onto its InitConfiguration/ClusterConfiguration field. */
export function initFromFlags(flags: FlagValues, f: Findings, origins: Origins): { init: NInit; cluster: NCluster } {
  const o = origins;
  const gatesText = flagString(flags, 'feature-gates');
  let featureGates: Record<string, boolean> | undefined;
  if (gatesText !== undefined) {
    const parsed = parseFeatureGates(gatesText);
    f.errors.push(...parsed.errors.map((e) => `--feature-gates: ${e}`));
    featureGates = parsed.gates;
  }
  const ttl = flagString(flags, 'token-ttl');
  const ttlProblem = ttl === undefined ? undefined : checkDuration(ttl);
  if (ttlProblem) f.errors.push(`--token-ttl: invalid duration "${ttl}": ${ttlProblem}`);
  const cluster: NCluster = {
    kubernetesVersion: from(o, 'kubernetesVersion', 'kubernetes-version', flagString(flags, 'kubernetes-version')),
    controlPlaneEndpoint: from(o, 'controlPlaneEndpoint', 'control-plane-endpoint', flagString(flags, 'control-plane-endpoint')),
    certificatesDir: from(o, 'certificatesDir', 'cert-dir', flagString(flags, 'cert-dir')),
    imageRepository: from(o, 'imageRepository', 'image-repository', flagString(flags, 'image-repository')),
    networking: {
      serviceSubnet: from(o, 'networking.serviceSubnet', 'service-cidr', flagString(flags, 'service-cidr')),
      podSubnet: from(o, 'networking.podSubnet', 'pod-network-cidr', flagString(flags, 'pod-network-cidr')),
      dnsDomain: from(o, 'networking.dnsDomain', 'service-dns-domain', flagString(flags, 'service-dns-domain')),
    },
    apiServer: { certSANs: from(o, 'apiServer.certSANs', 'apiserver-cert-extra-sans', flagList(flags, 'apiserver-cert-extra-sans')) },
    featureGates: from(o, 'featureGates', 'feature-gates', featureGates),
  };
  const init: NInit = {
    // kubeadm's BootstrapTokenOptions.ApplyTo: the flags describe the first token, with the init description.
    bootstrapTokens: [{
      token: from(o, 'bootstrapTokens[0].token', 'token', flagString(flags, 'token')),
      ttl: ttlProblem ? undefined : from(o, 'bootstrapTokens[0].ttl', 'token-ttl', ttl),
      description: DEFAULTS.tokenDescription,
    }],
    localAPIEndpoint: {
      advertiseAddress: from(o, 'localAPIEndpoint.advertiseAddress', 'apiserver-advertise-address', flagString(flags, 'apiserver-advertise-address')),
      bindPort: from(o, 'localAPIEndpoint.bindPort', 'apiserver-bind-port', flagPort(flags, 'apiserver-bind-port', f)),
    },
    nodeRegistration: nodeRegistrationFromFlags(flags, o, 'nodeRegistration'),
    certificateKey: from(o, 'certificateKey', 'certificate-key', flagString(flags, 'certificate-key')),
  };
  return { init, cluster };
}

/** join without --config (kubeadm's newJoinData): discovery from the positional endpoint and flags. */
export function joinFromFlags(flags: FlagValues, endpoint: string | undefined, f: Findings, origins: Origins): NJoin {
  const o = origins;
  const token = flagString(flags, 'token');
  const file = flagString(flags, 'discovery-file');
  const controlPlane = flagBool(flags, 'control-plane') === true;
  const cp = {
    localAPIEndpoint: {
      advertiseAddress: from(o, 'controlPlane.localAPIEndpoint.advertiseAddress', 'apiserver-advertise-address', flagString(flags, 'apiserver-advertise-address')),
      bindPort: from(o, 'controlPlane.localAPIEndpoint.bindPort', 'apiserver-bind-port', flagPort(flags, 'apiserver-bind-port', f)),
    },
    certificateKey: from(o, 'controlPlane.certificateKey', 'certificate-key', flagString(flags, 'certificate-key')),
  };
  if (!controlPlane && (cp.localAPIEndpoint.advertiseAddress !== undefined || cp.localAPIEndpoint.bindPort !== undefined || cp.certificateKey !== undefined)) {
    f.warnings.push('--control-plane is also required when passing control-plane related flags such as [certificate-key, apiserver-advertise-address, apiserver-bind-port]');
  }
  const discoveryToken = flagString(flags, 'discovery-token') ?? token;
  if (endpoint !== undefined) o.set('discovery.bootstrapToken.apiServerEndpoint', 'the api-server-endpoint argument');
  return {
    nodeRegistration: nodeRegistrationFromFlags(flags, o, 'nodeRegistration'),
    discovery: {
      // kubeadm keeps token discovery only when an endpoint was given, and file discovery only with --discovery-file.
      bootstrapToken: endpoint === undefined ? undefined : {
        apiServerEndpoint: endpoint,
        token: from(o, 'discovery.bootstrapToken.token', flagString(flags, 'discovery-token') !== undefined ? 'discovery-token' : 'token', discoveryToken),
        caCertHashes: from(o, 'discovery.bootstrapToken.caCertHashes', 'discovery-token-ca-cert-hash', flagList(flags, 'discovery-token-ca-cert-hash')),
        unsafeSkipCAVerification: flagBool(flags, 'discovery-token-unsafe-skip-ca-verification'),
      },
      file: file === undefined ? undefined : { kubeConfigPath: from(o, 'discovery.file.kubeConfigPath', 'discovery-file', file) },
      tlsBootstrapToken: from(o, 'discovery.tlsBootstrapToken', flagString(flags, 'tls-bootstrap-token') !== undefined ? 'tls-bootstrap-token' : 'token',
        flagString(flags, 'tls-bootstrap-token') ?? token),
    },
    controlPlane: controlPlane ? cp : undefined,
  };
}

/** reset without --config. */
export function resetFromFlags(flags: FlagValues, origins: Origins): NReset {
  return {
    certificatesDir: from(origins, 'certificatesDir', 'cert-dir', flagString(flags, 'cert-dir')),
    criSocket: from(origins, 'criSocket', 'cri-socket', flagString(flags, 'cri-socket')),
    force: flagBool(flags, 'force'),
    cleanupTmpDir: flagBool(flags, 'cleanup-tmp-dir'),
  };
}

function nodeRegistrationFromFlags(flags: FlagValues, o: Origins, at: string): NNodeRegistration {
  return { criSocket: from(o, `${at}.criSocket`, 'cri-socket', flagString(flags, 'cri-socket')) };
}

/**
 * Flags that apply with or without --config (kubeadm: --node-name overrides the file,
 * --skip-phases takes precedence over skipPhases, --dry-run over dryRun, --patches over
 * patches.directory). --ignore-preflight-errors is merged with the file's list later
 * (see mergeIgnorePreflightErrors in load.ts).
 */
export function overlayCommonFlags<T extends { nodeRegistration?: NNodeRegistration; skipPhases?: string[]; dryRun?: boolean; patches?: { directory?: string } }>(
  n: T,
  flags: FlagValues,
  origins: Origins,
  namePath: string | undefined,
): T {
  const out: T = { ...n };
  const name = flagString(flags, 'node-name');
  if (name !== undefined && namePath !== undefined) {
    out.nodeRegistration = { ...out.nodeRegistration, name };
    origins.set(namePath, '--node-name');
  }
  const skip = flagList(flags, 'skip-phases');
  if (skip !== undefined && skip.length > 0) out.skipPhases = skip;
  const dryRun = flagBool(flags, 'dry-run');
  if (dryRun !== undefined) out.dryRun = dryRun;
  const patches = flagString(flags, 'patches');
  if (patches !== undefined) {
    out.patches = { directory: patches };
    origins.set('patches.directory', '--patches');
  }
  return out;
}
