/**
 * Subject alternative names (kubeadm's pkiutil.GetAPIServerAltNames / getAltNames /
 * RemoveDuplicateAltNames), pure: DNS names de-duplicated and sorted, IPs de-duplicated in
 * insertion order, invalid extra SANs dropped with kubeadm's warning.
 */
import type { ResolvedInitConfig } from '../config/types.js';
import { TsadmError } from '../errors.js';
import { canonicalIp, formatIp, indexedIp, parseCidr } from '../net/ip.js';
import { isDNS1123Subdomain, isWildcardDNS1123Subdomain } from '../pki/hostnames.js';
import { parseHostPort } from '../config/endpoint.js';

export interface AltNames {
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  /** Extra SANs that were not added, as kubeadm's warning lines. */
  readonly warnings: readonly string[];
}

interface Builder {
  dns: string[];
  ips: string[];
  warnings: string[];
}

function advertiseAddress(cfg: ResolvedInitConfig): string {
  const raw = cfg.init.localAPIEndpoint.advertiseAddress;
  const ip = canonicalIp(raw);
  if (ip === undefined) {
    throw new TsadmError('E_CONFIG_INVALID', `error parsing LocalAPIEndpoint AdvertiseAddress ${raw}: is not a valid textual representation of an IP address`, {
      hint: 'set --apiserver-advertise-address (or localAPIEndpoint.advertiseAddress) to an IP of this node',
    });
  }
  return ip;
}

/** The cluster IP of the "kubernetes" Service: the first address of the first service CIDR. */
export function apiServerServiceIP(serviceSubnet: string): string {
  const first = serviceSubnet.split(',')[0]?.trim() ?? '';
  const cidr = parseCidr(first);
  const ip = cidr && indexedIp(cidr, 1);
  if (ip === undefined) {
    throw new TsadmError('E_CONFIG_INVALID', `unable to get first IP address from the given CIDR: ${serviceSubnet}`, {
      hint: 'set --service-cidr (networking.serviceSubnet) to a valid CIDR such as 10.96.0.0/12',
    });
  }
  return formatIp(ip);
}

/** kubeadm's appendSANsToAltNames: IPs, DNS-1123 subdomains and "*." wildcards; others warned about. */
function appendSANs(b: Builder, sans: readonly string[], certName: string): void {
  for (const san of sans) {
    const ip = canonicalIp(san);
    if (ip !== undefined) b.ips.push(ip);
    else if (isDNS1123Subdomain(san) || isWildcardDNS1123Subdomain(san)) b.dns.push(san);
    else b.warnings.push(`'${san}' was not added to the '${certName}' SAN, because it is not a valid IP or RFC-1123 compliant DNS entry`);
  }
}

/** Byte-wise sort (Go's sort.Strings), de-duplicated. */
function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

function finish(b: Builder): AltNames {
  return { dnsNames: sortedUnique(b.dns), ipAddresses: [...new Set(b.ips)], warnings: b.warnings };
}

export function apiServerAltNames(cfg: ResolvedInitConfig): AltNames {
  const { networking, controlPlaneEndpoint, apiServer } = cfg.cluster;
  const b: Builder = {
    dns: [cfg.init.nodeRegistration.name, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', `kubernetes.default.svc.${networking.dnsDomain}`],
    ips: [apiServerServiceIP(networking.serviceSubnet), advertiseAddress(cfg)],
    warnings: [],
  };
  if (controlPlaneEndpoint) {
    const { host } = parseHostPort(controlPlaneEndpoint);
    const ip = canonicalIp(host);
    if (ip !== undefined) b.ips.push(ip);
    else b.dns.push(host);
  }
  appendSANs(b, apiServer.certSANs, 'apiserver');
  return finish(b);
}

/** etcd/server and etcd/peer: node name, localhost, the advertise address and loopbacks. */
export function etcdAltNames(cfg: ResolvedInitConfig, which: 'server' | 'peer'): AltNames {
  const b: Builder = { dns: [cfg.init.nodeRegistration.name, 'localhost'], ips: [advertiseAddress(cfg), '127.0.0.1', '::1'], warnings: [] };
  const etcd = cfg.cluster.etcd;
  if (etcd.mode === 'local') {
    appendSANs(b, which === 'server' ? etcd.serverCertSANs : etcd.peerCertSANs, which === 'server' ? 'etcd-server' : 'etcd-peer');
  }
  return finish(b);
}

export const NO_ALT_NAMES: AltNames = { dnsNames: [], ipAddresses: [], warnings: [] };
