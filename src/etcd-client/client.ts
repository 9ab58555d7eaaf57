import { errorMessage } from '../errors.js';
import { clientEndpoints, parseMember, parseMembers, type EtcdMember } from './members.js';
import { EtcdRequestError, postJson, type EtcdTls } from './transport.js';

/**
 * The etcd membership calls tsadm needs (kubeadm's util/etcd): list, add, remove, status, over
 * etcd's JSON gateway with mutual TLS. Every call is bounded: a per-request timeout and a fixed
 * number of retries for transient answers (no leader yet, unhealthy cluster right after a member
 * was added, connection refused while a member restarts).
 */
export interface EtcdClientOptions {
  readonly tls: EtcdTls;
  /** Per request (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** Attempts for membership changes (default 8) and the delay before the first retry (default 500 ms, doubling, at most 5 s). */
  readonly attempts?: number;
  readonly retryDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface EndpointStatus {
  readonly endpoint: string;
  readonly ok: boolean;
  readonly version?: string;
  readonly leader?: string;
  readonly memberId?: string;
  readonly error?: string;
}

/** gRPC codes worth retrying: Unavailable, DeadlineExceeded, Unknown (leader changes), Aborted. */
const RETRYABLE_CODES = new Set([14, 4, 2, 10]);

function retryable(err: unknown): boolean {
  if (!(err instanceof EtcdRequestError)) return false;
  return err.grpcCode === undefined || RETRYABLE_CODES.has(err.grpcCode);
}

export class EtcdClient {
  private eps: string[];
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(endpoints: readonly string[], private readonly opts: EtcdClientOptions) {
    this.eps = [...new Set(endpoints)];
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.attempts = opts.attempts ?? 8;
    this.retryDelayMs = opts.retryDelayMs ?? 500;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  get endpoints(): readonly string[] {
    return this.eps;
  }

  /** Adds an endpoint (a member that is about to start), so later health checks include it. */
  addEndpoint(endpoint: string): void {
    if (!this.eps.includes(endpoint)) this.eps.push(endpoint);
  }

  async memberList(): Promise<EtcdMember[]> {
    return parseMembers(await this.anyEndpoint('/v3/cluster/member/list', {}));
  }

  /** Switches to the client URLs the members advertise (etcd clientv3's Sync). */
  async sync(): Promise<EtcdMember[]> {
    const members = await this.memberList();
    const urls = clientEndpoints(members);
    if (urls.length > 0) this.eps = urls;
    return members;
  }

  /** MemberAdd; resolves the new member and the member list after the change. */
  async memberAdd(peerURL: string): Promise<{ added: EtcdMember; members: EtcdMember[] }> {
    const body = await this.withRetries(() => this.anyEndpoint('/v3/cluster/member/add', { peerURLs: [peerURL] }));
    return { added: parseMember((body as { member?: unknown }).member), members: parseMembers(body) };
  }

  /** MemberRemove by ID (decimal uint64 string); resolves the remaining members. */
  async memberRemove(id: string, avoidEndpoints: readonly string[] = []): Promise<EtcdMember[]> {
    // Ask another member when possible: a member removing itself may stop answering mid-call.
    const order = [...this.eps.filter((e) => !avoidEndpoints.includes(e)), ...this.eps.filter((e) => avoidEndpoints.includes(e))];
    const body = await this.withRetries(() => this.anyEndpoint('/v3/cluster/member/remove', { ID: id }, order));
    return parseMembers(body);
  }

  async status(endpoint: string): Promise<EndpointStatus> {
    try {
      const s = (await postJson(endpoint, '/v3/maintenance/status', {}, this.opts.tls, this.timeoutMs)) as {
        version?: string; leader?: string; header?: { member_id?: string };
      };
      return {
        endpoint, ok: true,
        ...(s.version !== undefined ? { version: s.version } : {}),
        ...(s.leader !== undefined ? { leader: String(s.leader) } : {}),
        ...(s.header?.member_id !== undefined ? { memberId: String(s.header.member_id) } : {}),
      };
    } catch (err) {
      return { endpoint, ok: false, error: errorMessage(err) };
    }
  }

  /** Status of every endpoint; healthy when all answer and agree on a leader. */
  async clusterHealth(): Promise<{ healthy: boolean; statuses: EndpointStatus[] }> {
    const statuses = await Promise.all(this.eps.map((e) => this.status(e)));
    const leaders = new Set(statuses.filter((s) => s.ok).map((s) => s.leader));
    const healthy = statuses.every((s) => s.ok) && leaders.size === 1 && !leaders.has('0') && !leaders.has(undefined);
    return { healthy, statuses };
  }

  /** kubeadm's WaitForClusterAvailable: `retries` checks `intervalMs` apart. */
  async waitForClusterAvailable(retries: number, intervalMs: number, onRetry?: (statuses: EndpointStatus[], attempt: number) => void): Promise<EndpointStatus[]> {
    let last: EndpointStatus[] = [];
    for (let attempt = 1; attempt <= retries; attempt++) {
      const { healthy, statuses } = await this.clusterHealth();
      last = statuses;
      if (healthy) return statuses;
      onRetry?.(statuses, attempt);
      if (attempt < retries) await this.sleep(intervalMs);
    }
    const bad = last.filter((s) => !s.ok).map((s) => `${s.endpoint}: ${s.error ?? 'no leader'}`);
    throw new EtcdRequestError(`timeout waiting for etcd cluster to be available${bad.length > 0 ? ` (${bad.join('; ')})` : ' (members disagree on the leader)'}`, this.eps.join(','));
  }

  /** The first endpoint that answers; the last error when none does. */
  private async anyEndpoint(path: string, body: unknown, order: readonly string[] = this.eps): Promise<unknown> {
    let last: unknown = new EtcdRequestError('no etcd endpoints', '');
    for (const endpoint of order) {
      try {
        return await postJson(endpoint, path, body, this.opts.tls, this.timeoutMs);
      } catch (err) {
        last = err;
        // An answer from etcd itself (not a transport failure) is the cluster's answer: stop here.
        if (err instanceof EtcdRequestError && err.grpcCode !== undefined && !retryable(err)) throw err;
      }
    }
    throw last;
  }

  private async withRetries<T>(fn: () => Promise<T>): Promise<T> {
    let delay = this.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= this.attempts || !retryable(err)) throw err;
        await this.sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }
}
