/**
 * Restarting control-plane static pods so they load renewed certificates (`certs renew
 * --restart`). A static pod is restarted the way the kubelet allows: its manifest leaves the
 * manifests dir until the component has stopped, then comes back byte for byte (kubeadm's
 * upgrade swaps manifests the same way). A copy waits under /etc/kubernetes/tmp meanwhile, so an
 * interrupted restart can be undone by hand, and the manifest is put back whatever happens.
 *
 * Several components of one machine restart together (restartStaticPods).
 *
 * "Stopped" and "running again" are judged by the component's own liveness probe, read from its
 * manifest (kubeadm writes one for each): nothing listening means the old process is gone; a
 * passing probe means the new one serves. No container runtime access is needed.
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

/** The copies of manifests being restarted: /etc/kubernetes/tmp/tsadm-restart-<ms>/<component>.yaml. */
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

interface Target {
  readonly component: Component;
  readonly manifest: string;
  readonly content: Buffer;
  readonly mode: number;
  readonly probe: HttpProbe;
}

/** Reads each component's manifest and liveness probe; refuses before anything moves. */
async function targetsOf(d: RestartDeps, components: readonly Component[]): Promise<Target[]> {
  const targets: Target[] = [];
  for (const component of components) {
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
    targets.push({ component, manifest, content, mode: st.mode & 0o7777, probe });
  }
  return targets;
}

async function putBack(d: RestartDeps, t: Target): Promise<void> {
  await d.host.writeFile(t.manifest, t.content, { mode: t.mode, kind: 'manifest', description: `${t.component} static pod manifest` });
}

const healthy = (d: RestartDeps, t: Target): Promise<void> =>
  until(d, `${t.component} to pass its liveness probe again (${t.probe.url})`, async () => (await d.probe(t.probe)) === 'up');

/**
 * Restarts static pods of this machine together and waits until each liveness probe passes again.
 * Every manifest leaves (its copy in one tsadm-restart-<ms> dir); once every component is down,
 * etcd comes back first and is waited for, then the others come back at once.
 *
 * Together rather than one at a time, measured on the harness's kubelet v1.20 (docs/decisions.md):
 * one at a time, etcd's return waited ~18 s on the kubelet deleting its mirror pod through an API
 * server that hung without etcd, and the API server, failing its probe while etcd was away, came
 * back through CrashLoopBackOff: 80 s for the four. Taken out together, the API server is down
 * when the kubelet deletes the mirror pods (refused at once), and it starts after etcd serves.
 * The machine's control plane is unavailable for the whole restart either way.
 */
export async function restartStaticPods(d: RestartDeps, components: readonly Component[]): Promise<void> {
  const targets = await targetsOf(d, components);
  if (targets.length === 0) return;
  const names = targets.map((t) => t.component);
  const backupDir = path.posix.join(TMP_DIR, `${BACKUP_PREFIX}${Date.now()}`);
  for (const t of targets) {
    await d.host.writeFile(path.posix.join(backupDir, `${t.component}.yaml`), t.content, { mode: t.mode, kind: 'manifest', description: `copy of the ${t.component} manifest during its restart` });
  }
  d.log.info(targets.length === 1
    ? `Restarting ${names.join('')}: ${targets[0]?.manifest ?? ''} is moved out until the kubelet has stopped it`
    : `Restarting ${names.join(', ')} together: their manifests are moved out of ${path.posix.dirname(targets[0]?.manifest ?? '')} until the kubelet has stopped them`);
  const out: Target[] = [];
  try {
    for (const t of targets) {
      await d.host.remove(t.manifest);
      out.push(t);
    }
    for (const t of targets) await until(d, `the kubelet to stop ${t.component}`, async () => (await d.probe(t.probe)) === 'down');
    await (d.sleep ?? defaultSleep)(d.settleMs ?? 3000);
    // etcd first: an API server started without it fails and is held back by CrashLoopBackOff.
    const first = out.filter((t) => t.component === 'etcd');
    for (const t of first) {
      await putBack(d, t);
      out.splice(out.indexOf(t), 1);
    }
    for (const t of first) await healthy(d, t);
  } finally {
    // whatever happened, nothing stays out (a failure above leaves the copies for the re-run)
    for (const t of out) await putBack(d, t);
  }
  for (const t of targets.filter((x) => x.component !== 'etcd')) await healthy(d, t);
  await d.host.remove(backupDir);
  for (const n of names) d.log.info(`${n} restarted and healthy`);
}

/** Restarts one static pod and waits until its liveness probe passes again. */
export const restartStaticPod = (d: RestartDeps, component: Component): Promise<void> => restartStaticPods(d, [component]);

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
