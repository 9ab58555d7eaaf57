/**
 * Field checks shared by init, join and reset, after kubeadm's apis/kubeadm/validation. Each
 * function appends "<path>: <message>" lines to `out`; messages reuse kubeadm's wording so they
 * can be searched for.
 */
import { isValidPort, splitHostPort } from '../net/host-port.js';
import { isGlobalUnicast, isLoopback, parseIp } from '../net/ip.js';
import { isValidToken } from '../token/bootstrap-token.js';
import { dns1123SubdomainErrors, wildcardSubdomainErrors } from './names.js';
import type { APIEndpoint, Arg, BootstrapToken, EnvVar, HostPathMount, NodeRegistration } from './types.js';

export type Out = string[];

const q = (v: string): string => JSON.stringify(v);

export function validateNodeRegistration(nr: NodeRegistration, path: string, out: Out): void {
  if (nr.name === '') {
    out.push(`${path}.name: --node-name or .nodeRegistration.name in the config file is a required value. It seems like this value couldn't be automatically detected in your environment, please specify the desired value using the CLI or config file.`);
  } else {
    for (const e of dns1123SubdomainErrors(nr.name)) out.push(`${path}.name: invalid value ${q(nr.name)}: ${e}`);
  }
  validateCriSocket(nr.criSocket, `${path}.criSocket`, out);
  validateArgs(nr.kubeletExtraArgs, `${path}.kubeletExtraArgs`, out);
  if (!['Always', 'IfNotPresent', 'Never'].includes(nr.imagePullPolicy)) {
    out.push(`${path}.imagePullPolicy: unsupported value ${q(nr.imagePullPolicy)}: supported values: "Always", "IfNotPresent", "Never"`);
  }
  (nr.taints ?? []).forEach((t, i) => {
    if (t.key === '') out.push(`${path}.taints[${i}].key: required value`);
    if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) {
      out.push(`${path}.taints[${i}].effect: unsupported value ${q(t.effect)}: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`);
    }
  });
}

/** "" means "detect at run time"; otherwise an absolute path or a unix:// URL. */
export function validateCriSocket(socket: string, path: string, out: Out): void {
  if (socket === '' || socket.startsWith('/')) return;
  if (/^unix:\/\/\/./.test(socket)) return;
  out.push(`${path}: invalid value ${q(socket)}: must be an absolute path or a unix:// URL such as unix:///var/run/containerd/containerd.sock`);
}

export function validateArgs(args: readonly Arg[], path: string, out: Out): void {
  args.forEach((a, i) => {
    if (a.name === '') out.push(`${path}[${i}]: argument has no name`);
  });
}

export function validateEnvs(envs: readonly EnvVar[], path: string, out: Out): void {
  envs.forEach((e, i) => {
    if (e.name === '') out.push(`${path}[${i}].name: required value`);
  });
}

const PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];

export function validateVolumes(volumes: readonly HostPathMount[], path: string, out: Out): void {
  volumes.forEach((v, i) => {
    for (const key of ['name', 'hostPath', 'mountPath'] as const) {
      if (v[key] === '') out.push(`${path}[${i}].${key}: required value`);
    }
    if (!PATH_TYPES.includes(v.pathType)) {
      out.push(`${path}[${i}].pathType: unsupported value ${q(v.pathType)}: supported values: ${PATH_TYPES.filter((p) => p).map(q).join(', ')}`);
    }
  });
}

export function validateToken(token: string, path: string, out: Out): void {
  if (!isValidToken(token)) {
    out.push(`${path}: invalid value ${q(token)}: the bootstrap token is invalid (expected the format [a-z0-9]{6}.[a-z0-9]{16}, e.g. abcdef.0123456789abcdef)`);
  }
}

const TOKEN_USAGES = ['signing', 'authentication'];
const BOOTSTRAP_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export function validateBootstrapTokens(tokens: readonly BootstrapToken[], out: Out): void {
  tokens.forEach((t, i) => {
    const p = `bootstrapTokens[${i}]`;
    validateToken(t.token, `${p}.token`, out);
    const bad = t.usages.filter((u) => !TOKEN_USAGES.includes(u));
    if (bad.length > 0) {
      out.push(`${p}.usages: invalid bootstrap token usage string: ${bad.join(',')}, valid usage options: ${TOKEN_USAGES.join(',')}`);
    }
    if (t.groups.length > 0 && !t.usages.includes('authentication')) {
      out.push(`${p}.groups: token groups cannot be specified unless --usages includes "authentication"`);
    }
    for (const g of t.groups) {
      if (!BOOTSTRAP_GROUP.test(g)) out.push(`${p}.groups: bootstrap group ${q(g)} is invalid (must match ${BOOTSTRAP_GROUP.source})`);
    }
    if (t.ttlMs < 0) out.push(`${p}.ttl: must not be negative`);
    if (t.expires !== undefined && Number.isNaN(Date.parse(t.expires))) {
      out.push(`${p}.expires: invalid value ${q(t.expires)}: expected an RFC 3339 time such as 2030-01-01T00:00:00Z`);
    }
  });
}

/** advertiseAddress must be a usable unicast IP (kubeadm ValidateAPIEndpoint + VerifyAPIServerBindAddress). */
export function validateAPIEndpoint(ep: APIEndpoint, path: string, out: Out): void {
  const ip = parseIp(ep.advertiseAddress);
  if (ep.advertiseAddress === '') {
    // Reported while defaulting (no address could be detected).
  } else if (!ip) {
    out.push(`${path}.advertiseAddress: invalid value ${q(ep.advertiseAddress)}: ip address is not valid`);
  } else if (isLoopback(ip)) {
    // kubeadm would look for a global address on the loopback interface; tsadm cannot do that purely.
    out.push(`${path}.advertiseAddress: cannot use ${q(ep.advertiseAddress)} as the bind address for the API Server: loopback addresses are not supported; give the node's own IP`);
  } else if (!isGlobalUnicast(ip)) {
    out.push(`${path}.advertiseAddress: cannot use ${q(ep.advertiseAddress)} as the bind address for the API Server`);
  }
  if (!isValidPort(ep.bindPort)) out.push(`${path}.bindPort: invalid value ${ep.bindPort}: port number is not valid (must be 1-65535)`);
}

export function validateCertificateKey(key: string, path: string, out: Out): void {
  if (key === '') return;
  if (!/^[0-9a-fA-F]*$/.test(key)) {
    out.push(`${path}: invalid value ${q(key)}: certificate key decoding error: not a hexadecimal string`);
  } else if (key.length % 2 !== 0) {
    out.push(`${path}: invalid value ${q(key)}: certificate key decoding error: odd length hex string`);
  } else if (key.length !== 64) {
    out.push(`${path}: invalid value ${q(key)}: invalid certificate key size ${key.length / 2}, the key must be an AES key of size 32`);
  }
}

/** kubeadm ValidateCertSANs: an IP, a DNS-1123 subdomain or a "*." wildcard subdomain. */
export function validateCertSANs(sans: readonly string[], path: string, out: Out): void {
  sans.forEach((san, i) => {
    const errs = dns1123SubdomainErrors(san);
    if (errs.length === 0) return;
    const wild = wildcardSubdomainErrors(san);
    if (wild.length === 0 || parseIp(san)) return;
    out.push(`${path}[${i}]: invalid value ${q(san)}: altname is not a valid IP address, DNS label or a DNS label with subdomain wildcards: ${errs.join('; ')}; ${wild.join('; ')}`);
  });
}

export function validateAbsolutePath(value: string, path: string, out: Out): void {
  if (!value.startsWith('/')) out.push(`${path}: invalid value ${q(value)}: path is not absolute`);
}

/** kubeadm ParseHostPort: host (IP or DNS-1123 subdomain) with an optional port. */
export function validateHostPort(endpoint: string, path: string, out: Out): void {
  if (endpoint === '') return;
  const split = splitHostPort(endpoint);
  const host = 'host' in split ? split.host : endpoint;
  const port = 'host' in split ? split.port : '';
  if (port !== '' && !isValidPort(port)) {
    out.push(`${path}: invalid value ${q(endpoint)}: port ${port} must be a valid number between 1 and 65535, inclusive`);
  } else if (!parseIp(host) && dns1123SubdomainErrors(host).length > 0) {
    out.push(`${path}: invalid value ${q(endpoint)}: host '${host}' must be a valid IP address or a valid RFC-1123 DNS subdomain`);
  }
}

/** "sha256:<64 hex>" (kubeadm's pubkeypin format). */
export function validateCACertHash(hash: string, path: string, out: Out): void {
  const parts = hash.split(':');
  if (parts.length !== 2) {
    out.push(`${path}: invalid value ${q(hash)}: invalid hash, expected "format:hex-value". Known format(s) are: sha256`);
    return;
  }
  const [format = '', value = ''] = parts;
  if (format.toLowerCase() !== 'sha256') {
    out.push(`${path}: invalid value ${q(hash)}: unknown hash format "${format}". Known format(s) are: sha256`);
  } else if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    out.push(`${path}: invalid value ${q(hash)}: expected a 32 byte SHA-256 hash (64 hex characters), found ${value.length} characters`);
  }
}
