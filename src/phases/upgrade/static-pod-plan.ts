/**
 * Pure decisions of the static Pod upgrade (kubeadm 1.20's phases/upgrade/staticpods.go): the
 * components in kubeadm's order, the names of the backup folders, which certificates each
 * component reads (renewed just before its manifest changes) and whether the local etcd member
 * may move to the rendered etcd version.
 */
import semver from 'semver';
import path from 'node:path';
import { loadYaml } from '../../yaml/read.js';
import { KUBECONFIG_FILES, TMP_DIR } from '../../constants.js';
import { TsadmError, errorMessage } from '../../errors.js';

/** kubeadm's ControlPlaneComponents, in the order it upgrades them (etcd, when upgraded, goes first). */
export const CONTROL_PLANE_COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export type UpgradedComponent = 'etcd' | (typeof CONTROL_PLANE_COMPONENTS)[number];

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * kubeadm's CreateTimestampDirForKubeadm: /etc/kubernetes/tmp/<name>-<time>, the time in the
 * machine's local zone in Go's layout "2006-01-02-15-04-05".
 */
export function backupDirName(name: 'kubeadm-backup-manifests' | 'kubeadm-backup-etcd', at: Date): string {
  const stamp = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}-${two(at.getHours())}-${two(at.getMinutes())}-${two(at.getSeconds())}`;
  return path.posix.join(TMP_DIR, `${name}-${stamp}`);
}

/**
 * kubeadm's renewCertsByComponent: the certificates (certs renew names) a component reads, so a
 * restarted component comes back with fresh ones. etcd's only with local etcd; the API server's
 * etcd client certificate only with local etcd (an external etcd's client certificate is the user's).
 */
export function certsToRenew(component: UpgradedComponent, localEtcd: boolean): string[] {
  switch (component) {
    case 'etcd':
      return localEtcd ? ['etcd-server', 'etcd-peer', 'etcd-healthcheck-client'] : [];
    case 'kube-apiserver':
      return ['apiserver', 'apiserver-kubelet-client', 'front-proxy-client', ...(localEtcd ? ['apiserver-etcd-client'] : [])];
    case 'kube-controller-manager':
      return [KUBECONFIG_FILES.controllerManager];
    case 'kube-scheduler':
      return [KUBECONFIG_FILES.scheduler];
  }
}

/** The tag of an image reference ("registry.k8s.io/etcd:3.4.13-0" → "3.4.13-0"), digest ignored. */
export function imageTag(image: string): string {
  const noDigest = image.split('@')[0] ?? image;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(colon + 1) : '';
}

/** The image of the first container of a static Pod manifest (kubeadm's GetEtcdImageTagFromStaticPod reads the same). */
export function manifestImage(manifestText: string, file: string): string {
  let doc: unknown;
  try {
    doc = loadYaml(manifestText);
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `${file} is not valid YAML: ${errorMessage(err)}`, { hint: `fix ${file} or restore it from a backup` });
  }
  const image = (doc as { spec?: { containers?: Array<{ image?: unknown }> } } | null)?.spec?.containers?.[0]?.image;
  if (typeof image !== 'string' || image === '') {
    throw new TsadmError('E_PRECONDITION', `${file} has no container image`, { hint: `fix ${file} or restore it from a backup` });
  }
  return image;
}

/**
 * Semantic version precedence (semver 2.0 §11), as k8s.io/apimachinery's version.Compare, by the
 * semver package; a leading "v" is accepted and build metadata ignored, as Go's ParseSemantic.
 */
export function compareSemver(a: string, b: string): number {
  const x = semver.parse(a.trim());
  const y = semver.parse(b.trim());
  if (!x || !y) {
    throw new TsadmError('E_PRECONDITION', `cannot compare etcd versions "${a}" and "${b}": not semantic versions`, {
      hint: 'set etcd.local.imageTag in the ClusterConfiguration to a semantic version (like 3.4.13-0), or pass --etcd-upgrade=false',
    });
  }
  return semver.compare(x, y);
}

/**
 * kubeadm 1.20's performEtcdStaticPodUpgrade: a desired version older than the running one is a
 * non-fatal refusal (etcd is left alone, the other components go on); the same or a newer one
 * goes on to the manifest comparison (same version, other flags: still rewritten).
 */
export function etcdDecision(currentImage: string, desiredImage: string): { readonly proceed: true } | { readonly proceed: false; readonly reason: string } {
  const current = imageTag(currentImage);
  const desired = imageTag(desiredImage);
  if (compareSemver(desired, current) < 0) {
    return { proceed: false, reason: `the desired etcd version "${desired}" is older than the currently installed "${current}". Skipping etcd upgrade` };
  }
  return { proceed: true };
}
