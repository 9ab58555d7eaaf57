/**
 * What reset removes (docs/kubeadm-reference.md §9): the contents of a few known directories and a few known files,
 * nothing else. Pure: the caller supplies the certificate and etcd data directories it found.
 */
import path from 'node:path';
import { KUBECONFIG_FILES, KUBELET_DIR, KUBERNETES_DIR, MANIFESTS_DIR, TMP_DIR } from '../../constants.js';

export interface CleanupInput {
  readonly certificatesDir: string;
  /** The local etcd's data directory (from its manifest); undefined when there is no local etcd. */
  readonly etcdDataDir?: string;
  readonly cleanupTmpDir: boolean;
  /** False when unmounting under /var/lib/kubelet failed: its contents then stay (they may be mounts). */
  readonly kubeletDirUnmounted: boolean;
}

export interface CleanupPlan {
  /** Emptied, not removed (kubeadm's CleanDir): manifests and the certificate directory. */
  readonly configDirs: readonly string[];
  readonly files: readonly string[];
  /** Emptied after the files: kubelet, etcd and CNI state. */
  readonly statefulDirs: readonly string[];
  /** Directories that were asked for but are refused as unsafe, with why. */
  readonly refused: readonly { readonly path: string; readonly reason: string }[];
}

/** Every kubeconfig kubeadm (any version) or tsadm writes in /etc/kubernetes. */
export const KUBECONFIGS_TO_DELETE: readonly string[] = [
  KUBECONFIG_FILES.admin, KUBECONFIG_FILES.superAdmin, KUBECONFIG_FILES.kubelet, KUBECONFIG_FILES.bootstrapKubelet,
  KUBECONFIG_FILES.controllerManager, KUBECONFIG_FILES.scheduler,
].map((f) => path.posix.join(KUBERNETES_DIR, f));

const STATEFUL_DIRS = ['/var/lib/dockershim', '/var/run/kubernetes', '/var/lib/cni'];

/** Directories whose contents must never be wiped, whatever a config says. */
const PROTECTED = new Set([
  '/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/media', '/mnt', '/opt', '/proc', '/root', '/run',
  '/sbin', '/srv', '/sys', '/tmp', '/usr', '/var', '/var/lib', '/var/run', '/var/log', '/usr/local', '/usr/lib', '/etc/kubernetes',
]);

/** Why emptying this directory is refused, or undefined when it is fine. */
export function unsafeDirReason(dir: string): string | undefined {
  if (!path.posix.isAbsolute(dir)) return 'it is not an absolute path';
  const normalized = path.posix.normalize(dir).replace(/\/+$/, '') || '/';
  if (PROTECTED.has(normalized)) return 'it is a system directory';
  if (normalized.split('/').filter(Boolean).length < 2) return 'it is a top-level directory';
  return undefined;
}

export function cleanupPlan(input: CleanupInput): CleanupPlan {
  const refused: { path: string; reason: string }[] = [];
  const keep = (dir: string): boolean => {
    const reason = unsafeDirReason(dir);
    if (reason) refused.push({ path: dir, reason });
    return reason === undefined;
  };
  const configDirs = [MANIFESTS_DIR, input.certificatesDir].filter(keep);
  const stateful = [
    ...(input.etcdDataDir !== undefined ? [input.etcdDataDir] : []),
    ...(input.kubeletDirUnmounted ? [KUBELET_DIR] : []),
    ...STATEFUL_DIRS,
    ...(input.cleanupTmpDir ? [TMP_DIR] : []),
  ].filter(keep);
  return { configDirs: dedupe(configDirs), files: KUBECONFIGS_TO_DELETE, statefulDirs: dedupe(stateful), refused };
}

function dedupe(list: readonly string[]): string[] {
  return [...new Set(list.map((p) => path.posix.normalize(p)))];
}

/**
 * Mount points strictly under a directory, deepest first (so nested mounts go before their
 * parents), from /proc/mounts text (octal escapes decoded).
 */
export function mountsUnder(procMounts: string, dir: string): string[] {
  const prefix = `${dir.replace(/\/+$/, '')}/`;
  const points = procMounts.split('\n')
    .map((l) => l.split(' ')[1])
    .filter((p): p is string => p !== undefined && p !== '')
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => p.startsWith(prefix));
  return [...new Set(points)].sort((a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a));
}

/** The messages kubeadm prints about what reset leaves alone. */
export const NOT_CLEANED_TEXT = [
  'The reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d',
  '',
  'The reset process does not reset or clean up iptables rules or IPVS tables.',
  'If you wish to reset iptables, you must do so manually by using the "iptables" command.',
  '',
  'If your cluster was setup to utilize IPVS, run ipvsadm --clear (or similar)',
  "to reset your system's IPVS tables.",
  '',
  'The reset process does not clean your kubeconfig files and you must remove them manually.',
  'Please, check the contents of the $HOME/.kube/config file.',
  '',
  // tsadm's own (the host phase has no kubeadm counterpart): what `tsadm prepare` / --prepare-host did stays.
  'The reset process does not undo host preparation (tsadm prepare, --prepare-host): the kernel modules, sysctls,',
  "containerd's drop-in, the kubelet unit and the binaries installed from a bundle stay, since the next init or join",
  'needs them too. /usr/share/doc/tsadm/docs/host.md lists each file and how to undo it.',
  '',
].join('\n');
