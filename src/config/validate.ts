/**
 * Validation of a resolved configuration (kubeadm ValidateInitConfiguration /
 * ValidateJoinConfiguration / ValidateResetConfiguration, plus tsadm's extra checks). Every
 * function returns all problems, one "<field path>: <message>" line each; configInvalid turns the
 * lines into the single E_CONFIG_INVALID error the user sees.
 */
import { TsadmError } from '../errors.js';
import { isValidPort, splitHostPort } from '../net/host-port.js';
import { supportedProfile } from '../versions/resolve.js';
import { isKnownFeatureGate, validateFeatureGates } from './feature-gates.js';
import { isValidImageRepository } from './names.js';
import type { ClusterConfiguration, JoinConfiguration, ResetConfiguration, ResolvedInitConfig, ResolvedJoinConfig, ResolvedResetConfig } from './types.js';
import { validateNetworking } from './validate-network.js';
import {
  validateAbsolutePath,
  validateAPIEndpoint,
  validateArgs,
  validateBootstrapTokens,
  validateCACertHash,
  validateCertificateKey,
  validateCertSANs,
  validateCriSocket,
  validateEnvs,
  validateHostPort,
  validateNodeRegistration,
  validateToken,
  validateVolumes,
  type Out,
} from './validate-fields.js';

const ENCRYPTION_ALGORITHMS = ['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096'] as const;
/** Accepted from kubeadm 1.38 (PR #142037; the row's pki.mlDsa), without a feature gate. */
const ML_DSA_ALGORITHMS = ['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'] as const;
const UNMOUNT_FLAGS = ['MNT_FORCE', 'MNT_DETACH', 'MNT_EXPIRE', 'UMOUNT_NOFOLLOW'];
const q = (v: string): string => JSON.stringify(v);

export function validateInitConfig(cfg: ResolvedInitConfig): string[] {
  const out: Out = [];
  validateNodeRegistration(cfg.init.nodeRegistration, 'nodeRegistration', out);
  validateIgnorePreflightErrors(cfg.init.nodeRegistration.ignorePreflightErrors, 'nodeRegistration.ignorePreflightErrors', out);
  validateBootstrapTokens(cfg.init.bootstrapTokens, out);
  out.push(...validateClusterConfig(cfg.cluster));
  validateAPIEndpoint(cfg.init.localAPIEndpoint, 'localAPIEndpoint', out);
  validateCertificateKey(cfg.init.certificateKey, 'certificateKey', out);
  return out;
}

function validateClusterConfig(c: ClusterConfiguration): string[] {
  const out: Out = [];
  if (c.dns.imageRepository !== '' && !isValidImageRepository(c.dns.imageRepository)) {
    out.push(`dns.imageRepository: invalid value ${q(c.dns.imageRepository)}: invalid image repository format`);
  }
  validateNetworking(c, out);
  validateCertSANs(c.apiServer.certSANs, 'apiServer.certSANs', out);
  for (const [name, comp] of [['apiServer', c.apiServer], ['controllerManager', c.controllerManager], ['scheduler', c.scheduler]] as const) {
    validateArgs(comp.extraArgs, `${name}.extraArgs`, out);
    validateVolumes(comp.extraVolumes, `${name}.extraVolumes`, out);
    validateEnvs(comp.extraEnvs, `${name}.extraEnvs`, out);
  }
  validateAbsolutePath(c.certificatesDir, 'certificatesDir', out);
  out.push(...validateGates(c));
  // Implementing it means a user and group per component and file ownership to match (kubeadm's
  // cmd/kubeadm/app/util/users); tsadm does not, so it refuses the gate rather than ignoring it.
  if (c.featureGates.RootlessControlPlane === true) {
    out.push('featureGates: RootlessControlPlane=true is not supported by tsadm (it would run the control-plane components as non-root users); remove the gate or set it to false');
  }
  validateHostPort(c.controlPlaneEndpoint, 'controlPlaneEndpoint', out);
  if (!isValidImageRepository(c.imageRepository)) out.push(`imageRepository: invalid value ${q(c.imageRepository)}: invalid image repository format`);
  validateEtcd(c, out);
  const algorithms: readonly string[] = supportedProfile(c.kubernetesVersion)?.pki.mlDsa ? [...ENCRYPTION_ALGORITHMS, ...ML_DSA_ALGORITHMS] : ENCRYPTION_ALGORITHMS;
  if (!algorithms.includes(c.encryptionAlgorithm)) {
    out.push(`encryptionAlgorithm: invalid encryption algorithm ${q(c.encryptionAlgorithm)}; must be one of ${algorithms.join(', ')}`);
  }
  if (c.certificateValidityMs <= 0) out.push('certificateValidityPeriod: must be greater than zero');
  if (c.caCertificateValidityMs <= 0) out.push('caCertificateValidityPeriod: must be greater than zero');
  if (c.apiServer.timeoutForControlPlaneMs <= 0) out.push('apiServer.timeoutForControlPlane: must be greater than zero');
  return out;
}

/** Gates at the target minor (kubeadm of that minor); an unsupported version is reported elsewhere, so only unknown names are checked then. */
function validateGates(c: ClusterConfiguration): string[] {
  const versions = supportedProfile(c.kubernetesVersion);
  if (versions) return validateFeatureGates(c.featureGates, versions);
  return Object.keys(c.featureGates).filter((g) => !isKnownFeatureGate(g)).map((g) => `featureGates: unrecognized feature-gate key ${q(g)}`);
}

function validateEtcd(c: ClusterConfiguration, out: Out): void {
  const e = c.etcd;
  if (e.mode === 'local') {
    validateAbsolutePath(e.dataDir, 'etcd.local.dataDir', out);
    validateCertSANs(e.serverCertSANs, 'etcd.local.serverCertSANs', out);
    validateCertSANs(e.peerCertSANs, 'etcd.local.peerCertSANs', out);
    if (e.imageRepository !== '' && !isValidImageRepository(e.imageRepository)) {
      out.push(`etcd.local.imageRepository: invalid value ${q(e.imageRepository)}: invalid image repository format`);
    }
    validateArgs(e.extraArgs, 'etcd.local.extraArgs', out);
    validateEnvs(e.extraEnvs, 'etcd.local.extraEnvs', out);
    return;
  }
  const p = 'etcd.external';
  if ((e.certFile === '') !== (e.keyFile === '')) out.push(`${p}: either both or none of certFile and keyFile must be set`);
  if (e.certFile !== '' && e.keyFile !== '' && e.caFile === '') out.push(`${p}: setting certFile and keyFile requires caFile`);
  if (e.endpoints.length === 0) out.push(`${p}.endpoints: required value`);
  // Without client certificates plain http is allowed, as in kubeadm.
  const requireHttps = e.caFile !== '' || e.certFile !== '' || e.keyFile !== '';
  // httpEndpoints (kubeadm 1.35+, PR #134890) are etcd URLs too, checked by the same rules (ValidateURLs).
  for (const field of ['endpoints', 'httpEndpoints'] as const) {
    (e[field] ?? []).forEach((url, i) => {
      const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(url)?.[1];
      if (scheme === undefined) out.push(`${p}.${field}[${i}]: invalid value ${q(url)}: the URL without scheme is not allowed`);
      else if (requireHttps && scheme !== 'https') out.push(`${p}.${field}[${i}]: invalid value ${q(url)}: the URL must be using the HTTPS scheme`);
    });
  }
  for (const key of ['caFile', 'certFile', 'keyFile'] as const) {
    if (e[key] !== '') validateAbsolutePath(e[key], `${p}.${key}`, out);
  }
}

/** kubeadm ValidateIgnorePreflightErrors: "all" cannot be combined with single checks. */
function validateIgnorePreflightErrors(list: readonly string[], path: string, out: Out): void {
  if (list.includes('all') && list.length > 1) {
    out.push(`${path}: invalid value ${q(list.join(','))}: don't specify individual checks if 'all' is used`);
  }
}

export function validateJoinConfig(cfg: ResolvedJoinConfig): string[] {
  const out: Out = [];
  const j: JoinConfiguration = cfg.join;
  const d = j.discovery;
  if (!d.bootstrapToken && !d.file) {
    out.push('discovery: bootstrapToken or file must be set (give the control-plane endpoint with --token, or --discovery-file)');
  }
  if (d.bootstrapToken && d.file) out.push('discovery: bootstrapToken and file cannot both be set');
  if (d.bootstrapToken) {
    const b = d.bootstrapToken;
    const p = 'discovery.bootstrapToken';
    if (b.apiServerEndpoint === '') out.push(`${p}.apiServerEndpoint: APIServerEndpoint is not set`);
    else {
      const split = splitHostPort(b.apiServerEndpoint);
      if ('error' in split) out.push(`${p}.apiServerEndpoint: invalid value ${q(b.apiServerEndpoint)}: ${split.error}`);
      // kubeadm only splits host and port here and fails later, at every discovery attempt.
      else if (!isValidPort(split.port)) out.push(`${p}.apiServerEndpoint: invalid value ${q(b.apiServerEndpoint)}: port ${split.port} must be a number between 1 and 65535`);
    }
    if (b.caCertHashes.length === 0 && !b.unsafeSkipCAVerification) {
      out.push(`${p}.caCertHashes: using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue`);
    }
    b.caCertHashes.forEach((h, i) => validateCACertHash(h, `${p}.caCertHashes[${i}]`, out));
    validateToken(b.token, `${p}.token`, out);
    validateToken(d.tlsBootstrapToken, 'discovery.tlsBootstrapToken', out);
  }
  if (d.file) {
    const path = d.file.kubeConfigPath;
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(path)?.[1];
    if (path === '') out.push('discovery.file.kubeConfigPath: not a valid HTTPS URL or a file on disk');
    else if (scheme !== undefined && scheme !== 'https') out.push(`discovery.file.kubeConfigPath: invalid value ${q(path)}: if a URL is used, the scheme must be https`);
    if (d.tlsBootstrapToken !== '') validateToken(d.tlsBootstrapToken, 'discovery.tlsBootstrapToken', out);
  }
  if (d.timeoutMs <= 0) out.push('timeouts.discovery: must be greater than zero');
  validateNodeRegistration(j.nodeRegistration, 'nodeRegistration', out);
  validateIgnorePreflightErrors(j.nodeRegistration.ignorePreflightErrors, 'nodeRegistration.ignorePreflightErrors', out);
  if (j.controlPlane) {
    validateAPIEndpoint(j.controlPlane.localAPIEndpoint, 'controlPlane.localAPIEndpoint', out);
    validateCertificateKey(j.controlPlane.certificateKey, 'controlPlane.certificateKey', out);
  }
  if (!j.caCertPath.startsWith('/') || !j.caCertPath.endsWith('.crt')) {
    out.push(`caCertPath: invalid value ${q(j.caCertPath)}: the ca certificate path must be an absolute path`);
  }
  return out;
}

export function validateResetConfig(cfg: ResolvedResetConfig): string[] {
  const out: Out = [];
  const r: ResetConfiguration = cfg.reset;
  validateCriSocket(r.criSocket, 'criSocket', out);
  validateAbsolutePath(r.certificatesDir, 'certificatesDir', out);
  validateIgnorePreflightErrors(r.ignorePreflightErrors, 'ignorePreflightErrors', out);
  for (const [field, ms] of Object.entries(r.timeouts ?? {})) {
    if (ms !== undefined && ms <= 0) out.push(`timeouts.${field.replace(/Ms$/, '')}: must be greater than zero`);
  }
  (r.unmountFlags ?? []).forEach((flag, i) => {
    if (!UNMOUNT_FLAGS.includes(flag)) out.push(`unmountFlags[${i}]: unsupported value ${q(flag)}: supported values: ${UNMOUNT_FLAGS.map(q).join(', ')}`);
  });
  return out;
}

/** The one error for a list of problems: the first as message, all of them as details. */
export function configInvalid(lines: readonly string[], source?: string): TsadmError {
  const first = lines[0] ?? 'invalid configuration';
  const message = lines.length === 1 ? first : `${lines.length} configuration errors; the first: ${first}`;
  return new TsadmError('E_CONFIG_INVALID', message, {
    details: lines,
    hint: source ? `fix the listed fields in ${source} (field names follow kubeadm's config API)` : "fix the listed flags or fields (field names follow kubeadm's config API)",
  });
}
