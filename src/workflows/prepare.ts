/**
 * `tsadm prepare`: the host phases alone (src/phases/host), for image builders who bake hosts and
 * for operators who prepare a machine before `tsadm init` or `join`. The phases read init's
 * configuration (--config, --kubernetes-version, --cri-socket…): the target version chooses the
 * pause image, the KubeletConfiguration the cgroup driver. A node that will join uses the same
 * values as its cluster (give the cluster's version and configuration), or `join phase host`,
 * which reads them from the cluster.
 */
import { FLAG_NAMES } from '../flags.js';
import type { WorkflowRequest, WorkflowSpec } from '../cli/yargs-kit.js';
import type { ResolvedInitConfig } from '../config/types.js';
import { validateTree, type Phase } from '../engine/phase.js';
import { runPhases } from '../engine/runner.js';
import { hostLeaves, type HostPhaseOptions } from '../phases/host/phase.js';
import { hostPrepInput } from '../phases/host/input.js';
import type { InitCtx } from '../run/context.js';
import { initContext, resolveInit } from './init.js';
import type { CommandEnv } from '../run/runtime.js';
import { runWorkflow } from './run-workflow.js';

function preparePhases(opts: HostPhaseOptions = {}): Phase<InitCtx>[] {
  return hostLeaves<InitCtx>((ctx) => Promise.resolve(hostPrepInput(ctx.cfg, ctx.versions, ctx.options.flags)), 'tsadm prepare phase', opts);
}

export function prepareWorkflow(env: CommandEnv): WorkflowSpec<InitCtx> {
  const phases = preparePhases();
  validateTree(phases, FLAG_NAMES);
  return {
    name: 'prepare',
    describe: 'Prepare this host for the kubelet (kernel modules, sysctls, swap, containerd, kubelet unit, crictl); the host phase of init and join, alone',
    phases,
    example: 'tsadm prepare --kubernetes-version v1.20.2 --dry-run',
    run: (request) => runPrepare(request, env),
  };
}

async function runPrepare(request: WorkflowRequest, env: CommandEnv): Promise<void> {
  await runWorkflow<ResolvedInitConfig, InitCtx>({
    command: 'prepare',
    runtime: { lock: 'prepare' },
    resolveConfig: (now) => resolveInit(request.flags, now),
    dryRunOf: (cfg) => cfg.init.dryRun === true,
    buildContext: (rt, cfg) => initContext(request.flags, rt, cfg),
    run: async (ctx) => {
      for (const w of ctx.cfg.warnings) ctx.log.warn(w, { prefix: 'config' });
      await runPhases(preparePhases(), ctx, { filter: request.filter, skip: ctx.cfg.init.skipPhases });
      return { kubernetesVersion: ctx.cfg.cluster.kubernetesVersion, dryRun: ctx.dryRun, changed: ctx.host.writes.filter((w) => !w.unchanged).map((w) => w.path) };
    },
  }, request.flags, env);
}
