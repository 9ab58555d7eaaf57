/**
 * An upgrade plan's static Pod waits, replayed by `tsadm apply` as `tsadm upgrade apply` does
 * them (src/phases/upgrade/static-pod-upgrade.ts): after the step that wrote a component's new
 * manifest, wait for the kubelet to run it (a new mirror Pod hash, its Pods Running, its health
 * endpoint answering); when it does not come back, put the backed-up manifest (written by an
 * earlier step of the plan) back, wait for the old component, and stop with an error naming the
 * component and the backup.
 */
import { formatDuration } from '../duration.js';
import { MODES } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import { sha256Hex } from '../host/rooted-host.js';
import type { KubeApi } from '../kube/types.js';
import type { PhaseLogger } from '../log/logger.js';
import { httpHealthCheck, type HealthCheck } from '../health/http-check.js';
import { waitForHealthy } from '../health/wait-loop.js';
import { waitForMirrorPodHash, waitForRunningPods } from '../health/mirror-pod.js';
import type { Plan, StaticPodWaitStep } from './types.js';

export interface StaticPodWaitDeps {
  readonly host: Host;
  readonly log: PhaseLogger;
  /** An API client without retries of its own (each poll is the retry). */
  openApi(kubeconfig: string): Promise<KubeApi>;
  readonly check?: HealthCheck;
}

/** Per component: the mirror Pod hash to move away from, or ANY_HASH when the new manifest was already in place (an apply run again). */
export type HashesBefore = ReadonlyMap<string, string>;
/** Not a hash the kubelet writes (those are hex): accept whatever the mirror Pod carries. */
const ANY_HASH = 'any';

const key = (step: StaticPodWaitStep): string => `${step.node}/${step.component}`;

function staticPodWaits(plan: Plan): StaticPodWaitStep[] {
  return plan.steps.filter((s): s is StaticPodWaitStep => s.type === 'wait' && s.for === 'static-pod');
}

/**
 * Read before the first step: what each component's mirror Pod runs now. A manifest already as
 * the plan leaves it (an interrupted apply run again) needs no new hash, only a running component.
 */
export async function hashesBeforeApply(plan: Plan, deps: StaticPodWaitDeps): Promise<HashesBefore> {
  const out = new Map<string, string>();
  for (const step of staticPodWaits(plan)) {
    const written = [...plan.steps].reverse().find((s) => s.type === 'file' && s.path === step.manifest);
    const onDisk = await deps.host.readFile(step.manifest);
    if (written?.type === 'file' && onDisk !== undefined && sha256Hex(onDisk) === written.sha256) {
      out.set(key(step), ANY_HASH);
      continue;
    }
    const api = await deps.openApi(step.kubeconfig);
    const r = await waitForMirrorPodHash(api, step.node, step.component, () => true, { timeoutMs: 30_000, log: () => undefined });
    if (!r.ok) {
      throw new TsadmError('E_PRECONDITION', `cannot read the mirror Pod kube-system/${step.component}-${step.node} before applying the upgrade (${r.lastProblem})`, {
        hint: 'the plan upgrades a running control plane: apply it where the kubelet runs the static Pods and the API server answers',
      });
    }
    out.set(key(step), r.value);
  }
  return out;
}

export async function waitForStaticPod(step: StaticPodWaitStep, before: HashesBefore, deps: StaticPodWaitDeps): Promise<void> {
  const from = before.get(key(step)) ?? ANY_HASH;
  const problem = await waitFor(step, (h) => from === ANY_HASH || h !== from, deps);
  if (problem === undefined) {
    deps.log.info(`Component "${step.component}" upgraded successfully!`, { prefix: 'upgrade/staticpods' });
    return;
  }
  const backup = await deps.host.readFile(step.backup);
  if (backup === undefined) {
    throw new TsadmError('E_TIMEOUT', `upgrading ${step.component} failed: ${problem}; its backup ${step.backup} is gone, so it was not rolled back`, {
      hint: `put the previous manifest back in ${step.manifest} yourself`,
    });
  }
  await deps.host.writeFile(step.manifest, backup, { mode: MODES.manifest, kind: 'manifest', description: `static Pod manifest for "${step.component}" (restored)` });
  deps.log.info(`Rolled back ${step.component} to the manifest backed up in "${step.backup}"`, { prefix: 'upgrade/staticpods' });
  const still = await waitFor(step, (h) => from === ANY_HASH || h === from, deps);
  throw new TsadmError('E_TIMEOUT', `upgrading ${step.component} failed: ${problem}; rolled back ${step.component} to ${step.backup}${still ? ` (and it has not come back yet: ${still})` : ''}`, {
    hint: `check the kubelet log and the ${step.component} container (crictl ps -a | grep ${step.component}); the rest of the plan was not applied`,
  });
}

/** Waits for a mirror Pod hash `accept`s, the Pods Running and the health endpoint; returns the problem, if any. */
async function waitFor(step: StaticPodWaitStep, accept: (hash: string) => boolean, deps: StaticPodWaitDeps): Promise<string | undefined> {
  const timeoutMs = step.timeoutSeconds * 1000;
  const deadline = Date.now() + timeoutMs;
  const within = formatDuration(timeoutMs);
  const log = (prefix: string) => (m: string): void => deps.log.info(m, { prefix });
  const api = await deps.openApi(step.kubeconfig);
  const hash = await waitForMirrorPodHash(api, step.node, step.component, accept, { timeoutMs, log: log('upgrade/staticpods') });
  if (!hash.ok) return `the kubelet did not run the manifest within ${within} (${hash.lastProblem})`;
  const pods = await waitForRunningPods(api, step.component, { timeoutMs: Math.max(0, deadline - Date.now()), log: log('apiclient') });
  if (!pods.ok) return `its Pods were not Running within ${within} (${pods.lastProblem})`;
  const health = await waitForHealthy([{ component: step.component, url: step.healthUrl }], { timeoutMs: Math.max(0, deadline - Date.now()), check: deps.check ?? httpHealthCheck, maxIntervalMs: 500 });
  return health.ok ? undefined : `${step.healthUrl} did not answer within ${within} (${health.states[0]?.lastDetail ?? 'not checked'})`;
}
