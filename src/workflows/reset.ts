import { FLAG_NAMES, type FlagValues } from '../flags.js';
import type { WorkflowRequest, WorkflowSpec } from '../cli/yargs-kit.js';
import { resolveResetConfig } from '../config/load.js';
import type { ResolvedResetConfig } from '../config/types.js';
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
import type { ResetCtx } from '../phases/reset/context.js';
import { baseContext, readConfigFile, type CommandEnv, type Runtime } from '../run/runtime.js';
import { runWorkflow } from './run-workflow.js';
import { HELP_MINOR, markPhaseOrigins } from '../versions/kubeadm-phases.js';
import { helpTreeNote } from '../cli/help.js';
import type { SupportedMinor } from '../versions/minors.js';

/**
 * kubeadm's reset phases of `minor`, in its order. kubeadm dropped `update-cluster-status` in 1.23
 * (src/versions/kubeadm-phases.ts): from that minor it is `retired`, out of the help tree. reset
 * cannot know the cluster's minor before it runs (the cluster may be gone), so a run uses the newest
 * minor's tree, where the retired phase still runs and skips itself unless the cluster keeps a
 * ClusterStatus (v1beta2 clusters; kubeadm 1.22's phase was already a no-op), and
 * --skip-phases / `reset phase update-cluster-status` still accept it for those clusters.
 */
export function resetPhases(minor: SupportedMinor = HELP_MINOR): Phase<ResetCtx>[] {
  return markPhaseOrigins('reset', minor, [resetPreflightPhase, updateClusterStatusPhase, removeEtcdMemberPhase, cleanupNodePhase]);
}

export interface ResetWorkflowOptions {
  readonly deps?: Partial<ResetDeps>;
}

export function resetWorkflow(env: CommandEnv, opts: ResetWorkflowOptions = {}): WorkflowSpec<ResetCtx> {
  const phases = resetPhases();
  validateTree(phases, FLAG_NAMES);
  return {
    name: 'reset',
    treeNote: helpTreeNote(HELP_MINOR, 'reset does not know the cluster\'s minor before it runs'),
    describe: "Performs a best effort revert of changes made to this host by 'tsadm init' or 'tsadm join'",
    phases,
    extraFlags: ['kubeconfig'],
    example: 'tsadm reset --force',
    run: (request) => runReset(request, env, opts),
  };
}

async function runReset(request: WorkflowRequest, env: CommandEnv, opts: ResetWorkflowOptions = {}): Promise<void> {
  await runWorkflow<ResolvedResetConfig, ResetCtx>({
    command: 'reset',
    runtime: { plain: true, lock: 'reset' },
    resolveConfig: (now) => resolveReset(request.flags, now),
    dryRunOf: (cfg) => cfg.reset.dryRun === true,
    buildContext: (rt, cfg) => Promise.resolve(resetContext(request.flags, rt, realResetDeps(env.io.stdin, opts.deps), cfg)),
    run: async (ctx, rt) => {
      for (const w of ctx.cfg.warnings) ctx.log.warn(w, { prefix: 'config' });
      await runPhases(resetPhases(), ctx, { filter: request.filter, skip: ctx.cfg.reset.skipPhases });
      return { dryRun: rt.dryRun };
    },
  }, request.flags, env);
}

export async function buildResetContext(flags: FlagValues, rt: Runtime, deps: ResetDeps): Promise<ResetCtx> {
  return resetContext(flags, rt, deps, await resolveReset(flags, rt.startTime));
}

/** The configuration of `reset` from --config and the flags (read before the seams exist). */
async function resolveReset(flags: FlagValues, now: Date): Promise<ResolvedResetConfig> {
  const configPath = flags.config as string | undefined;
  const configText = await readConfigFile(configPath);
  return resolveResetConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(configPath !== undefined ? { configPath } : {}),
    flags,
    env: { hostname: nodeHostname(), now },
  });
}

function resetContext(flags: FlagValues, rt: Runtime, deps: ResetDeps, cfg: ResolvedResetConfig): ResetCtx {
  return {
    ...baseContext(rt),
    cfg,
    flags,
    options: { kubeconfigPath: (flags.kubeconfig as string | undefined) ?? DEFAULT_ADMIN_KUBECONFIG },
    deps,
    state: newResetRunState(),
  };
}
