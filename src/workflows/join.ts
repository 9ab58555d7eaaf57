import { FLAG_NAMES, type FlagName, type FlagValues } from '../flags.js';
import { TsadmError } from '../errors.js';
import type { WorkflowRequest, WorkflowSpec } from '../cli/yargs-kit.js';
import { resolveJoinConfig } from '../config/load.js';
import type { ResolvedJoinConfig } from '../config/types.js';
import { defaultRouteAddress, nodeHostname } from '../host/network.js';
import { validateTree, type Phase } from '../engine/phase.js';
import { runPhases } from '../engine/runner.js';
import { checkEtcdPhase, controlPlaneJoinPhase, etcdJoinPhase } from '../phases/join/control-plane-join.js';
import { controlPlanePreparePhase } from '../phases/join/control-plane-prepare.js';
import { joinDoneText } from '../phases/join/closing.js';
import { joinKubeletStartPhase } from '../phases/join/kubelet-start.js';
import { joinPreflightPhase } from '../phases/join/preflight.js';
import { hostPhase } from '../phases/host/phase.js';
import { certsAutoRenewPhase, checkAutoRenewTarget } from '../phases/certs/auto-renew.js';
import { DISCOVERY_FLAGS } from '../phases/join/flags.js';
import { hostPrepInput } from '../phases/host/input.js';
import { clusterConfig, initView } from '../phases/join/state.js';
import { withHostOptIn } from './init.js';
import { joinWaitControlPlanePhase, kubeletWaitBootstrapPhase } from '../phases/join/wait-bootstrap.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../versions/resolve.js';
import type { VersionProfile } from '../versions/table-types.js';
import { newJoinRunState } from '../phases/join/state.js';
import { realJoinDeps, type JoinDeps } from '../phases/join/deps.js';
import type { JoinCtx } from '../phases/join/context.js';
import { baseContext, readConfigFile, type CommandEnv, type Runtime } from '../run/runtime.js';
import { runWorkflow } from './run-workflow.js';
import { HELP_MINOR, markPhaseOrigins, phaseNotInMinor } from '../versions/kubeadm-phases.js';
import { SUPPORTED_MINORS } from '../versions/minors.js';
import { computeSelection, normalizePath } from '../engine/selection.js';
import { helpTreeNote } from '../cli/help.js';

/**
 * kubeadm's join phases of the given minor, in its order (check-etcd hidden, as there): 1.31+
 * adds etcd-join and kubelet-wait-bootstrap after kubelet-start (PRs #125582, #125780; both
 * hidden and "[EXPERIMENTAL]" until 1.33 shows kubelet-wait-bootstrap, PR #129956), 1.30+ ends with
 * wait-control-plane, "EXPERIMENTAL" until WaitForAllControlPlaneComponents is GA in 1.34
 * (PRs #123341, #132594). From 1.35 etcd-join is visible and control-plane-join/etcd hidden and
 * deprecated (ControlPlaneKubeletLocalMode GA, PR #134106); control-plane-join/update-status is
 * hidden from 1.31, where kubeadm removed it (PR #124373).
 * The cluster's version is only known after discovery, so a run uses the tree of the default
 * (newest) version and each of these phases skips itself when the cluster's minor or gates say so;
 * help and the `join phase …` commands use that tree too.
 */
export function joinPhases(versions: VersionProfile): Phase<JoinCtx>[] {
  const { workflow } = versions;
  // host and certs-auto-renew are tsadm's own: marked so (src/versions/kubeadm-phases.ts), listed apart by help.
  return markPhaseOrigins('join', versions.minor, [
    // tsadm's own, opt-in (withHostOptIn in src/workflows/init.ts); its inputs are the cluster's (discovery first).
    hostPhase<JoinCtx>('join', async (ctx) => {
      const view = await initView(ctx, 'host');
      return hostPrepInput(view.cfg, view.versions, ctx.flags);
    }, (ctx) => ctx.flags['prepare-host'] === true),
    joinPreflightPhase,
    controlPlanePreparePhase,
    checkEtcdPhase,
    joinKubeletStartPhase,
    ...(workflow.joinLocalModePhases ? [etcdJoinPhase(workflow.joinLocalModeExperimental, workflow.joinEtcdJoinAlways), kubeletWaitBootstrapPhase(workflow.joinLocalModeExperimental)] : []),
    controlPlaneJoinPhase(workflow.joinEtcdJoinAlways, workflow.joinUpdateStatusRemoved),
    ...(workflow.joinWaitControlPlane ? [joinWaitControlPlanePhase(workflow.waitControlPlaneHidden)] : []),
    // tsadm's own, last: only when asked (--certificate-auto-renew, or `join phase certs-auto-renew`),
    // and only on a control plane (a worker join asking for it is refused up front, in runJoin).
    certsAutoRenewPhase<JoinCtx>({
      workflow: 'join',
      asked: (ctx) => ctx.flags['certificate-auto-renew'] === true,
      controlPlane: (ctx) => ctx.cfg.join.controlPlane !== undefined,
      tsadmPath: (ctx) => ctx.flags['tsadm-path'],
      flags: [...DISCOVERY_FLAGS, 'control-plane'],
      positional: '[api-server-endpoint]',
    }),
  ]);
}

/** The tree a join runs and shows: the default version's (see joinPhases). */
function runTree(): Phase<JoinCtx>[] {
  return joinPhases(profileFor(DEFAULT_KUBERNETES_VERSION));
}

export interface JoinWorkflowOptions {
  /** Seams for tests (fake discovery, quicker polls); the real ones by default. */
  readonly deps?: Partial<JoinDeps>;
}

export function joinWorkflow(env: CommandEnv, opts: JoinWorkflowOptions = {}): WorkflowSpec<JoinCtx> {
  const phases = runTree();
  validateTree(phases, FLAG_NAMES);
  return {
    name: 'join',
    treeNote: helpTreeNote(HELP_MINOR, 'a join learns the cluster\'s minor only after discovery and runs this tree, whose newer phases skip themselves on an older cluster'),
    describe: 'Run this on any machine you wish to join an existing cluster',
    positional: '[api-server-endpoint]',
    phases,
    extraFlags: ['patches', 'prepare-host', 'certificate-auto-renew'],
    example: 'tsadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:<hash>',
    run: (request) => runJoin(request, env, opts),
  };
}

async function runJoin(request: WorkflowRequest, env: CommandEnv, opts: JoinWorkflowOptions = {}): Promise<void> {
  await runWorkflow<ResolvedJoinConfig, JoinCtx>({
    command: 'join',
    runtime: { lock: 'join' },
    resolveConfig: (now) => resolveJoin(request, now),
    dryRunOf: (cfg) => cfg.join.dryRun === true,
    buildContext: (rt, cfg) => Promise.resolve(joinContext(withHostOptIn(request), rt, realJoinDeps(opts.deps), cfg)),
    run: async (ctx, rt) => {
      for (const w of ctx.cfg.warnings) ctx.log.warn(w, { prefix: 'config' });
      // Refused before any phase runs, not at the end of a join that already happened (src/phases/certs/auto-renew.ts).
      checkAutoRenewTarget(request.flags['certificate-auto-renew'] === true, ctx.cfg.join.controlPlane !== undefined);
      await refuseLaterPhases(ctx, request.filter, ctx.cfg.join.skipPhases);
      await runPhases(runTree(), ctx, { filter: request.filter, skip: ctx.cfg.join.skipPhases });
      const controlPlane = ctx.cfg.join.controlPlane !== undefined;
      const stackedEtcd = (await ctx.state.cluster?.catch(() => undefined))?.init.cluster.etcd.mode === 'local';
      if (!request.single && !rt.dryRun) ctx.log.output(joinDoneText(controlPlane, stackedEtcd));
      return { controlPlane, dryRun: rt.dryRun, nodeName: ctx.cfg.join.nodeRegistration.name };
    },
  }, request.flags, env);
}

/**
 * A phase kubeadm of the cluster's minor does not have yet (etcd-join and kubelet-wait-bootstrap
 * before 1.31, wait-control-plane before 1.30) is refused when named, as that kubeadm refuses it.
 * join learns the minor from the cluster, so only a command line naming such a phase reads the
 * cluster first; otherwise those phases skip themselves on an older cluster as before.
 */
async function refuseLaterPhases(ctx: JoinCtx, filter: readonly string[], skip: readonly string[]): Promise<void> {
  const [oldest] = SUPPORTED_MINORS;
  if (oldest === undefined || ![...filter, ...skip].some((n) => phaseNotInMinor('join', oldest, normalizePath(n)) !== undefined)) return;
  const { minor } = (await clusterConfig(ctx)).versions;
  computeSelection(markPhaseOrigins('join', minor, runTree()), filter, skip);
}

/** Resolves the join configuration once; `join` and every `join phase …` build it the same way. */
export async function buildJoinContext(request: Pick<WorkflowRequest, 'flags' | 'positionals'>, rt: Runtime, deps: JoinDeps): Promise<JoinCtx> {
  return joinContext(request.flags, rt, deps, await resolveJoin(request, rt.startTime));
}

/**
 * A join given no credentials at all (no --config, no token, no discovery file) fails in one line
 * that names the flags to give, before the configuration's validation lists the empty token and
 * CA pin as field errors ("discovery.bootstrapToken.token: invalid value"), which never say which
 * flag sets them. Pure.
 */
export function checkJoinCredentials(flags: FlagValues): void {
  const given = (name: FlagName): boolean => flags[name] !== undefined && flags[name] !== '';
  if (given('config') || given('discovery-file') || given('token') || given('discovery-token')) return;
  throw new TsadmError(
    'E_USAGE',
    'join needs credentials: --token <token> with --discovery-token-ca-cert-hash sha256:<hash>, or --discovery-file <file>',
    { hint: 'on the control plane, "tsadm token create --print-join-command" prints the whole join command' },
  );
}

/** The configuration of `join` from --config, the flags and the endpoint (read before the seams exist). */
async function resolveJoin(request: Pick<WorkflowRequest, 'flags' | 'positionals'>, now: Date): Promise<ResolvedJoinConfig> {
  const flags: FlagValues = request.flags;
  checkJoinCredentials(flags);
  const configPath = flags.config as string | undefined;
  const configText = await readConfigFile(configPath);
  const address = defaultRouteAddress();
  const endpoint = request.positionals[0];
  return resolveJoinConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(configPath !== undefined ? { configPath } : {}),
    ...(endpoint !== undefined ? { apiServerEndpoint: endpoint } : {}),
    flags,
    env: { hostname: nodeHostname(), ...(address ? { defaultAdvertiseAddress: address } : {}), now },
  });
}

function joinContext(flags: FlagValues, rt: Runtime, deps: JoinDeps, cfg: ResolvedJoinConfig): JoinCtx {
  return {
    ...baseContext(rt),
    cfg,
    flags,
    deps,
    state: newJoinRunState(),
  };
}
