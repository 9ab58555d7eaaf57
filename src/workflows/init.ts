import { FLAG_NAMES, type FlagValues } from '../flags.js';
import type { WorkflowRequest, WorkflowSpec } from '../cli/yargs-kit.js';
import { resolveInitConfig } from '../config/load.js';
import type { ResolvedInitConfig } from '../config/types.js';
import { KUBERNETES_DIR } from '../constants.js';
import { detectCriSocket } from '../host/cri.js';
import { defaultRouteAddress, nodeHostname } from '../host/network.js';
import { DEFAULT_KUBERNETES_VERSION, normalizeKubernetesVersion, profileFor, supportedProfile } from '../versions/resolve.js';
import type { HelpTarget } from '../cli/help-target.js';
import type { VersionProfile } from '../versions/table-types.js';
import { validateTree, type Phase } from '../engine/phase.js';
import { runPhases } from '../engine/runner.js';
import { computeSelection } from '../engine/selection.js';
import { initPreflightPhase } from '../phases/preflight/phase.js';
import { hostPhase } from '../phases/host/phase.js';
import { hostPrepInput } from '../phases/host/input.js';
import { certsPhase } from '../phases/certs/phase.js';
import { kubeconfigPhase } from '../phases/kubeconfig/phase.js';
import { etcdPhase } from '../phases/etcd/phase.js';
import { controlPlanePhase } from '../phases/controlplane/phase.js';
import { kubeletStartPhase } from '../phases/kubelet/start.js';
import { waitControlPlanePhase, waitForKubeletPhase } from '../phases/kubelet/wait.js';
import { bootstrapTokenPhase } from '../phases/cluster/bootstrap-token.js';
import { kubeletFinalizePhaseFor } from '../phases/cluster/kubelet-finalize.js';
import { markControlPlanePhase } from '../phases/cluster/mark-control-plane.js';
import { showJoinCommandPhase } from '../phases/cluster/show-join-command.js';
import { uploadCertsPhase } from '../phases/cluster/upload-certs.js';
import { uploadConfigPhase } from '../phases/cluster/upload-config.js';
import { addonPhase } from '../phases/addons/addon-phase.js';
import { certsAutoRenewPhase } from '../phases/certs/auto-renew.js';
import type { InitCtx } from '../run/context.js';
import { startInitResume } from '../resume/init.js';
import { baseContext, readConfigFile, type CommandEnv, type Runtime } from '../run/runtime.js';
import { runWorkflow } from './run-workflow.js';
import { HELP_MINOR, markPhaseOrigins } from '../versions/kubeadm-phases.js';
import { helpTreeNote } from '../cli/help.js';
import { newPkiRunState } from '../certs/run-state.js';
import { newPatchCache } from '../patches/run.js';

/**
 * The host phase group is opt-in in init and join: a full run skips it unless --prepare-host is
 * given (kubeadm leaves the host to the user, and an init must not start editing /etc/sysctl.d
 * unasked); `<cmd> phase …` counts as asked (only `phase host` selects it), and --skip-phases host
 * still skips it. The flags a context gets say so. The certs-auto-renew phase is opt-in the same
 * way (--certificate-auto-renew, or `<cmd> phase certs-auto-renew`; src/phases/certs/auto-renew.ts).
 */
export function withHostOptIn(request: Pick<WorkflowRequest, 'flags' | 'single'>): FlagValues {
  return request.single ? { ...request.flags, 'prepare-host': true, 'certificate-auto-renew': true } : request.flags;
}

/**
 * The init workflow: kubeadm's phases in the order and with the names kubeadm of the target minor
 * has them. The run builds the tree for the target version; help and the generated `init phase …`
 * commands use the tree of the default version (aliases let either minor's names through).
 */
export function initPhases(versions: VersionProfile): Phase<InitCtx>[] {
  const { workflow } = versions;
  // Before 1.28 kubeadm started the kubelet before writing the static Pod manifests (control-plane, then etcd).
  const manifestsAndKubelet = workflow.kubeletStartAfterControlPlane
    ? [etcdPhase, controlPlanePhase, kubeletStartPhase]
    : [kubeletStartPhase, controlPlanePhase, etcdPhase];
  // host, wait-for-kubelet and certs-auto-renew are tsadm's own: marked so (src/versions/kubeadm-phases.ts)
  // and listed apart from kubeadm's tree by help; they keep their place in the run order.
  return markPhaseOrigins('init', versions.minor, [
    // tsadm's own: run only when asked (--prepare-host, or `init phase host`); see withHostOptIn.
    hostPhase<InitCtx>('init', (ctx) => Promise.resolve(hostPrepInput(ctx.cfg, ctx.versions, ctx.options.flags)), (ctx) => ctx.options.flags['prepare-host'] === true),
    initPreflightPhase(),
    certsPhase,
    kubeconfigPhase,
    ...manifestsAndKubelet,
    waitForKubeletPhase,
    // Hidden where kubeadm of the target version hides it (no `init phase` command there); it still runs.
    workflow.waitControlPlaneHidden ? { ...waitControlPlanePhase, hidden: true } : waitControlPlanePhase,
    uploadConfigPhase,
    uploadCertsPhase,
    markControlPlanePhase,
    bootstrapTokenPhase,
    kubeletFinalizePhaseFor(versions),
    addonPhase,
    // tsadm's own: run only when asked (--certificate-auto-renew, or `init phase certs-auto-renew`).
    // The last change of the run, just before show-join-command, so kubeadm's closing text (which
    // scripts read the join command from) stays the last thing init prints.
    certsAutoRenewPhase<InitCtx>({ workflow: 'init', asked: (ctx) => ctx.options.flags['certificate-auto-renew'] === true, controlPlane: () => true, tsadmPath: (ctx) => ctx.options.flags['tsadm-path'] }),
    // Before 1.25 kubeadm printed the join command after its phases, not as a phase of its own.
    workflow.showJoinCommandPhase ? showJoinCommandPhase : { ...showJoinCommandPhase, hidden: true },
  ]);
}

/**
 * `help`: the target an `init --help` command line names (src/cli/help-target.ts); its help then
 * shows kubeadm's tree of that minor. The `init phase …` commands stay the default version's.
 */
export function initWorkflow(env: CommandEnv, help?: HelpTarget): WorkflowSpec<InitCtx> {
  const phases = initPhases(profileFor(DEFAULT_KUBERNETES_VERSION));
  validateTree(phases, FLAG_NAMES);
  const target = help ? helpProfile(help.version) : undefined;
  return {
    name: 'init',
    ...(help && target
      ? { helpPhases: initPhases(target), treeNote: `(The phases of kubeadm v${target.minor}: the minor of ${help.version}, from ${help.from})` }
      : { treeNote: helpTreeNote(HELP_MINOR, 'give --kubernetes-version or --config with --help for another minor\'s; a run follows kubeadm\'s tree of its target minor') }),
    describe: 'Run this command in order to set up the Kubernetes control plane',
    phases,
    extraFlags: ['skip-certificate-key-print', 'skip-token-print', 'upload-certs', 'certificate-key', 'token', 'token-ttl', 'kubeconfig-dir', 'resume', 'prepare-host', 'certificate-auto-renew'],
    example: 'tsadm init --kubernetes-version v1.20.2 --pod-network-cidr 10.244.0.0/16',
    run: (request) => runInit(request, env),
  };
}

/** The profile of a version named on a help command line; undefined when tsadm does not deploy it (the run would say why). */
function helpProfile(version: string): VersionProfile | undefined {
  try {
    return supportedProfile(normalizeKubernetesVersion(version));
  } catch {
    return undefined;
  }
}

async function runInit(request: WorkflowRequest, env: CommandEnv): Promise<void> {
  await runWorkflow<ResolvedInitConfig, InitCtx>({
    command: 'init',
    runtime: { lock: 'init' },
    resolveConfig: (now) => resolveInit(request.flags, now),
    dryRunOf: (cfg) => cfg.init.dryRun === true,
    buildContext: (rt, cfg) => initContext(withHostOptIn(request), rt, cfg),
    run: async (ctx) => {
      if (!request.single) ctx.log.info(`Using Kubernetes version: ${ctx.cfg.cluster.kubernetesVersion}`, { prefix: 'init' });
      for (const w of ctx.cfg.warnings) ctx.log.warn(w, { prefix: 'config' });
      // Refuse a bad phase name or --skip-phases entry before anything (the resume state) is written.
      const skip = ctx.cfg.init.skipPhases;
      computeSelection(initPhases(ctx.versions), request.filter, skip);
      // Completed phases are recorded so a failed init can continue with --resume (src/resume).
      const resume = await startInitResume(ctx, { resume: request.flags.resume === true, single: request.single });
      try {
        await runPhases(initPhases(ctx.versions), ctx, { filter: request.filter, skip, ...(resume ? { hooks: resume.hooks } : {}) });
        await resume?.complete();
      } catch (caught) {
        throw resume ? await resume.failed(caught) : caught;
      }
      return resultData(ctx);
    },
  }, request.flags, env);
}

/** Resolves the configuration once; `init` and every `init phase …` build it the same way. */
export async function buildInitContext(flags: FlagValues, rt: Runtime): Promise<InitCtx> {
  return initContext(flags, rt, await resolveInit(flags, rt.startTime));
}

/** The configuration of `init` from --config and the flags (read from the real filesystem, before the seams exist). */
export async function resolveInit(flags: FlagValues, now: Date): Promise<ResolvedInitConfig> {
  const configPath = flags.config as string | undefined;
  const configText = await readConfigFile(configPath);
  const address = defaultRouteAddress();
  return resolveInitConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(configPath !== undefined ? { configPath } : {}),
    flags,
    env: { hostname: nodeHostname(), ...(address ? { defaultAdvertiseAddress: address } : {}), now },
  });
}

export async function initContext(flags: FlagValues, rt: Runtime, resolved: ResolvedInitConfig): Promise<InitCtx> {
  let cfg = resolved;
  const versions = profileFor(cfg.cluster.kubernetesVersion);
  if (cfg.init.nodeRegistration.criSocket === '') {
    const criSocket = await detectCriSocket(rt.host, { dockershimEra: versions.kubelet.containerRuntimeRemoteFlag, asUrl: versions.kubelet.criSocketUrl });
    cfg = { ...cfg, init: { ...cfg.init, nodeRegistration: { ...cfg.init.nodeRegistration, criSocket } } };
  }
  const kubeconfigDir = (flags['kubeconfig-dir'] as string | undefined) ?? KUBERNETES_DIR;
  return {
    ...baseContext(rt),
    cfg,
    versions,
    options: {
      kubeconfigDir,
      kubeconfigPath: (flags.kubeconfig as string | undefined) ?? `${kubeconfigDir}/admin.conf`,
      csrOnly: flags['csr-only'] === true,
      csrDir: flags['csr-dir'] as string | undefined,
      uploadCerts: flags['upload-certs'] === true,
      skipTokenPrint: flags['skip-token-print'] === true,
      skipCertificateKeyPrint: flags['skip-certificate-key-print'] === true,
      flags,
    },
    state: { pki: newPkiRunState(), patches: newPatchCache() },
  };
}

function resultData(ctx: InitCtx): Record<string, unknown> {
  return {
    kubernetesVersion: ctx.cfg.cluster.kubernetesVersion,
    dryRun: ctx.dryRun,
    ...(ctx.state.joinCommand ? { joinCommand: ctx.state.joinCommand } : {}),
    ...(ctx.state.controlPlaneJoinCommand ? { controlPlaneJoinCommand: ctx.state.controlPlaneJoinCommand } : {}),
  };
}
