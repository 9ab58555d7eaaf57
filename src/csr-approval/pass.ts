/**
 * The effects of `tsadm certs approve-kubelet-serving`: list the CSRs, look up the Node each
 * kubelet-serving request names, decide (policy.ts), and write the decision through the
 * certificates.k8s.io/v1 `approval` subresource. One pass is one list; --watch repeats passes
 * (runApprover) until it is stopped.
 *
 * The names no node may claim (reserved-names.ts) are read once per pass from the cluster's stored
 * ClusterConfiguration, and only when a request is to be decided. A pass that cannot read them
 * decides nothing and fails (fail closed): a denial would be final for those requests, while a
 * request left pending is decided by the next pass that can read them (--watch retries).
 *
 * Every value of a request that reaches a log line is escaped (src/log/escape.ts).
 *
 * The pass runs inside an optional guard (`PassGuard`): on clusters with several control planes
 * the caller wraps it in a Lease lock (kube-system), so two approvers never decide the same
 * request at once. The guard is injected; this module takes no lock of its own.
 */
import { TsadmError, errorMessage } from '../errors.js';
import { isApiError } from '../kube/errors.js';
import type { KubeApi, NodeObject } from '../kube/types.js';
import { readKubeadmConfig } from '../kube/kubeadm-config.js';
import type { Logger } from '../log/events.js';
import { quoted } from '../log/escape.js';
import { KUBELET_SERVING_SIGNER } from '../constants.js';
import { decide, isDecided, requestingNode, withDecision, type CsrObject, type Decision } from './policy.js';
import { reservedNamesOf, type ReservedName } from './reserved-names.js';

/** Runs FN while holding whatever makes this approver the only one acting (e.g. a Lease lock); undefined when it could not. */
export type PassGuard = <T>(fn: () => Promise<T>) => Promise<T | undefined>;

interface DecisionRecord {
  readonly csr: string;
  readonly node?: string;
  readonly reason: string;
  readonly message: string;
}

export interface PassSummary {
  readonly approved: readonly DecisionRecord[];
  readonly denied: readonly DecisionRecord[];
  /** kubelet-serving requests already approved, denied or failed. */
  readonly alreadyDecided: number;
  /** Requests to other signers (left alone). */
  readonly otherSigners: number;
  /** Requests whose decision could not be written (changed meanwhile, or the write failed): the next pass decides again. */
  readonly unwritten: readonly { readonly csr: string; readonly error: string }[];
  /** False when the guard did not let this pass run (another approver holds the lock). */
  readonly ran: boolean;
}

export interface PassOptions {
  readonly log: Logger;
  /** Only say what would be approved or denied (the API client is a dry-run one too). */
  readonly dryRun: boolean;
  readonly now?: () => Date;
  readonly guard?: PassGuard;
}

/** One pass over every CSR in the cluster. */
export async function approvalPass(api: KubeApi, opts: PassOptions): Promise<PassSummary> {
  const run = (): Promise<PassSummary> => decideAll(api, opts);
  if (!opts.guard) return run();
  const summary = await opts.guard(run);
  if (summary === undefined) {
    opts.log.info('another approver holds the lock; this pass changed nothing', { prefix: 'csr' });
    return { approved: [], denied: [], alreadyDecided: 0, otherSigners: 0, unwritten: [], ran: false };
  }
  return summary;
}

async function decideAll(api: KubeApi, opts: PassOptions): Promise<PassSummary> {
  const now = opts.now ?? (() => new Date());
  const csrs = await listCsrs(api);
  const approved: DecisionRecord[] = [];
  const denied: DecisionRecord[] = [];
  const unwritten: { csr: string; error: string }[] = [];
  let alreadyDecided = 0;
  let otherSigners = 0;
  // Every Node, read once per pass and only when a request is to be decided: the policy compares
  // the requester's addresses with every other Node's.
  let nodes: Promise<NodeObject[]> | undefined;
  let reserved: Promise<ReservedName[]> | undefined;
  for (const csr of csrs) {
    if (csr.spec.signerName !== KUBELET_SERVING_SIGNER) {
      otherSigners++;
      continue;
    }
    if (isDecided(csr)) {
      alreadyDecided++;
      continue;
    }
    reserved ??= readReservedNames(api);
    const reservedNames = await reserved;
    nodes ??= api.list<NodeObject>('Node', undefined);
    const all = await nodes;
    const nodeName = requestingNode(csr);
    const decision: Decision = decide(csr, all.find((n) => n.metadata.name === nodeName), all, reservedNames);
    if (decision.action === 'skip') {
      alreadyDecided++;
      continue;
    }
    const record: DecisionRecord = { csr: csr.metadata.name, ...(decision.node ? { node: decision.node } : {}), reason: decision.reason, message: decision.message };
    const verb = opts.dryRun ? `[dry-run] Would ${decision.action}` : decision.action === 'approve' ? 'Approving' : 'Denying';
    // The message is escaped by decide(); the name is the API server's, escaped all the same.
    opts.log.info(`${verb} CertificateSigningRequest ${quoted(csr.metadata.name)} (${decision.reason}): ${decision.message}`, { prefix: 'csr' });
    try {
      await api.updateSubresource(withDecision(csr, decision, now()), 'approval');
    } catch (err) {
      // Someone else decided it, or it changed: the next pass reads it again.
      const error = isApiError(err) && err.status === 409 ? 'it changed since it was read (conflict)' : errorMessage(err);
      opts.log.warn(`CertificateSigningRequest ${quoted(csr.metadata.name)}: the decision was not written: ${error}`, { prefix: 'csr' });
      unwritten.push({ csr: csr.metadata.name, error });
      continue;
    }
    (decision.action === 'approve' ? approved : denied).push(record);
  }
  return { approved, denied, alreadyDecided, otherSigners, unwritten, ran: true };
}

/**
 * The reserved names of the cluster API serves, from its kubeadm-config ConfigMap; a TsadmError
 * (the pass fails, deciding nothing) when it cannot be read.
 */
async function readReservedNames(api: KubeApi): Promise<ReservedName[]> {
  let cluster: Readonly<Record<string, unknown>>;
  try {
    cluster = (await readKubeadmConfig(api)).clusterConfiguration;
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `the cluster's ClusterConfiguration could not be read (${errorMessage(err)}), so the names no node may claim (the API server's) are unknown; no kubelet-serving request was decided`, {
      cause: err,
      hint: 'the approver needs kube-system/kubeadm-config, which kubeadm and tsadm init upload: check it with `kubectl -n kube-system get cm kubeadm-config -o yaml`',
    });
  }
  // An unreadable field throws here, with its own message: decide nothing either.
  return reservedNamesOf(cluster);
}

async function listCsrs(api: KubeApi): Promise<CsrObject[]> {
  try {
    return await api.list<CsrObject>('CertificateSigningRequest', undefined);
  } catch (err) {
    if (isApiError(err) && err.status === 404) {
      throw new TsadmError('E_API', `the API server at ${api.server} does not serve certificates.k8s.io/v1 CertificateSigningRequests`, {
        hint: 'approving kubelet serving certificates needs Kubernetes 1.19 or later',
      });
    }
    throw err;
  }
}

export interface WatchOptions extends PassOptions {
  /** Time between passes. */
  readonly intervalMs: number;
  /** Resolves when the approver should stop (SIGTERM/SIGINT in the command); checked between passes. */
  readonly stopped: Promise<void>;
  /** After a pass; the command prints its summary. */
  readonly onPass?: (summary: PassSummary) => void;
}

/**
 * --watch: a pass every intervalMs until `stopped` resolves. A pass that fails (API server
 * restarting, network gone, a control plane upgraded) is logged and the next one tries again:
 * the approver outlives its API server. Returns the number of passes.
 */
export async function runApprover(api: KubeApi, opts: WatchOptions): Promise<number> {
  let stop = false;
  void opts.stopped.then(() => { stop = true; });
  let passes = 0;
  let failing = false;
  while (!stop) {
    try {
      const summary = await approvalPass(api, opts);
      passes++;
      if (failing) opts.log.info('the API server answers again', { prefix: 'csr' });
      failing = false;
      opts.onPass?.(summary);
    } catch (err) {
      if (!failing) opts.log.warn(`a pass failed, trying again every ${Math.round(opts.intervalMs / 1000)}s: ${errorMessage(err)}`, { prefix: 'csr' });
      failing = true;
    }
    if (stop) break;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([opts.stopped, new Promise<void>((resolve) => { timer = setTimeout(resolve, opts.intervalMs); })]);
    clearTimeout(timer);
  }
  return passes;
}
