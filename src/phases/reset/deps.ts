import { hostname as osHostname } from 'node:os';
import { readAnswer } from '../../cli/confirm.js';
import { connectCri, type CriClient } from '../../host/cri-client.js';
import { EtcdClient } from '../../etcd-client/client.js';
import type { EtcdTls } from '../../etcd-client/transport.js';
import type { RetryPolicy } from '../../kube/retry.js';

/** The seams of a reset run beyond the host, the API (ctx.api) and the machine (ctx.system); the defaults are the real machine. */
export interface ResetDeps {
  /** One line of the user's answer; undefined when there is no input to read (closed stdin). */
  confirm(): Promise<string | undefined>;
  /**
   * `callTimeoutMs`: ResetConfiguration timeouts.etcdAPICall, the bound of each etcd call's
   * retries; undefined: the client's own short bound (a dry run's lookup).
   */
  etcdClient(endpoints: readonly string[], tls: EtcdTls, callTimeoutMs: number | undefined): EtcdClient;
  connectCri(endpoint: string): Promise<CriClient>;
  hostname(): string;
}

// A reset that cannot reach the API server must not hang on it: short, bounded retries.
export const RESET_RETRY: RetryPolicy = { initialDelayMs: 250, maxDelayMs: 2000, factor: 2, deadlineMs: 15_000 };

export function realResetDeps(stdin: NodeJS.ReadableStream, overrides: Partial<ResetDeps> = {}): ResetDeps {
  return {
    confirm: () => readAnswer(stdin),
    // etcd refuses to remove a member while any member joined less than 5 s ago ("unhealthy
    // cluster", strict reconfig check): retried every 500 ms within timeouts.etcdAPICall (2 min by default), as kubeadm.
    etcdClient: (endpoints, tls, callTimeoutMs) => new EtcdClient(endpoints, { tls, callTimeoutMs }),
    connectCri: (endpoint) => connectCri(endpoint),
    hostname: () => osHostname().trim().toLowerCase(),
    ...overrides,
  };
}
