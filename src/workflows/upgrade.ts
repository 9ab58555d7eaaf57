/**
 * `tsadm upgrade apply [version]` and `tsadm upgrade node`: kubeadm's upgrade steps as phase
 * trees (kubeadm 1.30+'s phase names; kubeadm 1.20 ran the same steps without phases, tsadm runs
 * them as phases for every version), so each can run alone (`upgrade apply phase addon coredns`),
 * be skipped (--skip-phases), planned (--dry-run --plan) and resumed.
 */
import { FLAG_NAMES, type FlagValues } from '../cli/flags.js';
import type { WorkflowRequest, WorkflowSpec } from '../cli/workflow-command.js';
import { resolveUpgradeConfig } from '../config/load-upgrade.js';
import type { ResolvedUpgradeConfig } from '../config/types.js';
import { validateTree, type Phase } from '../engine/phase.js';
import { runPhases } from '../engine/runner.js';
import { computeSelection } from '../engine/selection.js';
import {
  upgradeAddonPhase,
  upgradeBootstrapTokenPhase,
  upgradeKubeletConfigPhase,
  upgradePostUpgradePhase,
  upgradeUploadConfigPhase,
} from '../phases/upgrade/cluster-objects.js';
import { upgradeControlPlanePhase } from '../phases/upgrade/control-plane.js';
import { realUpgradeDeps, type UpgradeDeps } from '../phases/upgrade/deps.js';
import { upgradePreflightPhase } from '../phases/upgrade/preflight.js';
import { DEFAULT_UPGRADE_KUBECONFIG, newUpgradeRunState, targetVersion } from '../phases/upgrade/state.js';
import type { UpgradeCtx } from './context.js';
import { startUpgradeResume } from '../resume/upgrade.js';
import { readConfigFile, type CommandEnv, type Runtime } from './runtime.js';
import { runWorkflow } from './run-workflow.js';

/** `upgrade apply`'s phases, in kubeadm's order. Each leaf takes the [version] argument as the command does. */
export function upgradeApplyPhases(): Phase<UpgradeCtx>[] {
  return withVersionArgument([
    upgradePreflightPhase,
    upgradeControlPlanePhase,
    upgradeUploadConfigPhase,
    upgradeKubeletConfigPhase,
    upgradeBootstrapTokenPhase,
    upgradeAddonPhase,
    upgradePostUpgradePhase,
  ]);
}

/** `upgrade node`'s phases, in kubeadm's order. */
export function upgradeNodePhases(): Phase<UpgradeCtx>[] {
  return [upgradePreflightPhase, upgradeControlPlanePhase, upgradeKubeletConfigPhase];
}

function withVersionArgument(tree: readonly Phase<UpgradeCtx>[]): Phase<UpgradeCtx>[] {
  return tree.map((p) => ({ ...p, positional: '[version]', ...(p.children ? { children: withVersionArgument(p.children) } : {}) }));
}

export interface UpgradeWorkflowOptions {
  /** Seams for tests (the confirmation answer, machine facts); the real ones by default. */
  readonly deps?: Partial<UpgradeDeps>;
}

const APPLY_FLAGS = ['resume', 'kubeconfig', 'yes', 'force', 'certificate-renewal', 'etcd-upgrade', 'patches', 'ignore-preflight-errors',
  'allow-experimental-upgrades', 'allow-release-candidate-upgrades', 'print-config'] as const;

export function upgradeApplyWorkflow(env: CommandEnv, opts: UpgradeWorkflowOptions = {}): WorkflowSpec<UpgradeCtx> {
  const phases = upgradeApplyPhases();
  validateTree(phases, FLAG_NAMES);
  return {
    name: 'apply',
    describe: 'Upgrade your Kubernetes cluster to the specified version',
    positional: '[version]',
    phases,
    extraFlags: [...APPLY_FLAGS],
    example: 'tsadm upgrade apply v1.20.3 --yes',
    run: (request) => runUpgrade('apply', upgradeApplyPhases(), request, env, opts),
  };
}

export function upgradeNodeWorkflow(env: CommandEnv, opts: UpgradeWorkflowOptions = {}): WorkflowSpec<UpgradeCtx> {
  const phases = upgradeNodePhases();
  validateTree(phases, FLAG_NAMES);
  return {
    name: 'node',
    describe: 'Upgrade commands for a node in the cluster',
    phases,
    extraFlags: ['kubeconfig', 'certificate-renewal', 'etcd-upgrade', 'patches', 'ignore-preflight-errors'],
    example: 'tsadm upgrade node',
    run: (request) => runUpgrade('node', upgradeNodePhases(), request, env, opts),
  };
}

async function runUpgrade(command: 'apply' | 'node', phases: Phase<UpgradeCtx>[], request: WorkflowRequest, env: CommandEnv, opts: UpgradeWorkflowOptions): Promise<void> {
  await runWorkflow<ResolvedUpgradeConfig, UpgradeCtx>({
    command: `upgrade ${command}`,
    // Plain lines: apply may ask for a confirmation.
    runtime: { plain: command === 'apply', lock: 'upgrade' },
    resolveConfig: () => resolveUpgrade(command, request),
    dryRunOf: (cfg) => cfg.upgrade.dryRun,
    buildContext: (rt, cfg) => Promise.resolve(upgradeContext(command, request.flags, rt, cfg, realUpgradeDeps(env.io.stdin, opts.deps))),
    run: async (ctx, rt) => {
      for (const w of ctx.cfg.warnings) ctx.log.warn(w, { prefix: 'config' });
      computeSelection(phases, request.filter, ctx.cfg.upgrade.skipPhases);
      // Completed phases are recorded so a failed upgrade can continue with --resume (src/resume).
      const resume = await startUpgradeResume(ctx, { resume: request.flags.resume === true, single: request.single });
      try {
        await runPhases(phases, ctx, { filter: request.filter, skip: ctx.cfg.upgrade.skipPhases, ...(resume ? { hooks: resume.hooks } : {}) });
        await resume?.complete();
      } catch (caught) {
        throw resume ? await resume.failed(caught) : caught;
      }
      const version = await targetVersion(ctx);
      if (request.filter.length === 0) closingLines(ctx, version);
      return {
        kubernetesVersion: version,
        dryRun: rt.dryRun,
        upgraded: [...ctx.state.upgraded],
        ...(ctx.state.backups ? { backups: ctx.state.backups } : {}),
      };
    },
  }, request.flags, env);
}

function closingLines(ctx: UpgradeCtx, version: string): void {
  if (ctx.dryRun) {
    ctx.log.info('Finished dryrunning successfully!', { prefix: 'dryrun' });
    return;
  }
  if (ctx.command === 'apply') {
    ctx.log.info(`SUCCESS! Your cluster was upgraded to "${version}". Enjoy!`, { prefix: 'upgrade/successful' });
    ctx.log.info("Now that your control plane is upgraded, please proceed with upgrading your kubelets if you haven't already done so.", { prefix: 'upgrade/kubelet' });
  } else {
    ctx.log.info('The configuration for this node was successfully updated!', { prefix: 'upgrade' });
    ctx.log.info('Now you should go ahead and upgrade the kubelet package using your package manager.', { prefix: 'upgrade' });
  }
}

async function resolveUpgrade(command: 'apply' | 'node', request: WorkflowRequest): Promise<ResolvedUpgradeConfig> {
  const configPath = request.flags.config as string | undefined;
  const configText = await readConfigFile(configPath);
  const version = request.positionals[0];
  return resolveUpgradeConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(configPath !== undefined ? { configPath } : {}),
    flags: request.flags,
    ...(version !== undefined ? { version } : {}),
  }, command);
}

function upgradeContext(command: 'apply' | 'node', flags: FlagValues, rt: Runtime, cfg: ResolvedUpgradeConfig, deps: UpgradeDeps): UpgradeCtx {
  return {
    host: rt.host,
    api: rt.api,
    log: rt.log,
    dryRun: rt.dryRun,
    clock: () => new Date(),
    startTime: rt.startTime,
    command,
    cfg,
    flags,
    options: { kubeconfigPath: (flags.kubeconfig as string | undefined) ?? DEFAULT_UPGRADE_KUBECONFIG },
    deps,
    state: newUpgradeRunState(),
  };
}
