import { createHash } from 'node:crypto';
import type { FileKind } from '../host/host.js';
import type { KubeObject } from '../kube/types.js';
import { diffNode, diffObject, nodeView } from './diff.js';
import type { FileState, JournalStep, PlanJournal } from '../host/journal.js';
import {
  NOTE_NO_SECRETS, NOTE_WITH_KEYS, NOTE_WITHOUT_KEYS, PLAN_API_VERSION, PLAN_KIND, modeString,
  type ApprovalDecision, type FileStep, type Plan, type PlanFileState, type PlanStep,
} from './types.js';
import { isPlainObject } from '../util/plain-object.js';

export interface PlanMeta {
  readonly command: string;
  readonly phases: readonly string[];
  readonly rootfs: string;
  readonly createdAt: Date;
  readonly tsadmVersion: string;
  /** The command's result data (join commands, …). */
  readonly result?: Readonly<Record<string, unknown>>;
  /** How long apply waits for an API server the plan itself brings up (default 4 min, kubeadm's). */
  readonly apiWaitSeconds?: number;
}

/** Files whose content is a secret: private keys, and kubeconfigs (they embed client keys or tokens). */
const SECRET_FILE_KINDS: ReadonlySet<FileKind> = new Set(['private-key', 'kubeconfig', 'other']);

/**
 * Pure: a plan from what a dry run recorded. With `keys: false` every secret (private keys,
 * kubeconfigs, Secret values, the join commands with their token) is replaced by its sha256, so
 * the plan can be reviewed and shared but not applied.
 */
export function buildPlan(journal: PlanJournal, meta: PlanMeta, opts: { keys: boolean }): Plan {
  const keys = opts.keys;
  const steps: PlanStep[] = [];
  const waited = new Set<string>();
  for (const step of journal.steps) {
    if (step.type === 'object') {
      const cluster = journal.clusters.get(step.kubeconfig);
      // A plan made before the cluster exists brings the API server up itself (static pods and
      // the kubelet): apply waits for it before the first API write, as init's wait-control-plane does.
      if (cluster && !cluster.reachable && !waited.has(step.kubeconfig)) {
        waited.add(step.kubeconfig);
        steps.push({
          ...phaseOf(step), type: 'wait', for: 'api-server', kubeconfig: step.kubeconfig, server: cluster.server, timeoutSeconds: meta.apiWaitSeconds ?? 240,
        });
      }
    }
    const planned = toPlanStep(step, keys);
    // A Node patch that only reorders (e.g. taints) changes nothing a replay would change.
    if (planned.type === 'object' && planned.verb === 'patch' && planned.diff.length === 0) continue;
    steps.push(planned);
  }
  // What a review copy would redact is exactly the key material: a plan with none says so
  // (a renewal, a snapshot, an approver pass), rather than warning of keys it does not hold.
  const secrets = resultHoldsSecrets(meta.result) || journal.steps.some((s) => JSON.stringify(toPlanStep(s, false)) !== JSON.stringify(toPlanStep(s, true)));
  return {
    note: keys ? (secrets ? NOTE_WITH_KEYS : NOTE_NO_SECRETS) : NOTE_WITHOUT_KEYS,
    apiVersion: PLAN_API_VERSION,
    kind: PLAN_KIND,
    keyMaterial: keys,
    createdAt: meta.createdAt.toISOString(),
    tsadmVersion: meta.tsadmVersion,
    command: meta.command,
    phases: [...meta.phases],
    rootfs: meta.rootfs,
    preconditions: {
      files: [...journal.files].map(([path, s]) => fileState(path, s)).sort((a, b) => a.path.localeCompare(b.path)),
      clusters: [...journal.clusters.values()].map((c) => ({ kubeconfig: c.kubeconfig, server: c.server, reachable: c.reachable })),
      objects: [...journal.objects.values()].map((o) => ({ ...o })),
    },
    steps,
    ...(keys && meta.result ? { result: { ...meta.result } } : {}),
  };
}

/** A bootstrap token (kubeadm's format), anywhere in a string. */
const TOKEN = /(?<![a-z0-9])[a-z0-9]{6}\.[a-z0-9]{16}(?![a-z0-9])/;
/** Result fields that carry, or may carry, a credential (join commands, tokens, certificate keys). */
const SECRET_FIELD = /key|token|secret|password|join|kubeconfig/i;

/**
 * Whether a command's result (kept in the plan only with keys) holds a credential: a field named
 * like one, or a bootstrap token anywhere. Errs towards "yes": the cost is only the stronger note.
 */
function resultHoldsSecrets(value: unknown, field = ''): boolean {
  if (typeof value === 'string') return TOKEN.test(value) || (value !== '' && SECRET_FIELD.test(field));
  if (Array.isArray(value)) return value.some((v) => resultHoldsSecrets(v, field));
  if (isPlainObject(value)) return Object.entries(value).some(([k, v]) => resultHoldsSecrets(v, SECRET_FIELD.test(field) ? field : k));
  return false;
}

function toPlanStep(step: JournalStep, keys: boolean): PlanStep {
  const phase = phaseOf(step);
  switch (step.type) {
    case 'file': {
      const redact = !keys && SECRET_FILE_KINDS.has(step.kind);
      const base: FileStep = {
        ...phase, type: 'file', path: step.path, mode: modeString(step.mode), kind: step.kind, description: step.description,
        size: step.content.length, sha256: step.sha256, unchanged: step.unchanged,
      };
      if (redact) return { ...base, redacted: true };
      return isText(step.content) ? { ...base, text: step.content.toString('utf8') } : { ...base, base64: step.content.toString('base64') };
    }
    case 'mkdir':
      return { ...phase, type: 'mkdir', path: step.path, mode: modeString(step.mode) };
    case 'remove':
      return { ...phase, type: 'remove', path: step.path };
    case 'symlink':
      return { ...phase, type: 'symlink', path: step.path, target: step.target };
    case 'exec':
      return { ...phase, type: 'exec', command: step.command, args: [...step.args] };
    case 'wait-static-pod': {
      const { type: _type, phase: _phase, ...rest } = step;
      return { ...phaseOf(step), type: 'wait', for: 'static-pod', ...rest };
    }
    case 'service':
      return { ...phase, type: 'service', action: step.action, unit: step.unit };
    case 'etcd-snapshot':
      return { ...phase, type: 'etcd-snapshot', path: step.path, mode: '0600', endpoint: step.endpoint, certDir: step.certDir };
    case 'etcd-snapshot-restore': {
      const { phase: _phase, ...rest } = step;
      return { ...phase, ...rest };
    }
    case 'certs-rotate-ca-node': {
      const { phase: _phase, ...rest } = step;
      return { ...phase, ...rest };
    }
    case 'certs-renew-auto': {
      const { phase: _phase, ...rest } = step;
      return { ...phase, ...rest, due: [...step.due], pending: [...step.pending] };
    }
    case 'object': {
      if (step.verb === 'patch') {
        const before = nodeView(step.before);
        const after = nodeView(step.after);
        return { ...phase, type: 'object', verb: 'patch', kubeconfig: step.kubeconfig, kind: 'Node', name: step.name, before, after, diff: diffNode(before, after) };
      }
      if (step.verb === 'delete') {
        return { ...phase, type: 'object', verb: 'delete', kubeconfig: step.kubeconfig, kind: step.kind, ...ns(step.namespace), name: step.name };
      }
      if (step.verb === 'approval') {
        return {
          ...phase, type: 'object', verb: 'approval', kubeconfig: step.kubeconfig, kind: step.object.kind, name: step.object.metadata.name,
          decision: addedCondition(step.object), object: { ...step.object },
        };
      }
      const obj = step.object;
      const mask = (path: string, v: unknown): unknown => (!keys && obj.kind === 'Secret' && /^\/(data|stringData)(\/|$)/.test(path) ? hashValues(v) : v);
      return {
        ...phase, type: 'object', verb: step.verb, kubeconfig: step.kubeconfig, kind: obj.kind, ...ns(obj.metadata.namespace), name: obj.metadata.name,
        ...(step.verb === 'update' && step.existing ? { diff: diffObject(step.existing, obj, mask) } : {}),
        object: keys ? { ...obj } : redactObject(obj),
        ...(step.placeholderUid ? { placeholderUid: step.placeholderUid } : {}),
      };
    }
  }
}

/** The condition an approval write adds: the last one of the object's status.conditions. */
function addedCondition(obj: KubeObject): ApprovalDecision {
  const conditions = (obj as { status?: { conditions?: readonly Partial<ApprovalDecision>[] } }).status?.conditions ?? [];
  const last = conditions[conditions.length - 1] ?? {};
  return { type: last.type ?? '', reason: last.reason ?? '', message: last.message ?? '' };
}

function phaseOf(step: { readonly phase?: string }): { phase?: string } {
  return step.phase !== undefined ? { phase: step.phase } : {};
}

function ns(namespace: string | undefined): { namespace?: string } {
  return namespace ? { namespace } : {};
}

function fileState(path: string, s: FileState): PlanFileState {
  return s.state === 'file' ? { path, state: 'file', sha256: s.sha256, mode: modeString(s.mode) } : { path, state: s.state };
}

/** Secret values become "sha256:<hex>" of their decoded bytes (stable, and still comparable). */
function redactObject(obj: KubeObject): Record<string, unknown> {
  if (obj.kind !== 'Secret') return { ...obj };
  const out: Record<string, unknown> = { ...obj };
  for (const field of ['data', 'stringData']) if (out[field] !== undefined) out[field] = hashValues(out[field]);
  return out;
}

function hashValues(v: unknown): unknown {
  if (typeof v === 'string') return `sha256:${createHash('sha256').update(v).digest('hex')}`;
  if (isPlainObject(v)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hashValues(x)]));
  }
  return v;
}

/** UTF-8 without control characters other than tab, newline and carriage return. */
function isText(b: Buffer): boolean {
  const s = b.toString('utf8');
  // eslint-disable-next-line no-control-regex -- matching control characters is the point of this check
  return Buffer.from(s, 'utf8').equals(b) && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(s);
}
