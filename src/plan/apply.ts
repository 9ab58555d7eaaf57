import { TsadmError, errorMessage } from '../errors.js';
import type { FileKind, Host } from '../host/host.js';
import { comparableView, isSubset } from '../kube/compare.js';
import { isAlreadyExists } from '../kube/errors.js';
import type { KindName, KubeApi, KubeObject } from '../kube/types.js';
import type { PhaseLogger } from '../log/logger.js';
import { nodePatchConflicts, nodeView, replayNodePatch } from './diff.js';
import { fileDrift, hasDecision, integrityProblems, objectDrift, stepContent } from './drift.js';
import { hashesBeforeApply, waitForStaticPod, type StaticPodWaitDeps } from './static-pod-wait.js';
import { liveApprovalProblem } from './trust.js';
import { etcdTlsFromDir } from '../etcd-client/urls.js';
import { saveSnapshot } from '../etcd-snapshot/save.js';
import { parseMode, type CertsRenewAutoStep, type CertsRotateCaNodeStep, type EtcdSnapshotRestoreStep, type Plan, type PlanStep } from './types.js';
import type { HealthCheck } from '../health/http-check.js';

export interface ApplyDeps {
  /** The machine (a RootedHost, honouring --rootfs). */
  readonly host: Host;
  readonly log: PhaseLogger;
  /** Opens the API through a kubeconfig read from the host; `quick`: no retries (used by the checks). */
  openApi(kubeconfig: string, quick: boolean): Promise<KubeApi>;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  /** Health probes of upgraded static Pods (tests answer them; the real HTTP check by default). */
  readonly healthCheck?: HealthCheck;
  /** Runs `certs renew --auto` for a plan's renewal step (the command layer's runtime does it). */
  readonly renewAuto?: (step: CertsRenewAutoStep) => Promise<void>;
  /** Runs a planned `certs rotate-ca node` (src/commands/apply.ts gives it; this layer knows no rotation). */
  readonly rotateCaNode?: (step: CertsRotateCaNodeStep) => Promise<void>;
  /** Runs `etcd snapshot restore` for a plan's restore step (the machine's CRI and etcd, as the command reaches them). */
  readonly restore?: (step: EtcdSnapshotRestoreStep) => Promise<void>;
}

export interface ApplySummary {
  readonly steps: number;
  readonly applied: boolean;
}

const NODE_TIMEOUT_MS = 4 * 60_000;

/**
 * `tsadm apply`: checks that the plan is whole and that nothing it depends on changed (every
 * file it read or writes has the sha256 and mode it had; every object it read has the same
 * resourceVersion), refusing with the list of differences; then runs the steps in order. With
 * `checkOnly`, stops after the checks.
 */
export async function applyPlan(plan: Plan, deps: ApplyDeps, opts: { checkOnly: boolean }): Promise<ApplySummary> {
  const { log } = deps;
  if (!plan.keyMaterial) {
    throw new TsadmError('E_PRECONDITION', 'this plan was made with --plan-without-keys: it is a review copy and cannot be applied', {
      hint: 'make the plan again without --plan-without-keys (it then holds the keys and is written 0600)',
    });
  }
  const broken = integrityProblems(plan);
  if (broken.length > 0) throw new TsadmError('E_CONFIG_INVALID', `the plan is damaged (${broken.length} problem${broken.length > 1 ? 's' : ''})`, { details: broken, hint: 'make a new plan' });

  const apis = new Map<string, KubeApi>();
  const deferred = new Set<string>();
  const differences = [...(await fileDrift(deps.host, plan))];
  for (const cluster of plan.preconditions.clusters) {
    const objects = plan.preconditions.objects.filter((o) => o.kubeconfig === cluster.kubeconfig);
    const api = await deps.openApi(cluster.kubeconfig, true).catch(() => undefined);
    const up = api ? await api.healthz() : false;
    if (!up) {
      api?.close();
      if (cluster.reachable) differences.push(`the cluster at ${cluster.server} (${cluster.kubeconfig}) answered when the plan was made and does not answer now`);
      else deferred.add(cluster.kubeconfig); // the plan brings it up: its objects are checked once it answers
      continue;
    }
    differences.push(...(await objectDrift(api!, objects, plan.steps)));
    api!.close();
  }
  if (differences.length > 0) {
    throw new TsadmError('E_CONFLICT', `refusing to apply the plan: ${differences.length} thing${differences.length > 1 ? 's' : ''} changed since it was made (${differences[0]}${differences.length > 1 ? ', …' : ''})`, {
      details: differences,
      hint: `make a new plan (tsadm ${plan.command} --dry-run --plan <file>) and review it`,
    });
  }
  log.info(`The plan made by "tsadm ${plan.command}" at ${plan.createdAt} matches this machine${plan.preconditions.clusters.length ? ' and cluster' : ''} (${plan.preconditions.files.length} files, ${plan.preconditions.objects.length} objects checked)`, { prefix: 'apply' });
  if (opts.checkOnly) return { steps: plan.steps.length, applied: false };

  const api = async (kubeconfig: string): Promise<KubeApi> => {
    let a = apis.get(kubeconfig);
    if (!a) {
      a = await deps.openApi(kubeconfig, false);
      apis.set(kubeconfig, a);
    }
    return a;
  };
  // Upgrade plans: each static Pod's mirror Pod hash before anything is written (src/plan/static-pod-wait.ts).
  const waits: StaticPodWaitDeps = {
    host: deps.host,
    log,
    openApi: async (kubeconfig) => {
      let a = apis.get(`quick:${kubeconfig}`);
      if (!a) {
        a = await deps.openApi(kubeconfig, true);
        apis.set(`quick:${kubeconfig}`, a);
      }
      return a;
    },
    ...(deps.healthCheck ? { check: deps.healthCheck } : {}),
  };
  const hashes = await hashesBeforeApply(plan, waits).catch((err: unknown) => {
    for (const a of apis.values()) a.close();
    throw err;
  });
  const uids = new Map<string, string>();
  let phase: string | undefined;
  let started = 0;
  const phases = [...new Set(plan.steps.map((s) => s.phase ?? 'apply'))];
  log.event({ type: 'plan', ts: log.ts(), phases });
  const finishPhase = (status: 'ok' | 'failed'): void => {
    if (phase === undefined) return;
    log.event({ type: 'phase-finish', phase, ts: log.ts(), durationMs: Date.now() - started, status });
    log.phase = undefined;
  };
  try {
    for (const step of plan.steps) {
      const next = step.phase ?? 'apply';
      if (next !== phase) {
        finishPhase('ok');
        phase = next;
        started = Date.now();
        log.phase = phase;
        log.event({ type: 'phase-start', phase, ts: log.ts() });
      }
      if (step.type === 'wait' && step.for === 'static-pod') await waitForStaticPod(step, hashes, waits);
      else await runStep(step, deps, api, uids, deferred, plan);
    }
    finishPhase('ok');
  } catch (err) {
    finishPhase('failed');
    throw err;
  } finally {
    for (const a of apis.values()) a.close();
  }
  return { steps: plan.steps.length, applied: true };
}

async function runStep(
  step: PlanStep,
  deps: ApplyDeps,
  api: (kubeconfig: string) => Promise<KubeApi>,
  uids: Map<string, string>,
  deferred: Set<string>,
  plan: Plan,
): Promise<void> {
  const { host, log } = deps;
  switch (step.type) {
    case 'file': {
      const record = await host.writeFile(step.path, stepContent(step)!, { mode: parseMode(step.mode), kind: step.kind as FileKind, description: step.description });
      log.info(`${record.unchanged ? 'Unchanged' : 'Wrote'} ${step.path} (${step.mode})`, { verbosity: 1, prefix: 'apply' });
      log.event({
        type: 'file', ts: log.ts(), path: step.path, mode: step.mode, kind: step.kind, sha256: record.sha256, unchanged: record.unchanged, dryRun: false,
        ...(log.phase !== undefined ? { phase: log.phase } : {}),
      });
      return;
    }
    case 'mkdir':
      await host.mkdir(step.path, parseMode(step.mode));
      return;
    case 'remove':
      await host.remove(step.path);
      log.info(`Removed ${step.path}`, { verbosity: 1, prefix: 'apply' });
      return;
    case 'symlink':
      await host.symlink(step.path, step.target);
      log.info(`Linked ${step.path} to ${step.target}`, { verbosity: 1, prefix: 'apply' });
      return;
    case 'exec': {
      const r = await host.exec(step.command, step.args, { mutating: true });
      if (r.exitCode !== 0) log.warn(`${[step.command, ...step.args].join(' ')} failed (exit ${r.exitCode}): ${(r.stderr || r.stdout).trim()}`, { prefix: 'apply' });
      return;
    }
    case 'service': {
      const r = await host.service(step.action, step.unit);
      log.info(`${step.action} ${step.unit}: ${r.ok ? 'done' : `not done (${r.message ?? r.via})`}`, { prefix: 'apply' });
      if (!r.ok && r.via !== 'none') log.warn(`unable to ${step.action} the ${step.unit} service: ${r.message ?? 'failed'}`, { prefix: 'apply' });
      return;
    }
    case 'wait':
      if (step.for !== 'api-server') return;
      await waitForApi(step.kubeconfig, step.server, step.timeoutSeconds * 1000, deps);
      if (deferred.delete(step.kubeconfig)) {
        const drift = await objectDrift(await api(step.kubeconfig), plan.preconditions.objects.filter((o) => o.kubeconfig === step.kubeconfig), plan.steps);
        if (drift.length > 0) {
          throw new TsadmError('E_CONFLICT', `stopping: the cluster at ${step.server} is not as the plan expected (${drift[0]})`, {
            details: drift, hint: 'the steps before this one were applied; inspect the cluster, then make a new plan',
          });
        }
      }
      return;
    case 'object':
      await objectStep(step, await api(step.kubeconfig), uids);
      return;
    case 'certs-renew-auto':
      if (!deps.renewAuto) throw new TsadmError('E_INTERNAL', 'this apply cannot run a certificate renewal step');
      await deps.renewAuto(step);
      return;
    case 'certs-rotate-ca-node':
      if (!deps.rotateCaNode) throw new TsadmError('E_INTERNAL', 'this apply cannot run a CA rotation step');
      await deps.rotateCaNode(step);
      return;
    case 'etcd-snapshot-restore':
      if (!deps.restore) throw new TsadmError('E_INTERNAL', 'this apply cannot run an etcd restore step');
      await deps.restore(step);
      return;
    case 'etcd-snapshot': {
      const saved = await saveSnapshot(host, { endpoint: step.endpoint, tls: await etcdTlsFromDir(host, step.certDir), file: step.path });
      log.info(`Saved ${step.path} (${saved.size} bytes, sha256 ${saved.sha256}) from ${step.endpoint}`, { prefix: 'apply' });
      log.event({
        type: 'file', ts: log.ts(), path: step.path, mode: step.mode, kind: 'other', sha256: saved.sha256, unchanged: false, dryRun: false,
        ...(log.phase !== undefined ? { phase: log.phase } : {}),
      });
      return;
    }
  }
}

async function objectStep(step: Extract<PlanStep, { type: 'object' }>, api: KubeApi, uids: Map<string, string>): Promise<void> {
  const what = `${step.kind} ${'namespace' in step && step.namespace ? `${step.namespace}/` : ''}${step.name}`;
  switch (step.verb) {
    case 'create': {
      const obj = withRealUids(step.object, uids) as KubeObject;
      let uid: string | undefined;
      try {
        uid = (await api.create(obj)).metadata.uid;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        // Created by an earlier, interrupted apply of this plan: fine if it is what the plan writes.
        const live = await api.get(obj.kind as KindName, obj.metadata.name, obj.metadata.namespace);
        if (!live || !isSubset(comparableView(obj), live)) {
          throw new TsadmError('E_CONFLICT', `${what} exists already and differs from what the plan creates`, { hint: 'make a new plan' });
        }
        uid = live.metadata.uid;
      }
      if (step.placeholderUid && uid) uids.set(step.placeholderUid, uid);
      return;
    }
    case 'update':
      await api.ensure(withRealUids(step.object, uids) as KubeObject, 'update');
      return;
    case 'delete':
      await api.delete(step.kind as KindName, step.name, step.namespace);
      return;
    case 'approval': {
      const live = await api.get(step.kind as KindName, step.name);
      const problem = liveApprovalProblem(live as { spec?: { signerName?: unknown } } | undefined, step.name);
      if (problem !== undefined) throw new TsadmError('E_CONFLICT', `not writing the planned decision: ${problem}`, { hint: 'make a new plan' });
      // Written by an earlier, interrupted apply of this plan: done.
      if (live && hasDecision(live, step.decision)) return;
      // The object carries the resourceVersion it was read at: if the request changed since, the
      // API server refuses the write (409) and nothing is decided on what the plan did not see.
      await api.updateSubresource(step.object as KubeObject, 'approval');
      return;
    }
    case 'patch':
      await api.patchNode(step.name, (node) => {
        const conflicts = nodePatchConflicts(nodeView(node), step.before, step.after);
        if (conflicts.length > 0) {
          throw new TsadmError('E_CONFLICT', `Node ${step.name} changed since the plan was made: ${conflicts.join('; ')}`, { hint: 'make a new plan' });
        }
        replayNodePatch(node, step.before, step.after);
      }, { timeoutMs: NODE_TIMEOUT_MS, ready: (n) => n.metadata.labels?.['kubernetes.io/hostname'] !== undefined });
      return;
  }
}

async function waitForApi(kubeconfig: string, server: string, timeoutMs: number, deps: ApplyDeps): Promise<void> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const start = now();
  deps.log.info(`Waiting for the API server at ${server} (up to ${Math.round(timeoutMs / 1000)}s)`, { prefix: 'apply' });
  let last = 'no answer';
  for (;;) {
    try {
      const api = await deps.openApi(kubeconfig, true);
      const ok = await api.healthz();
      api.close();
      if (ok) {
        deps.log.info(`The API server answered after ${((now() - start) / 1000).toFixed(1)}s`, { prefix: 'apply' });
        return;
      }
    } catch (err) {
      last = errorMessage(err);
    }
    if (now() - start > timeoutMs) {
      throw new TsadmError('E_TIMEOUT', `the API server at ${server} did not answer within ${Math.round(timeoutMs / 1000)}s (${last})`, {
        hint: 'check the kubelet and the control-plane containers, then run the same `tsadm apply` again: what is already applied counts as done',
      });
    }
    await sleep(1000);
  }
}

/** Replaces the dry run's made-up uids ("dry-run-N") by the uids the server gave those objects. */
function withRealUids(obj: unknown, uids: ReadonlyMap<string, string>): unknown {
  if (uids.size === 0) return obj;
  if (typeof obj === 'string') return uids.get(obj) ?? obj;
  if (Array.isArray(obj)) return obj.map((v) => withRealUids(v, uids));
  if (obj !== null && typeof obj === 'object') return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, withRealUids(v, uids)]));
  return obj;
}
