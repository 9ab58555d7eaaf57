import { sha256Hex } from '../host/rooted-host.js';
import type { Host } from '../host/host.js';
import { comparableView, isSubset } from '../kube/compare.js';
import type { KindName, KubeApi, KubeObject } from '../kube/types.js';
import { modeString, type ApprovalDecision, type ApprovalPlanStep, type FileStep, type Plan, type PlanFileState, type PlanStep } from './types.js';
import type { ObjectState } from '../host/journal.js';

/**
 * "Has the machine or the cluster changed since the plan was made?" Each function returns one
 * line per difference, naming it, so apply can refuse with all of them at once.
 */

/** Pure: the file state now, in the plan's terms. */
async function currentFileState(host: Pick<Host, 'stat' | 'readFile'>, path: string): Promise<PlanFileState> {
  const st = await host.stat(path);
  if (!st) return { path, state: 'absent' };
  if (st.isDirectory) return { path, state: 'directory' };
  if (!st.isFile) return { path, state: 'other' };
  return { path, state: 'file', sha256: sha256Hex((await host.readFile(path)) ?? Buffer.alloc(0)), mode: modeString(st.mode) };
}

function describeFileChange(was: PlanFileState, now: PlanFileState): string | undefined {
  if (was.state !== now.state) return `${was.path}: was ${describe(was)} when the plan was made, is ${describe(now)} now`;
  if (was.state === 'file' && now.state === 'file') {
    if (was.sha256 !== now.sha256) return `${was.path}: content changed (sha256 ${short(was.sha256)} → ${short(now.sha256)})`;
    if (was.mode !== now.mode) return `${was.path}: mode changed (${was.mode} → ${now.mode})`;
  }
  return undefined;
}

/**
 * A file counts as unchanged when it is as the plan found it, or already as the plan leaves it
 * (an apply that stopped half-way can be run again).
 */
export async function fileDrift(host: Pick<Host, 'stat' | 'readFile'>, plan: Pick<Plan, 'preconditions' | 'steps'>): Promise<string[]> {
  const final = new Map<string, FileStep>();
  for (const s of plan.steps) if (s.type === 'file') final.set(s.path, s);
  const out: string[] = [];
  for (const was of plan.preconditions.files) {
    const now = await currentFileState(host, was.path);
    const done = final.get(was.path);
    if (done && now.state === 'file' && now.sha256 === done.sha256 && now.mode === done.mode) continue;
    const change = describeFileChange(was, now);
    if (change) out.push(change);
  }
  return out;
}

/** Objects likewise: as the plan found them (same resourceVersion, or for workloads the same generation), or already as it leaves them. */
export async function objectDrift(api: Pick<KubeApi, 'get'>, objects: readonly ObjectState[], steps: readonly PlanStep[] = []): Promise<string[]> {
  const out: string[] = [];
  for (const o of objects) {
    const live = await api.get(o.kind as KindName, o.name, o.namespace);
    const rv = live?.metadata.resourceVersion ?? null;
    if (rv === o.resourceVersion) continue;
    if (o.generation !== undefined && live && (live.metadata as { generation?: number }).generation === o.generation) continue;
    const planned = lastWrite(steps, o);
    if (live && planned && isSubset(comparableView(planned as KubeObject), live)) continue;
    const approval = plannedApproval(steps, o);
    if (live && approval && hasDecision(live, approval.decision)) continue;
    const what = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
    if (o.resourceVersion === null) out.push(`${what}: did not exist when the plan was made, exists now (resourceVersion ${rv})`);
    else if (rv === null) out.push(`${what}: existed when the plan was made (resourceVersion ${o.resourceVersion}), is gone now`);
    else out.push(`${what}: changed since the plan was made (resourceVersion ${o.resourceVersion} → ${rv})`);
  }
  return out;
}

/** Pure: the plan's own consistency (each file's bytes match its sha256), so a damaged plan never half-applies. */
export function integrityProblems(plan: Plan): string[] {
  const out: string[] = [];
  for (const s of plan.steps) {
    if (s.type !== 'file') continue;
    const content = stepContent(s);
    if (!content) out.push(`${s.path}: the plan has no content for it (made with --plan-without-keys?)`);
    else if (sha256Hex(content) !== s.sha256) out.push(`${s.path}: its content does not match its sha256 (the plan was edited or damaged)`);
  }
  return out;
}

export function stepContent(s: FileStep): Buffer | undefined {
  if (s.text !== undefined) return Buffer.from(s.text, 'utf8');
  if (s.base64 !== undefined) return Buffer.from(s.base64, 'base64');
  return undefined;
}

function lastWrite(steps: readonly PlanStep[], o: ObjectState): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  for (const s of steps) {
    if (s.type === 'object' && (s.verb === 'create' || s.verb === 'update') && s.kubeconfig === o.kubeconfig && s.kind === o.kind && s.name === o.name && (s.namespace ?? '') === (o.namespace ?? '')) {
      found = s.object;
    }
  }
  return found;
}

function plannedApproval(steps: readonly PlanStep[], o: ObjectState): ApprovalPlanStep | undefined {
  return steps.find((s): s is ApprovalPlanStep => s.type === 'object' && s.verb === 'approval' && s.kubeconfig === o.kubeconfig && s.kind === o.kind && s.name === o.name);
}

/** Whether OBJ already carries the planned condition (same type and reason): an earlier apply of the plan wrote it. */
export function hasDecision(obj: KubeObject, decision: ApprovalDecision): boolean {
  const conditions = (obj as { status?: { conditions?: readonly { type?: string; reason?: string }[] } }).status?.conditions ?? [];
  return conditions.some((c) => c.type === decision.type && c.reason === decision.reason);
}

function describe(s: PlanFileState): string {
  return s.state === 'file' ? `a file (sha256 ${short(s.sha256)}, mode ${s.mode})` : s.state === 'other' ? 'not a regular file' : s.state;
}

function short(sha: string): string {
  return `${sha.slice(0, 12)}…`;
}
