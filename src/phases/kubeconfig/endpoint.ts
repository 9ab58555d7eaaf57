/**
 * API server URLs (kubeadm's cmd/kubeadm/app/util/endpoint.go), pure. Used for kubeconfig
 * servers, apiserver SANs (the controlPlaneEndpoint host), cluster-info and join commands.
 */
import type { APIEndpoint, ResolvedInitConfig } from '../../config/types.js';
import { TsadmError } from '../../errors.js';
import { isDNS1123Subdomain } from '../../pki/hostnames.js';
import { normalizeIP } from '../../pki/ip.js';

export interface HostPort {
  readonly host: string;
  /** "" when the input had no port. */
  readonly port: string;
}

/** Go's net.SplitHostPort, or undefined where it errors (no port, too many colons, …). */
function splitHostPort(s: string): HostPort | undefined {
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0 || s[end + 1] !== ':') return undefined;
    const host = s.slice(1, end);
    const port = s.slice(end + 2);
    return /[[\]]/.test(host + port) ? undefined : { host, port };
  }
  const i = s.lastIndexOf(':');
  if (i < 0 || s.slice(0, i).includes(':') || /[[\]]/.test(s)) return undefined;
  return { host: s.slice(0, i), port: s.slice(i + 1) };
}

function validPort(port: string): boolean {
  return /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535;
}

/**
 * kubeadm's ParseHostPort: "host", "host:port", "ipv4:port", "[ipv6]:port" or a bare IPv6. The
 * host must be an IP or a DNS-1123 subdomain. Throws E_CONFIG_INVALID naming `what`.
 */
export function parseHostPort(hostport: string, what = 'controlPlaneEndpoint'): HostPort {
  const split = splitHostPort(hostport) ?? { host: hostport, port: '' };
  if (split.port !== '' && !validPort(split.port)) {
    throw new TsadmError('E_CONFIG_INVALID', `invalid value "${hostport}" given for ${what}: port ${split.port} must be a valid number between 1 and 65535, inclusive`);
  }
  if (normalizeIP(split.host) !== undefined || isDNS1123Subdomain(split.host)) return split;
  throw new TsadmError('E_CONFIG_INVALID', `invalid value "${hostport}" given for ${what}: host '${split.host}' must be a valid IP address or a valid RFC-1123 DNS subdomain`);
}

/** https://host:port, IPv6 hosts bracketed (Go's net.JoinHostPort). */
function httpsURL(host: string, port: string | number): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** https://<advertiseAddress>:<bindPort> of this node (init's localAPIEndpoint). */
export function localAPIEndpointURL(cfg: Pick<ResolvedInitConfig, 'init'>): string {
  return apiEndpointURL(cfg.init.localAPIEndpoint);
}

/** https://<advertiseAddress>:<bindPort>, the address in canonical form (kubeadm's GetLocalAPIEndpoint). */
export function apiEndpointURL(endpoint: APIEndpoint): string {
  const { advertiseAddress, bindPort } = endpoint;
  const ip = normalizeIP(advertiseAddress);
  if (ip === undefined) throw new TsadmError('E_CONFIG_INVALID', `invalid value \`${advertiseAddress}\` given for api.advertiseAddress`);
  if (!Number.isInteger(bindPort) || bindPort < 1 || bindPort > 65535) {
    throw new TsadmError('E_CONFIG_INVALID', `invalid value "${bindPort}" given for api.bindPort: port must be a valid number between 1 and 65535, inclusive`);
  }
  return httpsURL(ip, bindPort);
}

export interface ControlPlaneEndpoint {
  readonly url: string;
  /** kubeadm's "[endpoint] WARNING" when the endpoint's own port differs from bindPort. */
  readonly warning?: string;
}

/**
 * kubeadm's GetControlPlaneEndpoint: controlPlaneEndpoint when set (its port, else bindPort),
 * otherwise the local API endpoint.
 */
export function resolveControlPlaneEndpoint(cfg: Pick<ResolvedInitConfig, 'init' | 'cluster'>): ControlPlaneEndpoint {
  return controlPlaneEndpointFor(cfg.cluster.controlPlaneEndpoint, cfg.init.localAPIEndpoint);
}

/** The same rule for any endpoint pair (join --control-plane has its own localAPIEndpoint). */
export function controlPlaneEndpointFor(controlPlaneEndpoint: string, local: APIEndpoint): ControlPlaneEndpoint {
  const localURL = apiEndpointURL(local);
  const cpe = controlPlaneEndpoint;
  if (!cpe) return { url: localURL };
  const { host, port } = parseHostPort(cpe);
  const bindPort = String(local.bindPort);
  if (port === '') return { url: httpsURL(host, bindPort) };
  return {
    url: httpsURL(host, port),
    ...(port !== bindPort ? { warning: 'port specified in controlPlaneEndpoint overrides bindPort in the controlplane address' } : {}),
  };
}

export function controlPlaneEndpointURL(cfg: Pick<ResolvedInitConfig, 'init' | 'cluster'>): string {
  return resolveControlPlaneEndpoint(cfg).url;
}
