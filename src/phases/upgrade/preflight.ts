/**
 * `upgrade apply phase preflight` and `upgrade node phase preflight`: kubeadm's
 * enforceRequirements, in its order: read the configuration from the cluster, the root check,
 * the cluster health checks, the version policy (apply), the confirmation (apply, unless --yes,
 * --force or --dry-run), and the image note.
 *
 * Health checks (kubeadm's CheckClusterHealth, names usable in --ignore-preflight-errors):
 * CreateJob (a Job on a control-plane node completes: scheduler, Job controller and a kubelet
 * work; src/phases/upgrade/health-job.ts), ControlPlaneNodesReady (every control-plane Node is
 * Ready) and StaticPodManifest (this control-plane node has all four static Pod manifests).
 */
import path from 'node:path';
import { MANIFESTS_DIR } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { Phase } from '../../engine/phase.js';
import type { NodeObject } from '../../kube/types.js';
import type { UpgradeClusterView } from '../../upgrade-plan/cluster-view.js';
import { printConfiguration } from '../../upgrade-plan/plan-run.js';
import { checkVersionPolicy, versionPolicyError } from '../../upgrade-plan/policy.js';
import { prereleaseWarning } from '../../versions/resolve.js';
import type { UpgradeCtx } from './context.js';
import { fail, ok, type Check } from '../preflight/check.js';
import { containerRuntimeVersionCheck, isPrivilegedUser, systemVerificationCheck } from '../preflight/checks.js';
import { runChecks } from '../preflight/run-checks.js';
import { createJobCheck } from './health-job.js';
import { clusterView, initView, targetVersion } from './state.js';

const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];
const STATIC_PODS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'];

function isReady(node: NodeObject): boolean {
  const conditions = (node.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** kubeadm's ControlPlaneNodesReady: every control-plane Node is Ready. */
function controlPlaneNodesReady(view: UpgradeClusterView): Check {
  return {
    name: 'ControlPlaneNodesReady',
    run: () => {
      const controlPlanes = view.nodes.filter((n) => CONTROL_PLANE_LABELS.some((l) => n.metadata.labels?.[l] !== undefined));
      if (controlPlanes.length === 0) return Promise.resolve(fail('couldn\'t find any control-plane nodes in the cluster (no Node has the control-plane label)'));
      const notReady = controlPlanes.filter((n) => !isReady(n)).map((n) => n.metadata.name);
      return Promise.resolve(notReady.length > 0 ? fail(`there are NotReady control-planes in the cluster: [${notReady.join(' ')}]`) : ok);
    },
  };
}

/** kubeadm's StaticPodManifest: the four manifests of a stacked control plane exist on this node. */
const staticPodManifests: Check = {
  name: 'StaticPodManifest',
  run: async ({ host }) => {
    const missing: string[] = [];
    for (const component of STATIC_PODS) {
      const file = path.posix.join(MANIFESTS_DIR, `${component}.yaml`);
      if ((await host.readFile(file)) === undefined) missing.push(file);
    }
    return missing.length > 0 ? fail(`the static Pod manifests are missing: ${missing.join(', ')} (is this a control-plane node made by tsadm or kubeadm?)`) : ok;
  },
};

async function runUpgradePreflight(ctx: UpgradeCtx): Promise<void> {
  const ignore = ctx.cfg.upgrade.ignorePreflightErrors;
  ctx.log.info('Making sure the configuration is correct:', { prefix: 'upgrade/config' });
  ctx.log.info('Reading configuration from the cluster...', { prefix: 'upgrade/config' });
  ctx.log.info("FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'", { prefix: 'upgrade/config' });
  const view = await clusterView(ctx);
  if (ctx.cfg.upgrade.printConfig) printConfiguration(ctx.log, ctx.cfg.clusterOverride?.text ?? view.texts.clusterConfigurationYaml);
  ctx.log.info('Running pre-flight checks.', { prefix: 'preflight' });
  await runChecks([isPrivilegedUser], ctx, ignore, ctx.log);
  await runChecks(await upgradeChecks(ctx), ctx, ignore, ctx.log);

  if (ctx.command === 'node') {
    if (!view.controlPlane) ctx.log.info('Skipping prepull. Not a control plane node.', { prefix: 'upgrade' });
    return;
  }

  ctx.log.info('Running cluster health checks', { prefix: 'upgrade' });
  await runChecks([createJobCheck(ctx), controlPlaneNodesReady(view), staticPodManifests], ctx, ignore, ctx.log);

  const target = await targetVersion(ctx);
  ctx.log.info(`You have chosen to change the cluster version to "${target}"`, { prefix: 'upgrade/version' });
  ctx.log.info(`Cluster version: ${view.serverVersion}`, { prefix: 'upgrade/versions' });
  const verdict = checkVersionPolicy({
    clusterVersion: view.serverVersion,
    kubeletVersions: view.kubeletVersions,
    targetVersion: target,
    allowExperimentalUpgrades: ctx.cfg.upgrade.allowExperimentalUpgrades,
    allowRCUpgrades: ctx.cfg.upgrade.allowRCUpgrades,
  });
  const refused = versionPolicyError(verdict, ctx.cfg.upgrade.force);
  if (refused) throw refused;
  // A named pre-release of the preview minor (src/versions/release.ts): its row may still change.
  const preview = prereleaseWarning(target);
  if (preview !== undefined) ctx.log.warn(preview, { prefix: 'upgrade/version' });
  if (verdict.skippable.length > 0) {
    ctx.log.warn(`Found ${verdict.skippable.length} potential version compatibility errors but skipping since the --force flag is set:`, { prefix: 'upgrade/version' });
    for (const v of verdict.skippable) ctx.log.warn(`\t- ${v.message}`, { prefix: 'upgrade/version' });
  }

  if (!(ctx.cfg.upgrade.yes || ctx.cfg.upgrade.force || ctx.dryRun)) await confirm(ctx);

  // tsadm's upgrade has no pull step (docs/images.md): say where the images come from instead.
  ctx.log.info(ctx.dryRun
    ? "Would leave pulling the required images to the kubelet (pull them beforehand with 'tsadm config images pull')"
    : "Images are pulled by the container runtime when the kubelet starts the upgraded static Pods; you can also pull them beforehand using 'tsadm config images pull'", { prefix: 'upgrade/prepull' });
}

/**
 * kubeadm's RunUpgradeChecks as of 1.35: ContainerRuntimeVersion and SystemVerification, the
 * kubelet judged one minor ahead (PR #134744: an upgrade to 1.35 on cgroup v1 stops here rather
 * than leaving a kubelet that will not start). Run for targets whose profile has the
 * ContainerRuntimeVersion check (1.35+), where that behaviour is confirmed; older targets keep
 * tsadm's earlier upgrade preflight (docs/decisions.md). A target that cannot be resolved yet
 * (no version given, an unknown minor) is reported later, where it was before.
 */
async function upgradeChecks(ctx: UpgradeCtx): Promise<Check[]> {
  const view = await initView(ctx, 'preflight').catch(() => undefined);
  if (view === undefined || view.versions.preflight.containerRuntimeVersionBelow === undefined) return [];
  const target = view.cfg.cluster.kubernetesVersion;
  const criSocket = view.cfg.init.nodeRegistration.criSocket;
  return [
    // A node whose CRI socket the cluster does not record cannot be asked (kubeadm reads it from the node).
    ...(criSocket !== '' ? [containerRuntimeVersionCheck(view.versions, target, criSocket, ctx.deps.connectRuntime)] : []),
    systemVerificationCheck(target, { upgrade: true }),
  ];
}

/** kubeadm's InteractivelyConfirmUpgrade: only "y" (any case) goes on; no input at all stops. */
async function confirm(ctx: UpgradeCtx): Promise<void> {
  ctx.log.info('Are you sure you want to proceed with the upgrade? [y/N]: ', { prefix: 'upgrade/confirm' });
  const answer = await ctx.deps.confirm();
  if (answer === undefined) {
    throw new TsadmError('E_USAGE', 'upgrade apply needs a confirmation but there is no input to read it from', {
      hint: 'pass -y (--yes) to upgrade without prompting, or answer "y" on standard input',
    });
  }
  if (answer.trim().toLowerCase() !== 'y') {
    throw new TsadmError('E_PRECONDITION', 'won\'t proceed; the user didn\'t answer (Y|y) in order to continue', { hint: 'answer "y" to upgrade' });
  }
}

export const upgradePreflightPhase: Phase<UpgradeCtx> = {
  name: 'preflight',
  summary: 'Run upgrade pre-flight checks',
  description: 'Read the configuration from the cluster, check that tsadm runs as root and that the cluster is healthy '
    + '(CreateJob, ControlPlaneNodesReady, StaticPodManifest), enforce the version policy (upgrade apply) and ask for confirmation '
    + 'unless --yes, --force or --dry-run is given.',
  example: '  # Checks whether the cluster can be upgraded to v1.20.3, asking nothing\n  tsadm upgrade apply phase preflight v1.20.3 --yes',
  flags: ['ignore-preflight-errors', 'kubeconfig', 'yes', 'force', 'allow-experimental-upgrades', 'allow-release-candidate-upgrades'],
  noExitCheck: 'always-runs',
  run: runUpgradePreflight,
};
