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

/** Restarts one static pod and waits until its liveness probe passes again. */
export async function restartStaticPod(d: RestartDeps, component: Component): Promise<void> {
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
  const backupDir = path.posix.join(TMP_DIR, `${BACKUP_PREFIX}${Date.now()}`);
  const mode = st.mode & 0o7777;
  await d.host.writeFile(path.posix.join(backupDir, `${component}.yaml`), content, { mode, kind: 'manifest', description: `copy of the ${component} manifest during its restart` });
  d.log.info(`Restarting ${component}: ${manifest} is moved out until the kubelet has stopped it`);
  await d.host.remove(manifest);
  try {
    await until(d, `the kubelet to stop ${component}`, async () => (await d.probe(probe)) === 'down');
    await (d.sleep ?? defaultSleep)(d.settleMs ?? 3000);
  } finally {
    await d.host.writeFile(manifest, content, { mode, kind: 'manifest', description: `${component} static pod manifest` });
  }
  await until(d, `${component} to pass its liveness probe again (${probe.url})`, async () => (await d.probe(probe)) === 'up');
  await d.host.remove(backupDir);
  d.log.info(`${component} restarted and healthy`);
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
