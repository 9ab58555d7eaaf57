import type { APIEndpoint, ClusterConfiguration, EnvVar, ResolvedInitConfig } from '../config/types.js';
import { parseIp } from '../net/ip.js';
import type { VersionProfile } from '../versions/table-types.js';

/**
 * What the static-pod renderers read: the cluster configuration plus this node's identity. A
 * narrow shape (not the whole init config) so join can render the same pods from its own data.
 */
export interface StaticPodConfig {
  readonly cluster: ClusterConfiguration;
  /** This node's API endpoint (advertise address and bind port). */
  readonly endpoint: APIEndpoint;
  readonly nodeName: string;
}

/**
 * Facts about the host a renderer needs, gathered beforehand by the phase (see host-facts.ts) so
 * that rendering stays a pure function.
 */
export interface HostFacts {
  /** Directories that exist on the host (kubeadm mounts some CA directories only if present). */
  readonly existingHostDirs: ReadonlySet<string>;
  /** The host's *_proxy variables, in environment order. */
  readonly proxyEnv: readonly EnvVar[];
  /** ca.crt present without ca.key: the controller-manager must not sign certificates. */
  readonly externalCA: boolean;
}

export const NO_HOST_FACTS: HostFacts = { existingHostDirs: new Set(), proxyEnv: [], externalCA: false };

export function staticPodConfigFromInit(cfg: ResolvedInitConfig): StaticPodConfig {
  return { cluster: cfg.cluster, endpoint: cfg.init.localAPIEndpoint, nodeName: cfg.init.nodeRegistration.name };
}

/** The registry for Kubernetes images: the configured one, or this minor's default. */
export function imageRepository(cluster: ClusterConfiguration, versions: VersionProfile): string {
  return cluster.imageRepository || versions.defaultImageRepository;
}

/** Go's utilsnet.IsIPv6String: an IPv6 literal that is not an IPv4-mapped address. */
export function isIPv6Address(address: string): boolean {
  return parseIp(address)?.family === 6;
}

/** The loopback address of the advertise address's family (etcd and its clients use it). */
export function loopbackFor(advertiseAddress: string): string {
  return isIPv6Address(advertiseAddress) ? '::1' : '127.0.0.1';
}

/**
 * A probe host for a bind address: kubeadm leaves it empty for the unspecified addresses
 * (0.0.0.0, ::) so the kubelet probes the pod IP (staticpod.getProbeAddress).
 */
export function probeHostFor(bindAddress: string): string {
  return bindAddress === '0.0.0.0' || bindAddress === '::' ? '' : bindAddress;
}
