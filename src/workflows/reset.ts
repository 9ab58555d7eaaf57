import { FLAG_NAMES, type FlagValues } from '../cli/flags.js';
import type { WorkflowRequest, WorkflowSpec } from '../cli/workflow-command.js';
import { resolveResetConfig } from '../config/load.js';
import { DEFAULT_ADMIN_KUBECONFIG } from '../constants.js';
import { nodeHostname } from '../host/network.js';
import { validateTree, type Phase } from '../engine/phase.js';
import { runPhases } from '../engine/runner.js';
import { cleanupNodePhase } from '../phases/reset/cleanup-node.js';
import { newResetRunState } from '../phases/reset/state.js';
import { realResetDeps, type ResetDeps } from '../phases/reset/deps.js';
import { removeEtcdMemberPhase } from '../phases/reset/remove-etcd-member.js';
import { resetPreflightPhase } from '../phases/reset/preflight.js';
import { updateClusterStatusPhase } from '../phases/reset/update-cluster-status.js';
import type { ResetCtx } from './context.js';
import { reportDryRun } from './dry-run-report.js';
import { errorData } from './init.js';
import { createRuntime, readConfigFile, type CommandEnv, type Runtime } from './runtime.js';

/** kubeadm 1.20's reset phases, in its order. */
export function resetPhases(): Phase<ResetCtx>[] {
  return [resetPreflightPhase, updateClusterStatusPhase, removeEtcdMemberPhase, cleanupNodePhase];
}

export interface ResetWorkflowOptions {
  readonly deps?: Partial<ResetDeps>;
}

export function resetWorkflow(env: CommandEnv, opts: ResetWorkflowOptions = {}): WorkflowSpec<ResetCtx> {
  const phases = resetPhases();
  validateTree(phases, FLAG_NAMES);
  return {
    name: 'reset',
    describe: "Performs a best effort revert of changes made to this host by 'tsadm init' or 'tsadm join'",
    phases,
    extraFlags: ['kubeconfig'],
    example: 'tsadm reset --force',
    run: (request) => runReset(request, env, opts),
  };
}

export async function runReset(request: WorkflowRequest, env: CommandEnv, opts: ResetWorkflowOptions = {}): Promise<void> {
  const rt = await createRuntime(request.flags, env, { plain: true, lock: 'reset' });
  let ctx: ResetCtx | undefined;
  try {
    ctx = await buildResetContext(request.flags, rt, realResetDeps(env.io.stdin, opts.deps));
    for (const w of ctx.cfg.warnings) ctx.log.warn(w, { prefix: 'config' });
    await runPhases(resetPhases(), ctx, { filter: request.filter, skip: ctx.cfg.reset.skipPhases });
    if (rt.dryRun) reportDryRun(rt.host, rt.log);
    rt.log.event({ type: 'result', ts: rt.log.ts(), command: 'reset', ok: true, data: { dryRun: rt.dryRun } });
  } catch (err) {
    rt.log.event({ type: 'result', ts: rt.log.ts(), command: 'reset', ok: false, error: errorData(err) });
    throw err;
  } finally {
    for (const c of ctx?.state.clients ?? []) c.close();
    await rt.reporter.close();
  }
}

export async function buildResetContext(flags: FlagValues, rt: Runtime, deps: ResetDeps): Promise<ResetCtx> {
  const configPath = flags.config as string | undefined;
  const configText = await readConfigFile(configPath);
  const cfg = resolveResetConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(configPath !== undefined ? { configPath } : {}),
    flags,
    env: { hostname: nodeHostname(), now: rt.startTime },
  });
  return {
    host: rt.host,
    log: rt.log,
    dryRun: rt.dryRun,
    clock: () => new Date(),
    startTime: rt.startTime,
    cfg,
    flags,
    options: { kubeconfigPath: (flags.kubeconfig as string | undefined) ?? DEFAULT_ADMIN_KUBECONFIG },
    deps,
    state: newResetRunState(),
  };
}
