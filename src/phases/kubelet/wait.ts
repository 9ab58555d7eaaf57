/**
 * `wait-control-plane`: wait until the kubelet and the control-plane components it runs from
 * the static pod manifests answer their health endpoints (concurrently, TLS verification off,
 * bounded by timeouts.controlPlaneComponentHealthCheck). `wait-for-kubelet`: the kubelet alone,
 * bounded by timeouts.kubeletHealthCheck.
 * Neither writes anything. In a dry run there is nothing to wait for: both are skipped with a
 * reason (kubeadm's dry-run waiter likewise returns at once).
 */
import { formatDuration } from '../../duration.js';
import { MANIFESTS_DIR } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { DOCKERSHIM_SOCKET, criSocketFor } from './flags-env.js';
import { httpHealthCheck, type HealthCheck } from '../../health/http-check.js';
import { kubeletHealthTarget, waitControlPlaneTargets } from './targets.js';
import { waitForHealthy, type HealthTarget, type TargetState, type WaitOptions } from '../../health/wait-loop.js';

export interface WaitPhaseOptions {
  /** The health check (default: a real HTTP(S) GET). */
  readonly check?: HealthCheck;
  /** Override the endpoints (tests point them at local servers). */
  readonly targets?: (ctx: InitCtx) => readonly HealthTarget[];
  readonly initialIntervalMs?: number;
  readonly progressEveryMs?: number;
}

/** A dry run started nothing to wait for (docs/decisions.md, decisions 3 and 17; kubeadm's dry-run waiter skips too). */
const dryRunSkip = (what: string) => (ctx: InitCtx): string | undefined => (ctx.dryRun ? `dry run: would wait for ${what}` : undefined);

export function makeWaitControlPlanePhase(opts: WaitPhaseOptions = {}): Phase<InitCtx> {
  return {
    name: 'wait-control-plane',
    summary: 'Wait for the control plane to start',
    description: 'Wait until the kubelet and kube-apiserver report healthy, and kube-controller-manager and kube-scheduler too when the WaitForAllControlPlaneComponents feature gate is on (the default from Kubernetes 1.33).',
    example: '  # Waits for the control plane started by the kubelet from the static Pod manifests.\n  tsadm init phase wait-control-plane --config config.yaml',
    skipIf: dryRunSkip('the control plane to become healthy'),
    noExitCheck: 'always-runs',
    run: async (ctx) => {
      const timeoutMs = ctx.cfg.init.timeouts.controlPlaneComponentHealthCheckMs;
      const targets = opts.targets?.(ctx) ?? [kubeletHealthTarget(ctx.cfg), ...waitControlPlaneTargets(ctx.cfg, ctx.versions)];
      ctx.log.info(`Waiting for the kubelet to boot up the control plane as static Pods from directory "${MANIFESTS_DIR}". This can take up to ${formatDuration(timeoutMs)}`);
      for (const t of targets) ctx.log.info(`Checking ${t.component} at ${t.url}`, { verbosity: 1 });
      const result = await waitForHealthy(targets, {
        ...waitOptions(ctx, opts, timeoutMs),
        onHealthy: (s) => ctx.log.info(`${s.target.component} is healthy after ${formatDuration(s.healthyAfterMs ?? 0)}`),
      });
      if (!result.ok) throw await timeoutError(ctx, `the control plane did not become healthy within ${formatDuration(timeoutMs)}`, result.states);
      // Go's %f: six decimals.
      ctx.log.info(`All control plane components are healthy after ${(result.elapsedMs / 1000).toFixed(6)} seconds`, { prefix: 'apiclient' });
    },
  };
}

export function makeWaitForKubeletPhase(opts: WaitPhaseOptions = {}): Phase<InitCtx> {
  return {
    name: 'wait-for-kubelet',
    summary: 'Wait for the kubelet to report healthy',
    description: 'Wait until the kubelet answers on its healthz endpoint (http://127.0.0.1:10248/healthz by default).',
    example: '  # Waits until the kubelet started by kubelet-start is healthy.\n  tsadm init phase wait-for-kubelet --config config.yaml',
    skipIf: dryRunSkip('a healthy kubelet'),
    noExitCheck: 'always-runs',
    run: async (ctx) => {
      const timeoutMs = ctx.cfg.init.timeouts.kubeletHealthCheckMs;
      const targets = opts.targets?.(ctx) ?? [kubeletHealthTarget(ctx.cfg)];
      const url = targets.map((t) => t.url).join(', ');
      ctx.log.info(`Waiting for a healthy kubelet at ${url}. This can take up to ${formatDuration(timeoutMs)}`, { prefix: 'kubelet-check' });
      const result = await waitForHealthy(targets, waitOptions(ctx, opts, timeoutMs));
      if (!result.ok) throw await timeoutError(ctx, `The kubelet is not healthy after ${formatDuration(timeoutMs)}`, result.states);
      ctx.log.info(`The kubelet is healthy after ${formatDuration(result.elapsedMs)}`, { prefix: 'kubelet-check' });
    },
  };
}

export const waitControlPlanePhase: Phase<InitCtx> = makeWaitControlPlanePhase();
export const waitForKubeletPhase: Phase<InitCtx> = makeWaitForKubeletPhase();

function waitOptions(ctx: InitCtx, opts: WaitPhaseOptions, timeoutMs: number): WaitOptions {
  return {
    timeoutMs,
    check: opts.check ?? httpHealthCheck,
    ...(opts.initialIntervalMs !== undefined ? { initialIntervalMs: opts.initialIntervalMs } : {}),
    ...(opts.progressEveryMs !== undefined ? { progressEveryMs: opts.progressEveryMs } : {}),
    onProgress: (pending, elapsedMs) => {
      const list = pending.map((s) => `${s.target.component} (${s.lastDetail})`).join(', ');
      ctx.log.info(`still waiting after ${formatDuration(Math.round(elapsedMs / 1000) * 1000)} for: ${list}`);
    },
  };
}

async function timeoutError(ctx: InitCtx, message: string, states: readonly TargetState[]): Promise<TsadmError> {
  const pending = states.filter((s) => s.healthyAfterMs === undefined);
  const kubelet = await ctx.host.service('is-active', 'kubelet');
  const kubeletState = kubelet.via === 'none' ? 'unknown (no service manager)' : kubelet.ok ? 'active' : 'not active';
  const socket = criSocketFor(ctx.cfg.init.nodeRegistration.criSocket, ctx.versions);
  const list = socket === DOCKERSHIM_SOCKET
    ? '"docker ps -a | grep kube | grep -v pause", then "docker logs CONTAINERID"'
    : `"crictl --runtime-endpoint ${crictlEndpoint(socket)} ps -a | grep kube | grep -v pause", then "crictl --runtime-endpoint ${crictlEndpoint(socket)} logs CONTAINERID"`;
  return new TsadmError('E_TIMEOUT', `${message}: ${pending.map((s) => s.target.component).join(', ')} not ready`, {
    hint: `check the kubelet ("systemctl status kubelet", "journalctl -xeu kubelet") and the control-plane containers (${list})`,
    details: [
      ...pending.map((s) => `${s.target.component} at ${s.target.url}: ${s.lastDetail} (${s.attempts} checks)`),
      `kubelet service: ${kubeletState}`,
    ],
  });
}

function crictlEndpoint(socket: string): string {
  return socket.startsWith('/') ? `unix://${socket}` : socket;
}
