import { hostname as osHostname } from 'node:os';
import type { Discovery } from '../../config/types.js';
import { EtcdClient } from '../../etcd-client/client.js';
import type { EtcdTls } from '../../etcd-client/transport.js';
import { discover, type DiscoverDeps, type JoinDiscovery } from '../../discovery/discover.js';
import { connectCri, type CriClient } from '../../host/cri-client.js';
import { localAddressTowards } from './local-address.js';
import { kubeletServing } from './tls-bootstrap.js';

/**
 * The seams of a join run beyond the host, the API (ctx.api) and the machine (ctx.system): how
 * discovery, etcd clients and the container runtime are obtained. The defaults are the real ones;
 * tests swap what they cannot provide for real.
 */
export interface JoinDeps {
  discover(d: Discovery, log: DiscoverDeps['log']): Promise<JoinDiscovery>;
  /** `callTimeoutMs`: timeouts.etcdAPICall, the bound of each etcd call's retries. */
  etcdClient(endpoints: readonly string[], tls: EtcdTls, callTimeoutMs: number): EtcdClient;
  /** The container runtime (a control-plane join pulls its images through it). */
  connectCri(socket: string): Promise<CriClient>;
  /** The machine's hostname as kubeadm sees it (lowercased). */
  hostname(): string;
  /** The local address this machine uses towards a server URL (a worker's node address). */
  localAddress(serverUrl: string): Promise<string | undefined>;
  /** How often to look for kubelet.conf while the kubelet bootstraps (kubeadm 1.20: 5 s; modern 1 s; tsadm 100 ms: a stat
   * per poll, and the join notices the kubelet's new credentials within ~100 ms; BENCHMARKS.md). */
  readonly tlsBootstrapPollMs: number;
  /** Whether the local kubelet already answers its healthz (see restartAfterLateBootstrap in kubelet-start.ts). */
  kubeletServing(): Promise<boolean>;
  /** etcd: kubeadm waits 8 × 5 s for a new member to join. */
  readonly etcdHealthChecks: { readonly retries: number; readonly intervalMs: number };
  readonly sleep: (ms: number) => Promise<void>;
}

export function realJoinDeps(overrides: Partial<JoinDeps> = {}): JoinDeps {
  return {
    discover: (d, log) => discover(d, { log }),
    etcdClient: (endpoints, tls, callTimeoutMs) => new EtcdClient(endpoints, { tls, callTimeoutMs }),
    connectCri: (socket) => connectCri(socket),
    hostname: () => osHostname().trim().toLowerCase(),
    localAddress: localAddressTowards,
    tlsBootstrapPollMs: 100,
    kubeletServing: () => kubeletServing(),
    etcdHealthChecks: { retries: 8, intervalMs: 5000 },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    ...overrides,
  };
}

