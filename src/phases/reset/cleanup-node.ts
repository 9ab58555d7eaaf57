/**
 * reset `cleanup-node`: stop the kubelet, unmount what is mounted under /var/lib/kubelet, remove
 * every pod sandbox through the CRI, then empty the known directories and delete the known files
 * (plan.ts) — nothing outside them, and never through a symbolic link or a mount point. What
 * reset leaves alone (CNI config, iptables/IPVS, $HOME/.kube/config) is printed at the end.
 * Dry-run: the DryRunHost lists removals, unmounts and service actions; sandboxes are only listed.
 */
import path from 'node:path';
import { KUBELET_DIR } from '../../constants.js';
import { errorMessage } from '../../errors.js';
import { detectCriSocket, socketPath } from '../../host/cri.js';
import type { Phase } from '../../engine/phase.js';
import type { ResetCtx } from './context.js';
import { DEFAULT_CERT_DIR } from '../../constants.js';
import { NOT_CLEANED_TEXT, cleanupPlan, mountsUnder } from './plan.js';
import { localEtcd } from './state.js';
import { umountInvocation } from '../../config/unmount-flags.js';

async function stopKubelet(ctx: ResetCtx): Promise<void> {
  ctx.log.info('Stopping the kubelet service', { prefix: 'reset' });
  const r = await ctx.host.service('stop', 'kubelet');
  if (r.ok) return;
  if (r.via === 'none') ctx.log.warn('The kubelet service could not be stopped by tsadm. Unable to detect a supported init system!', { prefix: 'reset' });
  else ctx.log.warn(`The kubelet service could not be stopped by tsadm: [${r.message ?? 'stop failed'}]`, { prefix: 'reset' });
  ctx.log.warn('Please ensure kubelet is stopped manually', { prefix: 'reset' });
}

/** /proc/mounts of the running machine (its mount points are real paths, i.e. under --rootfs). */
async function mountsOf(ctx: ResetCtx): Promise<string> {
  return (await ctx.system.readProc('/proc/mounts')) ?? '';
}

/** Unmounts everything under the kubelet directory; true when nothing stays mounted there. */
async function unmountKubeletDir(ctx: ResetCtx): Promise<boolean> {
  ctx.log.info(`Unmounting mounted directories in "${KUBELET_DIR}"`, { prefix: 'reset' });
  const real = ctx.host.resolve(KUBELET_DIR);
  const { options, noFollow, unmountsNothing } = umountInvocation(ctx.cfg.reset.unmountFlags ?? []);
  for (const point of mountsUnder(await mountsOf(ctx), real)) {
    if (unmountsNothing !== undefined) {
      ctx.log.warn(`failed to unmount ${point}: ${unmountsNothing}`, { prefix: 'reset' });
      continue;
    }
    if (noFollow && (await ctx.host.stat(hostPathOf(ctx.host.root, point)))?.isSymlink) {
      ctx.log.warn(`failed to unmount ${point}: it is a symbolic link and unmountFlags has UMOUNT_NOFOLLOW`, { prefix: 'reset' });
      continue;
    }
    const r = await ctx.host.exec('umount', [...options, point], { mutating: true, timeoutMs: 30_000 });
    if (r.exitCode !== 0) ctx.log.warn(`failed to unmount ${point}: ${(r.stderr || r.stdout).trim()}`, { prefix: 'reset' });
  }
  // The umounts above were only listed (the host is a dry-run host): nothing changed to re-check.
  if (ctx.dryRun) return true;
  const left = mountsUnder(await mountsOf(ctx), real);
  if (left.length > 0) {
    ctx.log.warn(`${left.length} mount(s) remain under ${KUBELET_DIR} (${left.slice(0, 3).join(', ')}${left.length > 3 ? ', …' : ''}); its contents are not deleted`, { prefix: 'reset' });
    return false;
  }
  return true;
}

/** The host path of a real path under the host's root (mount points are read as real paths). */
function hostPathOf(root: string, real: string): string {
  if (root === '/') return real;
  const rel = path.posix.relative(root, real);
  return `/${rel}`;
}

async function removeContainers(ctx: ResetCtx): Promise<void> {
  ctx.log.debug('Removing Kubernetes-managed containers', { prefix: 'reset' });
  try {
    const socket = ctx.cfg.reset.criSocket || await detectCriSocket(ctx.host, { dockershimEra: false, asUrl: false });
    if (!(await ctx.host.stat(socketPath(socket)))?.isSocket) {
      ctx.log.warn(`Failed to remove containers: no container runtime socket at ${socketPath(socket)}`, { prefix: 'reset' });
      return;
    }
    const cri = await ctx.deps.connectCri(ctx.host.resolve(socketPath(socket)));
    try {
      const sandboxes = await cri.listPodSandboxes();
      // The CRI client has no dry-run variant: list what would go instead of removing it.
      if (ctx.dryRun) {
        ctx.log.info(`Would remove ${sandboxes.length} pod sandbox(es) through ${socket}`, { prefix: 'reset' });
        return;
      }
      for (const s of sandboxes) {
        try {
          await cri.stopAndRemovePodSandbox(s.id);
        } catch (err) {
          ctx.log.warn(`failed to remove pod sandbox ${s.namespace}/${s.name} (${s.id}): ${errorMessage(err)}`, { prefix: 'reset' });
        }
      }
      ctx.log.debug(`removed ${sandboxes.length} pod sandbox(es) through ${socket}`, { prefix: 'reset' });
    } finally {
      cri.close();
    }
  } catch (err) {
    ctx.log.warn(`Failed to remove containers: ${errorMessage(err)}`, { prefix: 'reset' });
  }
}

/** Empties a directory (not the directory itself), refusing symbolic links. */
async function cleanDir(ctx: ResetCtx, dir: string): Promise<void> {
  const st = await ctx.host.stat(dir);
  if (!st) return;
  if (st.isSymlink || !st.isDirectory) {
    ctx.log.warn(`not cleaning ${dir}: it is ${st.isSymlink ? 'a symbolic link' : 'not a directory'}`, { prefix: 'reset' });
    return;
  }
  for (const name of await ctx.host.readdir(dir)) await ctx.host.remove(path.posix.join(dir, name));
}

async function deleteFile(ctx: ResetCtx, file: string): Promise<void> {
  const st = await ctx.host.stat(file);
  if (!st) return;
  if (st.isDirectory && !st.isSymlink) {
    ctx.log.warn(`not deleting ${file}: it is a directory`, { prefix: 'reset' });
    return;
  }
  await ctx.host.remove(file);
}

async function runCleanupNode(ctx: ResetCtx): Promise<void> {
  const etcd = await localEtcd(ctx);
  await stopKubelet(ctx);
  const unmounted = await unmountKubeletDir(ctx);
  await removeContainers(ctx);
  const certDir = ctx.cfg.reset.certificatesDir;
  const plan = cleanupPlan({
    certificatesDir: certDir,
    ...(etcd?.dataDir !== undefined ? { etcdDataDir: etcd.dataDir } : {}),
    cleanupTmpDir: ctx.cfg.reset.cleanupTmpDir,
    kubeletDirUnmounted: unmounted,
  });
  for (const r of plan.refused) ctx.log.warn(`not cleaning ${r.path}: ${r.reason}`, { prefix: 'reset' });
  if (path.posix.normalize(certDir) !== DEFAULT_CERT_DIR) ctx.log.warn(`WARNING: Cleaning a non-default certificates directory: "${certDir}"`, { prefix: 'reset' });
  ctx.log.info(`Deleting contents of config directories: [${plan.configDirs.join(' ')}]`, { prefix: 'reset' });
  for (const dir of plan.configDirs) await cleanDir(ctx, dir);
  ctx.log.info(`Deleting files: [${plan.files.join(' ')}]`, { prefix: 'reset' });
  for (const file of plan.files) await deleteFile(ctx, file);
  ctx.log.info(`Deleting contents of stateful directories: [${plan.statefulDirs.join(' ')}]`, { prefix: 'reset' });
  for (const dir of plan.statefulDirs) await cleanDir(ctx, dir);
  ctx.log.output(`\n${NOT_CLEANED_TEXT}`);
}

export const cleanupNodePhase: Phase<ResetCtx> = {
  name: 'cleanup-node',
  summary: 'Run cleanup node.',
  description: 'Stop the kubelet, unmount its volumes, remove the pod sandboxes, and delete the files and directory contents tsadm/kubeadm created on this node.',
  example: '# Cleans a node whose certificates live elsewhere\ntsadm reset phase cleanup-node --cert-dir /srv/kubernetes/pki',
  flags: ['cert-dir', 'cri-socket', 'cleanup-tmp-dir'],
  run: runCleanupNode,
};
