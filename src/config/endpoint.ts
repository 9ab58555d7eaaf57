/**
 * API server URLs (kubeadm's cmd/kubeadm/app/util/endpoint.go), pure. Used for kubeconfig
 * servers, apiserver SANs (the controlPlaneEndpoint host), cluster-info and join commands.
 */
import type { APIEndpoint, ResolvedInitConfig } from './types.js';
import { TsadmError } from '../errors.js';
import { isValidPort, splitHostPort, type HostPort } from '../net/host-port.js';
import { canonicalIp } from '../net/ip.js';
import { isDNS1123Subdomain } from '../pki/hostnames.js';

/**
 * kubeadm's ParseHostPort: "host", "host:port", "ipv4:port", "[ipv6]:port" or a bare IPv6. The
 * host must be an IP or a DNS-1123 subdomain. Throws E_CONFIG_INVALID naming `what`.
 */
export function parseHostPort(hostport: string, what = 'controlPlaneEndpoint'): HostPort {
  const parsed = splitHostPort(hostport);
  // Where Go's SplitHostPort fails, kubeadm takes the whole text as the host (no port).
  const split: HostPort = 'error' in parsed ? { host: hostport, port: '' } : parsed;
  if (split.port !== '' && !isValidPort(split.port)) {
    throw new TsadmError('E_CONFIG_INVALID', `invalid value "${hostport}" given for ${what}: port ${split.port} must be a valid number between 1 and 65535, inclusive`);
  }
  if (canonicalIp(split.host) !== undefined || isDNS1123Subdomain(split.host)) return split;
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
  const ip = canonicalIp(advertiseAddress);
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
