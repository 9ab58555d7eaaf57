/**
 * Watching the kubelet take a new static Pod manifest into use, through the API server (kubeadm's
 * apiclient.KubeWaiter): the mirror Pod `<component>-<node>` in kube-system carries the hash of
 * the manifest the kubelet runs (annotation kubernetes.io/config.hash), so a new hash means the
 * kubelet restarted the component from the new manifest; then every Pod with the component's
 * label must be Running.
 *
 * Every poll is one request that may fail (the API server itself restarts, or its etcd does):
 * a failure only means "not yet" until the deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '../errors.js';
import type { KubeApi, KubeObject } from '../kube/types.js';

const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';

export interface PollOptions {
  readonly timeoutMs: number;
  /** kubeadm's APICallRetryInterval: 500 ms. */
  readonly intervalMs?: number;
  readonly log: (message: string) => void;
  readonly now?: () => number;
}

/** kubeadm's getStaticPodSingleHash; undefined when the mirror Pod does not exist (yet). */
async function mirrorPodHash(api: KubeApi, nodeName: string, component: string): Promise<string | undefined> {
  const pod = await api.get('Pod', `${component}-${nodeName}`, 'kube-system');
  return pod?.metadata.annotations?.[CONFIG_HASH_ANNOTATION];
}

const NOT_YET = 'not yet';

export type PollResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly lastProblem: string };

/** Polls `attempt` until it returns a value or the deadline passes; errors count as "not yet". */
async function poll<T>(attempt: () => Promise<T | undefined>, opts: PollOptions, describe: (err: unknown) => string): Promise<PollResult<T>> {
  const now = opts.now ?? Date.now;
  const deadline = now() + opts.timeoutMs;
  let lastProblem: string;
  for (;;) {
    try {
      const v = await attempt();
      if (v !== undefined) return { ok: true, value: v };
      lastProblem = NOT_YET;
    } catch (err) {
      lastProblem = describe(err);
    }
    if (now() >= deadline) return { ok: false, lastProblem };
    await sleep(Math.min(opts.intervalMs ?? 500, Math.max(0, deadline - now())));
  }
}

/**
 * kubeadm's WaitForStaticPodSingleHash / WaitForStaticPodHashChange in one: polls the mirror Pod
 * until its hash satisfies `wanted`, printing kubeadm's "Static pod: … hash: …" line whenever
 * the hash seen changes (kubeadm prints it on every poll).
 */
export async function waitForMirrorPodHash(api: KubeApi, nodeName: string, component: string, wanted: (hash: string) => boolean, opts: PollOptions): Promise<PollResult<string>> {
  const name = `${component}-${nodeName}`;
  let seen: string | undefined;
  const r = await poll(async () => {
    const hash = await mirrorPodHash(api, nodeName, component);
    if (hash === undefined) throw new Error(`the mirror Pod kube-system/${name} does not exist or has no ${CONFIG_HASH_ANNOTATION} annotation`);
    if (hash !== seen) opts.log(`Static pod: ${name} hash: ${hash}`);
    seen = hash;
    return wanted(hash) ? hash : undefined;
  }, opts, (err) => errorMessage(err));
  return !r.ok && r.lastProblem === NOT_YET ? { ok: false, lastProblem: `the mirror Pod kube-system/${name} still has hash ${seen ?? '(none)'}` } : r;
}

/** kubeadm's WaitForPodsWithLabel: at least one Pod labelled component=<component> in kube-system, all Running. */
export async function waitForRunningPods(api: KubeApi, component: string, opts: PollOptions): Promise<PollResult<number>> {
  const selector = `component=${component}`;
  let lastCount = -1;
  const r = await poll(async () => {
    let pods: KubeObject[];
    try {
      pods = await api.list('Pod', 'kube-system', { labelSelector: selector });
    } catch (err) {
      opts.log(`Error getting Pods with label selector "${selector}" [${errorMessage(err)}]`);
      throw err;
    }
    if (pods.length !== lastCount) opts.log(`Found ${pods.length} Pods for label selector ${selector}`);
    lastCount = pods.length;
    if (pods.length === 0) return undefined;
    return pods.every((p) => (p.status as { phase?: unknown } | undefined)?.phase === 'Running') ? pods.length : undefined;
  }, opts, (err) => errorMessage(err));
  return !r.ok && r.lastProblem === NOT_YET ? { ok: false, lastProblem: lastCount === 0 ? `no Pod has the label ${selector}` : `not every Pod with the label ${selector} is Running` } : r;
}
