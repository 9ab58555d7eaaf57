/**
 * The state of a CA rotation and its transitions, pure (docs/certs.md, "Rotating the cluster's
 * CAs"). It lives in the cluster (ConfigMap kube-system/tsadm-rotate-ca, encoded by
 * encodeState/decodeState) so that every node sees the same step: `start` writes it, each
 * `node` run marks its node done at the current step, and the run that finds every node done moves
 * the rotation on (after the cluster-wide actions of the step it closes). Only public material is
 * in it: CA certificates and service-account public keys; never a private key.
 */
import { TsadmError } from '../../errors.js';

/** What `--ca` names: three CAs and the service-account key pair. */
export const ROTATABLE = ['cluster', 'front-proxy', 'etcd', 'service-account'] as const;
export type Rotated = (typeof ROTATABLE)[number];

/** The three steps of the manual procedure, in order. */
const STEPS = ['trust-both', 'sign-new', 'trust-new'] as const;
type Step = (typeof STEPS)[number];

/**
 * Where the rotation is: one of its steps, `rollback` (an abort in progress: every node goes back
 * to trusting the old CA alone), or finished one way or the other.
 */
export type Phase = Step | 'rollback' | 'complete' | 'aborted';
/** A step a node performs: the three, or the rollback of an abort. */
export type NodeStep = Step | 'rollback';

export type NodeRole = 'control-plane' | 'worker';

interface NodeRecord {
  readonly role: NodeRole;
  /** The last node step this node finished (files written and what reads them restarted). */
  readonly done?: NodeStep;
  readonly doneAt?: string;
  /** A node step this node began changing files for and has not finished (a kill midway). */
  readonly started?: NodeStep;
}

/** Old and new public material of one rotated item, PEM. */
export interface Material {
  readonly old: string;
  readonly new: string;
  /** "sha256:…" of the new CA's public key (the join hash); absent for service-account. */
  readonly newHash?: string;
}

export interface RotationState {
  /** Random, names the rotation's backups and its key hand-off. */
  readonly id: string;
  readonly startedAt: string;
  /** The node `start` ran on: it holds the new private keys first. */
  readonly startedOn: string;
  readonly items: Readonly<Partial<Record<Rotated, Material>>>;
  readonly phase: Phase;
  readonly phaseSince: string;
  /** Seconds the old service-account key is still trusted after every node signs with the new one. */
  readonly saGraceSeconds: number;
  readonly nodes: Readonly<Record<string, NodeRecord>>;
}

const NEXT: Readonly<Record<Step | 'rollback', Phase>> = {
  'trust-both': 'sign-new',
  'sign-new': 'trust-new',
  'trust-new': 'complete',
  rollback: 'aborted',
};

/** What the node that closes a step does to the cluster's objects before the rotation moves on. */
export type ClusterAction =
  /** cluster-info (kube-public) carries this trust: both CAs, the new alone, the old alone. */
  | { readonly kind: 'cluster-info'; readonly trust: 'both' | 'new' | 'old' }
  /** Wait until the controller-manager has published the current root CA file (kube-root-ca.crt, token Secrets' ca.crt). */
  | { readonly kind: 'wait-root-ca-published' }
  /** Roll the kube-system workloads that read the CA only at start (kube-proxy, CoreDNS). */
  | { readonly kind: 'restart-addons' }
  /** Empty the token of legacy service-account token Secrets signed by the old key: the tokens controller signs them anew. */
  | { readonly kind: 'reissue-legacy-sa-tokens' }
  /** Delete kubeadm-certs (uploaded old CAs for joins) and this rotation's key hand-off Secret. */
  | { readonly kind: 'delete-key-secrets' };

export interface StartInput {
  readonly id: string;
  readonly now: Date;
  readonly startedOn: string;
  readonly items: Readonly<Partial<Record<Rotated, Material>>>;
  readonly nodes: Readonly<Record<string, NodeRole>>;
  readonly saGraceSeconds: number;
}

/** A new rotation, refused while another one is under way. */
export function startRotation(existing: RotationState | undefined, input: StartInput): RotationState {
  if (existing && !isFinished(existing)) {
    throw new TsadmError('E_CONFLICT', `a CA rotation (${existing.id}, started ${existing.startedAt} on ${existing.startedOn}) is at ${existing.phase}`, {
      hint: 'finish it with "tsadm certs rotate-ca node" on every node, or "tsadm certs rotate-ca abort" while it allows it',
    });
  }
  if (Object.keys(input.items).length === 0) throw new TsadmError('E_USAGE', 'nothing to rotate', { hint: 'give --ca cluster,front-proxy,etcd,service-account or all' });
  if (!Object.values(input.nodes).includes('control-plane')) throw new TsadmError('E_PRECONDITION', 'the cluster has no control-plane Node', { hint: 'run start on a control plane of a running cluster' });
  const nodes: Record<string, NodeRecord> = {};
  for (const [name, role] of Object.entries(input.nodes)) nodes[name] = { role };
  return {
    id: input.id,
    startedAt: input.now.toISOString(),
    startedOn: input.startedOn,
    items: input.items,
    phase: 'trust-both',
    phaseSince: input.now.toISOString(),
    saGraceSeconds: input.saGraceSeconds,
    nodes,
  };
}

function isFinished(s: RotationState): boolean {
  return s.phase === 'complete' || s.phase === 'aborted';
}

/** The node step a node performs while the rotation is in PHASE (none once finished). */
export function nodeStepOf(phase: Phase): NodeStep | undefined {
  return phase === 'complete' || phase === 'aborted' ? undefined : phase;
}

function record(s: RotationState, node: string): NodeRecord {
  const r = s.nodes[node];
  if (!r) {
    throw new TsadmError('E_PRECONDITION', `node ${node} is not part of CA rotation ${s.id} (it was not a Node when the rotation started)`, {
      hint: 'a node that joined during the rotation must be reset and joined again once the rotation is complete',
    });
  }
  return r;
}

/**
 * Why NODE may not perform the current step yet, or undefined when it may. In sign-new the
 * control planes go first: a worker's kubelet gets its new client certificate from a
 * controller-manager, which signs with the new CA only once its control plane is at sign-new.
 */
export function nodeMayRun(s: RotationState, node: string): string | undefined {
  const r = record(s, node);
  const step = nodeStepOf(s.phase);
  if (!step) return `the rotation is ${s.phase}`;
  if (step === 'sign-new' && r.role === 'worker') {
    const waiting = controlPlanes(s).filter((n) => s.nodes[n]?.done !== 'sign-new');
    if (waiting.length > 0) return `control planes sign with the new CA first; still to do: ${waiting.join(', ')}`;
  }
  return undefined;
}

/** NODE begins the current step (recorded before any file changes, so abort knows). */
export function markStarted(s: RotationState, node: string): RotationState {
  const r = record(s, node);
  const step = nodeStepOf(s.phase);
  if (!step || r.done === step) return s;
  return { ...s, nodes: { ...s.nodes, [node]: { ...r, started: step } } };
}

/** NODE finished the current step. */
export function markDone(s: RotationState, node: string, now: Date): RotationState {
  const r = record(s, node);
  const step = nodeStepOf(s.phase);
  if (!step) return s;
  const { started: _started, ...rest } = r;
  return { ...s, nodes: { ...s.nodes, [node]: { ...rest, done: step, doneAt: now.toISOString() } } };
}

/** Nodes still to perform the current step, control planes first, each group by name. */
function pendingNodes(s: RotationState): string[] {
  const step = nodeStepOf(s.phase);
  if (!step) return [];
  const pending = Object.keys(s.nodes).filter((n) => s.nodes[n]?.done !== step);
  const rank = (n: string): number => (s.nodes[n]?.role === 'control-plane' ? 0 : 1);
  return pending.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function controlPlanes(s: RotationState): string[] {
  return Object.keys(s.nodes).filter((n) => s.nodes[n]?.role === 'control-plane').sort();
}

/** When the last node finished the current step (undefined while some are left). */
function stepDoneAt(s: RotationState): Date | undefined {
  if (pendingNodes(s).length > 0) return undefined;
  const times = Object.values(s.nodes).map((r) => Date.parse(r.doneAt ?? s.phaseSince));
  return new Date(Math.max(...times));
}

export type AdvanceCheck =
  | { readonly ready: true; readonly next: Phase; readonly actions: readonly ClusterAction[] }
  | { readonly ready: false; readonly reason: string; readonly notBefore?: Date };

/**
 * Whether the rotation can leave its current phase: every node has done the step and, leaving
 * sign-new with the service-account key rotated, the old key's grace is over (tokens signed with
 * it are still presented until the kubelet has refreshed them). With the cluster-wide actions the
 * advancing node performs first.
 */
export function advanceCheck(s: RotationState, now: Date): AdvanceCheck {
  const step = nodeStepOf(s.phase);
  if (!step) return { ready: false, reason: `the rotation is ${s.phase}` };
  const pending = pendingNodes(s);
  if (pending.length > 0) return { ready: false, reason: `${step} is still to do on ${pending.join(', ')}` };
  if (step === 'sign-new' && s.items['service-account']) {
    const notBefore = new Date((stepDoneAt(s)?.getTime() ?? now.getTime()) + s.saGraceSeconds * 1000);
    if (now < notBefore) {
      return { ready: false, reason: `tokens signed with the old service-account key stay trusted until ${notBefore.toISOString()}`, notBefore };
    }
  }
  return { ready: true, next: NEXT[step], actions: actionsClosing(s, step) };
}

function actionsClosing(s: RotationState, step: NodeStep): ClusterAction[] {
  const cluster = s.items.cluster !== undefined;
  const sa = s.items['service-account'] !== undefined;
  switch (step) {
    case 'trust-both':
      // Pods must trust both before anything serves a certificate of the new CA.
      return [...(cluster ? [{ kind: 'cluster-info', trust: 'both' } as const, { kind: 'wait-root-ca-published' } as const, { kind: 'restart-addons' } as const] : []), { kind: 'delete-key-secrets' }];
    case 'sign-new':
      return sa ? [{ kind: 'reissue-legacy-sa-tokens' }] : [];
    case 'trust-new':
      return cluster ? [{ kind: 'cluster-info', trust: 'new' }, { kind: 'wait-root-ca-published' }, { kind: 'restart-addons' }] : [];
    case 'rollback':
      return [...(cluster ? [{ kind: 'cluster-info', trust: 'old' } as const, { kind: 'wait-root-ca-published' } as const, { kind: 'restart-addons' } as const] : []), { kind: 'delete-key-secrets' }];
  }
}

/** Moves the rotation on (after advanceCheck said ready and its actions were done). */
export function advance(s: RotationState, now: Date): RotationState {
  const check = advanceCheck(s, now);
  if (!check.ready) throw new TsadmError('E_PRECONDITION', `the rotation cannot move on: ${check.reason}`);
  return { ...s, phase: check.next, phaseSince: now.toISOString() };
}

export type AbortCheck = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/**
 * Abort goes back to the old CA alone. It is possible as long as nothing was signed with a new
 * key: during trust-both, and during sign-new before any node began it. From then on leaves,
 * kubelet client certificates and tokens of the new CA exist and the old keys are no longer the
 * ones in use; going back would be a second rotation, so the way out is forward.
 */
export function abortCheck(s: RotationState): AbortCheck {
  switch (s.phase) {
    case 'trust-both':
      return { allowed: true };
    case 'sign-new': {
      const begun = Object.keys(s.nodes).filter((n) => s.nodes[n]?.done === 'sign-new' || s.nodes[n]?.started === 'sign-new').sort();
      return begun.length === 0
        ? { allowed: true }
        : { allowed: false, reason: `${begun.join(', ')} already ${begun.length === 1 ? 'signs' : 'sign'} with the new CA (sign-new begun); finish the rotation with "tsadm certs rotate-ca node" on every node` };
    }
    case 'trust-new':
      return { allowed: false, reason: 'the old CA is being removed (trust-new); finish the rotation with "tsadm certs rotate-ca node" on every node' };
    case 'rollback':
      return { allowed: false, reason: 'the rotation is already being aborted; run "tsadm certs rotate-ca node" on every node' };
    case 'complete':
      return { allowed: false, reason: 'the rotation is complete; start a new one to change the CAs again' };
    case 'aborted':
      return { allowed: false, reason: 'the rotation was aborted already' };
  }
}

/** The rotation turned into its rollback; every node runs `node` once more. */
export function abortRotation(s: RotationState, now: Date): RotationState {
  const check = abortCheck(s);
  if (!check.allowed) throw new TsadmError('E_PRECONDITION', `the rotation cannot be aborted: ${check.reason}`);
  const nodes: Record<string, NodeRecord> = {};
  for (const [name, r] of Object.entries(s.nodes)) nodes[name] = { role: r.role };
  return { ...s, phase: 'rollback', phaseSince: now.toISOString(), nodes };
}

/** Exit status of `status` while the rotation is not complete (1–3 stay failures of the command itself). */
export const EXIT_ROTATION_PENDING = 4;

export interface StatusReport {
  readonly id: string;
  readonly phase: Phase;
  readonly rotated: readonly Rotated[];
  readonly nodes: readonly { readonly name: string; readonly role: NodeRole; readonly done: NodeStep | null; readonly started: NodeStep | null }[];
  /** What to run where next, one instruction a line. */
  readonly next: readonly string[];
  readonly abort: AbortCheck;
  readonly exitCode: number;
}

/** What `status` shows; exit 0 only once complete. */
export function statusOf(s: RotationState, now: Date): StatusReport {
  const nodes = Object.keys(s.nodes).sort().map((name) => {
    const r = s.nodes[name] as NodeRecord;
    return { name, role: r.role, done: r.done ?? null, started: r.started ?? null };
  });
  return {
    id: s.id,
    phase: s.phase,
    rotated: ROTATABLE.filter((r) => s.items[r] !== undefined),
    nodes,
    next: nextSteps(s, now),
    abort: abortCheck(s),
    exitCode: s.phase === 'complete' ? 0 : EXIT_ROTATION_PENDING,
  };
}

function nextSteps(s: RotationState, now: Date): string[] {
  if (s.phase === 'complete') return [];
  if (s.phase === 'aborted') return ['nothing: the rotation was aborted and every node trusts the old CA alone; "tsadm certs rotate-ca start" begins a new one'];
  const pending = pendingNodes(s);
  if (pending.length === 0) {
    const check = advanceCheck(s, now);
    if (!check.ready) return [`wait: ${check.reason}, then run "tsadm certs rotate-ca node" on any node`];
    return [`run "tsadm certs rotate-ca node" on any node: every node is done with ${s.phase}, and that run moves the rotation on`];
  }
  const runnable = pending.filter((n) => nodeMayRun(s, n) === undefined);
  const lines = runnable.map((n) => `run "tsadm certs rotate-ca node" on ${n} (${s.nodes[n]?.role}${s.nodes[n]?.started ? `, interrupted during ${s.nodes[n]?.started}: run it again` : ''})`);
  const waiting = pending.filter((n) => !runnable.includes(n));
  if (waiting.length > 0) lines.push(`then on ${waiting.join(', ')} (${nodeMayRun(s, waiting[0] as string)})`);
  return lines;
}

/** The ConfigMap holding the state, and its one key. */
export const STATE_CONFIGMAP = 'tsadm-rotate-ca';
export const STATE_KEY = 'state.json';

export function encodeState(s: RotationState): string {
  return `${JSON.stringify(s, null, 2)}\n`;
}

const PHASES: readonly Phase[] = [...STEPS, 'rollback', 'complete', 'aborted'];

/** The state read back, checked field by field: a hand-edited or damaged ConfigMap is refused, not guessed at. */
export function decodeState(text: string): RotationState {
  const bad = (what: string): TsadmError => new TsadmError('E_CONFLICT', `ConfigMap kube-system/${STATE_CONFIGMAP}: ${what}`, { hint: 'restore it from "tsadm certs rotate-ca status -o json" output of an earlier run, or delete it only if no node has changed files' });
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad('not JSON');
  }
  const o = v as Record<string, unknown>;
  if (typeof v !== 'object' || v === null) throw bad('not an object');
  for (const k of ['id', 'startedAt', 'startedOn', 'phaseSince']) if (typeof o[k] !== 'string') throw bad(`${k} is not a string`);
  if (!PHASES.includes(o.phase as Phase)) throw bad(`unknown phase ${JSON.stringify(o.phase)}`);
  if (typeof o.saGraceSeconds !== 'number' || o.saGraceSeconds < 0) throw bad('saGraceSeconds is not a number of seconds');
  const items = o.items as Record<string, unknown>;
  if (typeof items !== 'object' || items === null) throw bad('items is missing');
  for (const [k, m] of Object.entries(items)) {
    if (!(ROTATABLE as readonly string[]).includes(k)) throw bad(`unknown item ${k}`);
    const mm = m as Record<string, unknown>;
    if (typeof mm.old !== 'string' || typeof mm.new !== 'string') throw bad(`item ${k} lacks its old or new PEM`);
  }
  const nodes = o.nodes as Record<string, unknown>;
  if (typeof nodes !== 'object' || nodes === null) throw bad('nodes is missing');
  const steps: readonly string[] = [...STEPS, 'rollback'];
  for (const [n, r] of Object.entries(nodes)) {
    const rr = r as Record<string, unknown>;
    if (rr.role !== 'control-plane' && rr.role !== 'worker') throw bad(`node ${n} has no role`);
    if (rr.done !== undefined && !steps.includes(rr.done as string)) throw bad(`node ${n} has an unknown step ${JSON.stringify(rr.done)}`);
    if (rr.started !== undefined && !steps.includes(rr.started as string)) throw bad(`node ${n} has an unknown step ${JSON.stringify(rr.started)}`);
  }
  return v as RotationState;
}

/** `--ca a,b` or `all`, in the canonical order. */
export function parseRotated(text: string): Rotated[] {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.includes('all')) return [...ROTATABLE];
  for (const p of parts) {
    if (!(ROTATABLE as readonly string[]).includes(p)) throw new TsadmError('E_USAGE', `--ca: unknown "${p}"`, { hint: `use all, or a comma-separated list of ${ROTATABLE.join(', ')}` });
  }
  if (parts.length === 0) throw new TsadmError('E_USAGE', '--ca is empty', { hint: `use all, or a comma-separated list of ${ROTATABLE.join(', ')}` });
  return ROTATABLE.filter((r) => parts.includes(r));
}
