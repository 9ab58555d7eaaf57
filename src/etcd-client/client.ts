import { formatDuration } from '../duration.js';
import { errorMessage } from '../errors.js';
import { checkFault } from '../host/fault.js';
import { clientEndpoints, parseMember, parseMembers, type EtcdMember } from './members.js';
import { ETCD_API_CALL_RETRY_INTERVAL_MS, isMemberIDExists, isPeerURLExists, nextRetryDelay, requestBudgetMs, type EtcdRetryPolicy } from './retry.js';
import { EtcdNoAnswerError, EtcdRequestError, postJson, type EtcdTls } from './transport.js';

/**
 * The etcd membership calls tsadm needs (kubeadm's util/etcd): list, add (as a voter or as a
 * learner), promote, remove, status, over etcd's JSON gateway with mutual TLS. Every call is
 * bounded: a per-request timeout and retries for transient answers (no leader yet, unhealthy
 * cluster right after a member was added, connection refused while a member restarts) — a fixed
 * number of them, or, with `callTimeoutMs` (timeouts.etcdAPICall), every 500 ms until that much
 * time has passed, as kubeadm polls each etcd call.
 */
export interface EtcdClientOptions {
  readonly tls: EtcdTls;
  /** Per request (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** Attempts for membership changes (default 8) and the delay before the first retry (default 500 ms, doubling, at most 5 s). */
  readonly attempts?: number;
  readonly retryDelayMs?: number;
  /**
   * timeouts.etcdAPICall: when set, member list, add, promote and remove retry every
   * `pollIntervalMs` (default 500 ms, kubeadm's EtcdAPICallRetryInterval) until this much time has
   * passed, in place of the fixed number of attempts; no request outlives the bound.
   */
  readonly callTimeoutMs?: number;
  readonly pollIntervalMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
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
  private readonly policy: EtcdRetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(endpoints: readonly string[], private readonly opts: EtcdClientOptions) {
    this.eps = [...new Set(endpoints)];
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.policy = opts.callTimeoutMs !== undefined
      ? { kind: 'deadline', timeoutMs: opts.callTimeoutMs, intervalMs: opts.pollIntervalMs ?? ETCD_API_CALL_RETRY_INTERVAL_MS }
      : { kind: 'attempts', attempts: opts.attempts ?? 8, initialDelayMs: opts.retryDelayMs ?? 500, maxDelayMs: 5000 };
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.now = opts.now ?? Date.now;
  }

  get endpoints(): readonly string[] {
    return this.eps;
  }

  /** Adds an endpoint (a member that is about to start), so later health checks include it. */
  addEndpoint(endpoint: string): void {
    if (!this.eps.includes(endpoint)) this.eps.push(endpoint);
  }

  /** MemberList; retried within timeouts.etcdAPICall when the client has that bound (kubeadm's listMembers). */
  async memberList(): Promise<EtcdMember[]> {
    const list = (budgetMs: number): Promise<unknown> => this.anyEndpoint('/v3/cluster/member/list', {}, this.eps, budgetMs);
    return parseMembers(this.policy.kind === 'deadline' ? await this.withRetries(list) : await list(this.timeoutMs));
  }

  /** Switches to the client URLs the members advertise (etcd clientv3's Sync). */
  async sync(): Promise<EtcdMember[]> {
    const members = await this.memberList();
    const urls = clientEndpoints(members);
    if (urls.length > 0) this.eps = urls;
    return members;
  }

  /**
   * MemberAdd (`learner`: MemberAddAsLearner, a non-voting member); resolves the new member and the
   * member list after the change. A retry whose first try did reach etcd meets "Peer URLs already
   * exists": then the member list is the answer, as kubeadm's addMember does (1.31+). Within the
   * same second as the applied try it meets "member ID already exist" instead (etcd's member IDs
   * hash the peer URLs with the time in seconds): answered the same way when a member has this
   * peer URL, which kubeadm does not do (its retry fails there).
   */
  async memberAdd(peerURL: string, opts: { learner?: boolean } = {}): Promise<{ added: EtcdMember; members: EtcdMember[] }> {
    const body = await this.withRetries(async (budgetMs) => {
      try {
        return await this.anyEndpoint('/v3/cluster/member/add', { peerURLs: [peerURL], ...(opts.learner ? { isLearner: true } : {}) }, this.eps, budgetMs);
      } catch (err) {
        if (!isPeerURLExists(err) && !isMemberIDExists(err)) throw err;
        const listed = await this.anyEndpoint('/v3/cluster/member/list', {}, this.eps, budgetMs) as { members?: Array<{ peerURLs?: string[] }> };
        const member = listed.members?.find((m) => m.peerURLs?.includes(peerURL));
        if (member === undefined) throw err;
        return { ...listed, member };
      }
    });
    checkFault('etcd', `member add ${peerURL}`);
    return { added: parseMember((body as { member?: unknown }).member), members: parseMembers(body) };
  }

  /**
   * MemberPromote (a learner becomes a voting member), kubeadm's Client.MemberPromote: each try
   * lists the members first — gone: etcd's "member not found"; already a voter: done — then asks
   * etcd to promote; every refusal (above all "can only promote a learner member which is in sync
   * with leader", while the learner catches up) is tried again until the call's bound.
   * `onRetry` sees each refusal (kubeadm logs them at V(5)).
   */
  async memberPromote(id: string, onRetry?: (err: unknown) => void): Promise<{ promoted: boolean; members: EtcdMember[] }> {
    const call = this.newCall();
    for (let attempt = 1; ; attempt++) {
      const budgetMs = call.budgetMs();
      let members: EtcdMember[];
      try {
        members = parseMembers(await this.anyEndpoint('/v3/cluster/member/list', {}, this.eps, budgetMs));
      } catch (err) {
        if (!retryable(err)) throw err;
        await call.pauseOrGiveUp(err, attempt, budgetMs);
        continue;
      }
      const me = members.find((m) => m.id === id);
      if (!me) throw new EtcdRequestError(`etcdserver: member not found (no member with ID ${id})`, this.eps.join(','), 5);
      if (!me.isLearner) return { promoted: false, members };
      try {
        const body = await this.anyEndpoint('/v3/cluster/member/promote', { ID: id }, this.eps, budgetMs);
        checkFault('etcd', `member promote ${id}`);
        return { promoted: true, members: parseMembers(body) };
      } catch (err) {
        onRetry?.(err);
        await call.pauseOrGiveUp(err, attempt, budgetMs);
      }
    }
  }

  /** MemberRemove by ID (decimal uint64 string); resolves the remaining members. */
  async memberRemove(id: string, avoidEndpoints: readonly string[] = []): Promise<EtcdMember[]> {
    // Ask another member when possible: a member removing itself may stop answering mid-call.
    const order = [...this.eps.filter((e) => !avoidEndpoints.includes(e)), ...this.eps.filter((e) => avoidEndpoints.includes(e))];
    const body = await this.withRetries((budgetMs) => this.anyEndpoint('/v3/cluster/member/remove', { ID: id }, order, budgetMs));
    checkFault('etcd', `member remove ${id}`);
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

  /** The members whose first client URL answers a status call, asked in parallel (a member that never started has none). */
  async answering(members: readonly EtcdMember[]): Promise<EtcdMember[]> {
    const ok = await Promise.all(members.map(async (m) => m.clientURLs[0] !== undefined && (await this.status(m.clientURLs[0])).ok));
    return members.filter((_, i) => ok[i]);
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
  private async anyEndpoint(path: string, body: unknown, order: readonly string[] = this.eps, timeoutMs = this.timeoutMs): Promise<unknown> {
    let last: unknown = new EtcdRequestError('no etcd endpoints', '');
    for (const endpoint of order) {
      try {
        return await postJson(endpoint, path, body, this.opts.tls, timeoutMs);
      } catch (err) {
        last = err;
        // An answer from etcd itself (not a transport failure) is the cluster's answer: stop here.
        if (err instanceof EtcdRequestError && err.grpcCode !== undefined && !retryable(err)) throw err;
      }
    }
    throw last;
  }

  /** `fn` gets the time one request of this try may take. */
  private async withRetries<T>(fn: (budgetMs: number) => Promise<T>): Promise<T> {
    const call = this.newCall();
    for (let attempt = 1; ; attempt++) {
      const budgetMs = call.budgetMs();
      try {
        return await fn(budgetMs);
      } catch (err) {
        if (!retryable(err)) throw err;
        await call.pauseOrGiveUp(err, attempt, budgetMs);
      }
    }
  }

  /**
   * One call's tries: the time each may take, the pause before the next, and the error when it
   * gives up. That error is the last try's, except when the last try was cut short by the call's
   * deadline and got no answer at all: etcd's own last answer (a refusal, say "not in sync") says
   * what was wrong, where "no answer within 100 ms" says only that time ran out.
   */
  private newCall(): { budgetMs: () => number; pauseOrGiveUp: (err: unknown, attempt: number, budgetMs: number) => Promise<void> } {
    const started = this.now();
    let lastAnswer: EtcdRequestError | undefined;
    return {
      budgetMs: () => requestBudgetMs(this.policy, this.timeoutMs, this.now() - started),
      pauseOrGiveUp: async (err, attempt, budgetMs) => {
        const cutShortUnanswered = err instanceof EtcdNoAnswerError && budgetMs < this.timeoutMs;
        const report = cutShortUnanswered && lastAnswer ? lastAnswer : err;
        if (err instanceof EtcdRequestError && err.grpcCode !== undefined) lastAnswer = err;
        const delay = nextRetryDelay(this.policy, attempt, this.now() - started);
        if (delay === undefined) throw this.gaveUp(report);
        await this.sleep(delay);
      },
    };
  }

  /** The last error of a call that ran out of time names the bound (timeouts.etcdAPICall) that ended it. */
  private gaveUp(err: unknown): unknown {
    if (this.policy.kind !== 'deadline' || !(err instanceof EtcdRequestError)) return err;
    return new EtcdRequestError(`${err.message} (gave up after ${formatDuration(this.policy.timeoutMs)}, timeouts.etcdAPICall)`, err.endpoint, err.grpcCode);
  }
}
