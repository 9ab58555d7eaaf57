/**
 * `tsadm upgrade apply [version]` and `tsadm upgrade node`: kubeadm's upgrade steps as phase
 * trees (the names of kubeadm 1.32+, whose `upgrade apply` gained phases in PR #126032; kubeadm
 * before 1.32 ran apply's steps without phases, tsadm runs them as phases for every version;
 * src/versions/kubeadm-phases.ts), so each can run alone (`upgrade apply phase addon coredns`),
 * be skipped (--skip-phases), planned (--dry-run --plan) and resumed.
 */
import { FLAG_NAMES, type FlagValues } from '../flags.js';
import type { WorkflowRequest, WorkflowSpec } from '../cli/yargs-kit.js';
import { resolveUpgradeConfig } from '../config/load-upgrade.js';
import type { ResolvedUpgradeConfig } from '../config/types.js';
import { validateTree, type Phase } from '../engine/phase.js';
import { runPhases } from '../engine/runner.js';
import { computeSelection } from '../engine/selection.js';
import { upgradeAddonPhase } from '../phases/upgrade/addons.js';
import { upgradeBootstrapTokenPhase } from '../phases/upgrade/bootstrap-token.js';
import { upgradeKubeletConfigPhase } from '../phases/upgrade/kubelet-config.js';
import { upgradePostUpgradePhase } from '../phases/upgrade/post-upgrade.js';
import { upgradeUploadConfigPhase } from '../phases/upgrade/upload-config.js';
import { upgradeControlPlanePhase } from '../phases/upgrade/control-plane.js';
import { realUpgradeDeps, type UpgradeDeps } from '../phases/upgrade/deps.js';
import { upgradePreflightPhase } from '../phases/upgrade/preflight.js';
import { newUpgradeRunState, targetVersion } from '../phases/upgrade/state.js';
import type { UpgradeCtx } from '../phases/upgrade/context.js';
import { startUpgradeResume } from '../resume/upgrade.js';
import { DEFAULT_ADMIN_KUBECONFIG, KUBECONFIG_FILES, KUBERNETES_DIR } from '../constants.js';
import { APISERVER_MANIFEST } from '../upgrade-plan/cluster-view.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../versions/resolve.js';
import type { VersionProfile } from '../versions/table-types.js';
import { baseContext, readConfigFile, type CommandEnv, type Runtime } from '../run/runtime.js';
import { runWorkflow } from './run-workflow.js';
import { HELP_MINOR, markPhaseOrigins, phaseNotInMinor } from '../versions/kubeadm-phases.js';
import { helpTreeNote } from '../cli/help.js';

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

/**
 * `upgrade node`'s phases for the cluster's minor, in kubeadm's order: preflight, control-plane,
 * kubelet-config; from 1.28 the addons once every control plane is upgraded (kubeadm 1.28–1.31
 * did it inside its control-plane step: a hidden phase here), from 1.32 `addon` and
 * `post-upgrade` as phases of their own.
 */
export function upgradeNodePhases(versions: VersionProfile): Phase<UpgradeCtx>[] {
  const base = [upgradePreflightPhase, upgradeControlPlanePhase, upgradeKubeletConfigPhase];
  // Marked from kubeadm's phase list (1.28-1.31's hidden addon step stays named, as documented).
  const mark = (tree: Phase<UpgradeCtx>[]): Phase<UpgradeCtx>[] => markPhaseOrigins('upgrade-node', versions.minor, tree);
  if (versions.upgrade.nodeAddonPhases) return mark([...base, upgradeAddonPhase, upgradePostUpgradePhase]);
  if (versions.upgrade.addonsAfterAllControlPlanes) return mark([...base, { ...upgradeAddonPhase, hidden: true }]);
  return mark(base);
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
    // kubeadm's apply phases exist from 1.32 (PR #126032; src/versions/kubeadm-phases.ts).
    treeNote: helpTreeNote(HELP_MINOR, 'the tree is the same for every target; kubeadm before v1.32 has no upgrade apply phases, tsadm runs these steps as phases for every minor'),
    describe: 'Upgrade your Kubernetes cluster to the specified version',
    positional: '[version]',
    phases,
    extraFlags: [...APPLY_FLAGS],
    example: 'tsadm upgrade apply v1.20.3 --yes',
    // Not marked by minor: tsadm runs apply's steps as phases for every target (docs/upgrade.md).
    run: (request) => runUpgrade('apply', () => Promise.resolve({ phases: upgradeApplyPhases() }), request, env, opts),
  };
}

export function upgradeNodeWorkflow(env: CommandEnv, opts: UpgradeWorkflowOptions = {}): WorkflowSpec<UpgradeCtx> {
  // Help and the `upgrade node phase …` commands show the default version's tree.
  const phases = upgradeNodePhases(profileFor(DEFAULT_KUBERNETES_VERSION));
  validateTree(phases, FLAG_NAMES);
  return {
    name: 'node',
    treeNote: helpTreeNote(HELP_MINOR, 'a run follows the tree of the cluster\'s minor, read first'),
    describe: 'Upgrade commands for a node in the cluster',
    phases,
    extraFlags: ['kubeconfig', 'certificate-renewal', 'etcd-upgrade', 'patches', 'ignore-preflight-errors'],
    example: 'tsadm upgrade node',
    run: (request) => runUpgrade('node', async (ctx) => {
      const versions = profileFor(await targetVersion(ctx));
      return { phases: upgradeNodePhases(versions), absent: (path) => phaseNotInMinor('upgrade-node', versions.minor, path) };
    }, request, env, opts),
  };
}

/**
 * The tree of one run: apply's is the same for every version; node's depends on the cluster's
 * minor (read first), and names a phase of a later minor's kubeadm in its refusal (`absent`).
 */
type TreeOf = (ctx: UpgradeCtx) => Promise<{ readonly phases: Phase<UpgradeCtx>[]; readonly absent?: (path: string) => string | undefined }>;

async function runUpgrade(command: 'apply' | 'node', treeOf: TreeOf, request: WorkflowRequest, env: CommandEnv, opts: UpgradeWorkflowOptions): Promise<void> {
  await runWorkflow<ResolvedUpgradeConfig, UpgradeCtx>({
    command: `upgrade ${command}`,
    // Plain lines: apply may ask for a confirmation.
    runtime: { plain: command === 'apply', lock: 'upgrade' },
    resolveConfig: () => resolveUpgrade(command, request),
    dryRunOf: (cfg) => cfg.upgrade.dryRun,
    buildContext: (rt, cfg) => upgradeContext(command, request.flags, rt, cfg, realUpgradeDeps(env.io.stdin, opts.deps)),
    run: async (ctx, rt) => {
      for (const w of ctx.cfg.warnings) ctx.log.warn(w, { prefix: 'config' });
      const { phases, absent } = await treeOf(ctx);
      computeSelection(phases, request.filter, ctx.cfg.upgrade.skipPhases, absent);
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

/**
 * kubeadm's default --kubeconfig: admin.conf, except for `upgrade node` on a machine without a
 * kube-apiserver manifest (a worker has no admin.conf), which talks to the cluster as its kubelet.
 */
async function defaultKubeconfig(command: 'apply' | 'node', rt: Runtime): Promise<string> {
  if (command === 'node' && (await rt.host.readFile(APISERVER_MANIFEST)) === undefined) return `${KUBERNETES_DIR}/${KUBECONFIG_FILES.kubelet}`;
  return DEFAULT_ADMIN_KUBECONFIG;
}

async function upgradeContext(command: 'apply' | 'node', flags: FlagValues, rt: Runtime, cfg: ResolvedUpgradeConfig, deps: UpgradeDeps): Promise<UpgradeCtx> {
  const kubeconfigPath = (flags.kubeconfig as string | undefined) ?? (await defaultKubeconfig(command, rt));
  return {
    ...baseContext(rt),
    command,
    cfg,
    flags,
    options: { kubeconfigPath },
    deps,
    state: newUpgradeRunState(),
  };
}
