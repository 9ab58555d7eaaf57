/**
 * Restarting control-plane static pods so they load renewed certificates (`certs renew
 * --restart`). A static pod is restarted the way the kubelet allows: its manifest leaves the
 * manifests dir until the component has stopped, then comes back byte for byte (kubeadm's
 * upgrade swaps manifests the same way). A copy waits under /etc/kubernetes/tmp meanwhile, so an
 * interrupted restart can be undone by hand, and the manifest is put back whatever happens.
 *
 * "Stopped" and "running again" are judged by the component's own liveness probe, read from its
 * manifest (kubeadm writes one for each): nothing listening means the old process is gone; a
 * passing probe means the new one serves. No container runtime access is needed.
 *
 * Components restart one after another, each healthy before the next; etcd is restarted with the
 * machine's API server stopped around it (restartInOrder says why).
 */
import path from 'node:path';
import { TMP_DIR } from '../constants.js';
import { TsadmError } from '../errors.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/events.js';
import { manifestPath } from '../manifest/write.js';
import type { Component } from './inventory.js';
import { probeFromManifest, type HttpProbe, type ProbeState } from './probe.js';

export interface RestartDeps {
  readonly host: Host;
  readonly log: Pick<Logger, 'info' | 'warn'>;
  /** Runs a liveness probe (real HTTP by default; tests script it). */
  readonly probe: (probe: HttpProbe) => Promise<ProbeState>;
  readonly timeoutMs?: number;
  readonly pollMs?: number;
  /**
   * How long the manifest stays out after the component is seen down: a component that was
   * already down (crash-looping on an old certificate) must still be noticed as removed by the
   * kubelet, whose file watch reacts within a second.
   */
  readonly settleMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The copies of manifests being restarted: /etc/kubernetes/tmp/tsadm-restart-<ms>-<component>/<component>.yaml. */
const BACKUP_PREFIX = 'tsadm-restart-';
const STATIC_POD_COMPONENTS: readonly Component[] = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(d: RestartDeps, what: string, check: () => Promise<boolean>): Promise<void> {
  const now = d.now ?? Date.now;
  const sleep = d.sleep ?? defaultSleep;
  const deadline = now() + (d.timeoutMs ?? 180_000);
  for (;;) {
    if (await check()) return;
    if (now() >= deadline) {
      throw new TsadmError('E_TIMEOUT', `timed out waiting for ${what}`, {
        hint: 'check the kubelet log; the manifest is in place again, so the kubelet keeps trying',
      });
    }
    await sleep(d.pollMs ?? 500);
  }
}

/** Restarts one static pod and waits until its liveness probe passes again. */
export async function restartStaticPod(d: RestartDeps, component: Component): Promise<void> {
  const held = await takeOut(d, component, `Restarting ${component}: ${manifestPath(component)} is moved out until the kubelet has stopped it`);
  try {
    await waitStopped(d, held);
    await (d.sleep ?? defaultSleep)(d.settleMs ?? 3000);
  } finally {
    await putBack(d, held);
  }
  await waitHealthy(d, held);
}

/**
 * Restarts COMPONENTS (etcd first, as the callers sort them) one after another, each healthy
 * before the next starts; AFTER runs after each step with the components it restarted. Returns
 * every component restarted, in order.
 *
 * etcd on a machine that also runs kube-apiserver is the one exception to "one at a time": the
 * API server is stopped first and comes back only after etcd is healthy again (decision 66). An
 * API server whose etcd is away keeps its port open and holds every request (its etcd health
 * check waits 2 s), so a load balancer keeps sending clients to it until its health check gives
 * up; stopped, it refuses connections and the balancer sends them to another control plane at
 * once. On one control plane it also spares the kubelet's calls through a hanging API server and
 * the API server's crash loop while etcd is away. The API server is restarted then even when its
 * own certificates were not renewed.
 */
export async function restartInOrder(d: RestartDeps, components: readonly Component[], after?: (restarted: readonly Component[]) => Promise<void>): Promise<Component[]> {
  const steps = await plannedRestarts(d.host, components);
  for (const step of steps) {
    if (step.length === 1) await restartStaticPod(d, step[0]!);
    else await restartEtcdWithApiServerStopped(d);
    await after?.(step);
  }
  return steps.flat();
}

/**
 * The steps restartInOrder takes (pure): each component alone, except etcd, which takes the API
 * server with it when this machine runs one (API_SERVER_HERE); a step is [etcd, kube-apiserver] then.
 */
export function restartSteps(components: readonly Component[], apiServerHere: boolean): Component[][] {
  const steps: Component[][] = [];
  for (const c of components) {
    if (steps.some((s) => s.includes(c))) continue;
    steps.push(c === 'etcd' && apiServerHere ? ['etcd', 'kube-apiserver'] : [c]);
  }
  return steps;
}

/** restartSteps for this machine: is there a kube-apiserver static pod manifest? */
export async function plannedRestarts(host: Host, components: readonly Component[]): Promise<Component[][]> {
  return restartSteps(components, components.includes('etcd') && (await host.stat(manifestPath('kube-apiserver'))) !== undefined);
}

/** What a dry run says for one step of plannedRestarts. */
export function describeRestartStep(step: readonly Component[]): string {
  return step.length === 1
    ? `Would restart ${step[0]!} (its static pod manifest leaves and re-enters the manifests dir), then wait until its liveness probe passes`
    : 'Would stop kube-apiserver, restart etcd, and start kube-apiserver again once etcd passes its liveness probe (their static pod manifests leave and re-enter the manifests dir)';
}

async function restartEtcdWithApiServerStopped(d: RestartDeps): Promise<void> {
  const api = await takeOut(d, 'kube-apiserver', `Stopping kube-apiserver while etcd restarts (stopped, it refuses connections rather than holding them without etcd): ${manifestPath('kube-apiserver')} is moved out until the kubelet has stopped it`);
  try {
    await waitStopped(d, api);
    await restartStaticPod(d, 'etcd');
  } finally {
    await putBack(d, api);
  }
  await waitHealthy(d, api);
}

/** A static pod whose manifest is out of the manifests dir, with what it takes to put it back. */
interface HeldPod {
  readonly component: Component;
  readonly manifest: string;
  readonly content: Buffer;
  readonly mode: number;
  readonly backupDir: string;
  readonly probe: HttpProbe;
}

/** Keeps a copy of COMPONENT's manifest under /etc/kubernetes/tmp, then removes the manifest. */
async function takeOut(d: RestartDeps, component: Component, announce: string): Promise<HeldPod> {
  const manifest = manifestPath(component);
  const [content, st] = await Promise.all([d.host.readFile(manifest), d.host.stat(manifest)]);
  if (!content || !st) {
    throw new TsadmError('E_PRECONDITION', `${component} is not a static pod on this node (${manifest} does not exist)`, {
      hint: `restart ${component} the way it is run here`,
    });
  }
  const probe = probeFromManifest(content.toString('utf8'));
  if (!probe) {
    throw new TsadmError('E_PRECONDITION', `${manifest} has no HTTP liveness probe to tell when ${component} is back`, {
      hint: `restart ${component} yourself`,
    });
  }
  // One directory per component: two held at once must not share (each is removed when its pod is back).
  const backupDir = path.posix.join(TMP_DIR, `${BACKUP_PREFIX}${Date.now()}-${component}`);
  const mode = st.mode & 0o7777;
  await d.host.writeFile(path.posix.join(backupDir, `${component}.yaml`), content, { mode, kind: 'manifest', description: `copy of the ${component} manifest during its restart` });
  d.log.info(announce);
  await d.host.remove(manifest);
  return { component, manifest, content, mode, backupDir, probe };
}

async function waitStopped(d: RestartDeps, held: HeldPod): Promise<void> {
  await until(d, `the kubelet to stop ${held.component}`, async () => (await d.probe(held.probe)) === 'down');
}

/** The manifest back byte for byte with its mode; the kubelet starts the pod again. */
async function putBack(d: RestartDeps, held: HeldPod): Promise<void> {
  await d.host.writeFile(held.manifest, held.content, { mode: held.mode, kind: 'manifest', description: `${held.component} static pod manifest` });
}

async function waitHealthy(d: RestartDeps, held: HeldPod): Promise<void> {
  await until(d, `${held.component} to pass its liveness probe again (${held.probe.url})`, async () => (await d.probe(held.probe)) === 'up');
  await d.host.remove(held.backupDir);
  d.log.info(`${held.component} restarted and healthy`);
}

/**
 * After a kill in the middle of a restart: every manifest still waiting in a tsadm-restart-*
 * copy whose static pod manifest is absent is put back (byte for byte, same mode), and the
 * copies are removed. Returns the components put back (they still need their health waited for).
 */
export async function recoverInterruptedRestarts(d: Pick<RestartDeps, 'host' | 'log'>): Promise<Component[]> {
  const restored: Component[] = [];
  const dirs = (await d.host.readdir(TMP_DIR)).filter((n) => n.startsWith(BACKUP_PREFIX)).sort();
  for (const dir of dirs) {
    const backupDir = path.posix.join(TMP_DIR, dir);
    for (const file of (await d.host.readdir(backupDir)).filter((f) => f.endsWith('.yaml')).sort()) {
      const component = file.slice(0, -'.yaml'.length) as Component;
      if (!STATIC_POD_COMPONENTS.includes(component)) continue;
      const manifest = manifestPath(component);
      const [content, st, present] = await Promise.all([d.host.readFile(path.posix.join(backupDir, file)), d.host.stat(path.posix.join(backupDir, file)), d.host.stat(manifest)]);
      if (present || !content || !st) continue;
      d.log.warn(`${manifest} was left out by an interrupted restart; putting it back from ${backupDir}`);
      await d.host.writeFile(manifest, content, { mode: st.mode & 0o7777, kind: 'manifest', description: `${component} static pod manifest` });
      restored.push(component);
    }
    await d.host.remove(backupDir);
  }
  return restored;
}
