/**
 * hostPath mounts of the control-plane pods (kubeadm's manifest/volumes.go).
 */
import path from 'node:path';
import type { ClusterConfiguration, ExternalEtcd } from '../config/types.js';
import { argValue } from './args.js';
import type { HostPathMountSpec } from './pod.js';
import { KUBECONFIG_FILES, KUBERNETES_DIR } from '../constants.js';
import type { VersionProfile } from '../versions/table-types.js';

export type ControlPlaneComponentName = 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

const CA_CERTS_DIR = '/etc/ssl/certs';
const DEFAULT_FLEXVOLUME_DIR = '/usr/libexec/kubernetes/kubelet-plugins/volume/exec';

function mount(name: string, hostPath: string, readOnly: boolean, pathType: HostPathMountSpec['pathType'], mountPath = hostPath): HostPathMountSpec {
  return { name, hostPath, mountPath, readOnly, pathType };
}

/**
 * The mounts of one component, in the order kubeadm adds them; a later mount with the same name
 * replaces an earlier one (volumesAndMounts), which is how extraVolumes override defaults.
 */
export function controlPlaneMounts(
  component: ControlPlaneComponentName,
  cluster: ClusterConfiguration,
  versions: VersionProfile,
  existingHostDirs: ReadonlySet<string>,
): HostPathMountSpec[] {
  const certs = mount('k8s-certs', cluster.certificatesDir, true, 'DirectoryOrCreate');
  const caCerts = mount('ca-certs', CA_CERTS_DIR, true, 'DirectoryOrCreate');
  // /etc/ssl/certs often holds symlinks into these; mount them only where they exist.
  const caExtra = versions.controlPlane.caCertsExtraDirs
    .filter((dir) => existingHostDirs.has(dir))
    .map((dir) => mount(dir.replaceAll('/', '-').slice(1), dir, true, 'DirectoryOrCreate'));
  switch (component) {
    case 'kube-apiserver': {
      const etcd = cluster.etcd.mode === 'external' ? externalEtcdCertMounts(cluster.etcd, cluster.certificatesDir, versions) : [];
      return [certs, caCerts, ...etcd, ...caExtra, ...extraMounts(cluster.apiServer.extraVolumes)];
    }
    case 'kube-controller-manager': {
      const kubeconfig = path.posix.join(KUBERNETES_DIR, KUBECONFIG_FILES.controllerManager);
      // Flexvolume drivers talk over sockets in this directory, so it must be writable. From 1.36
      // kubeadm mounts nothing for them (built-in flex-volume support removed, PR #136423): a
      // user who still needs it mounts the directory through extraVolumes.
      const flex = argValue(cluster.controllerManager.extraArgs, 'flex-volume-plugin-dir') ?? DEFAULT_FLEXVOLUME_DIR;
      return [
        certs,
        caCerts,
        mount('kubeconfig', kubeconfig, true, 'FileOrCreate'),
        ...(versions.controlPlane.flexVolumeMount ? [mount('flexvolume-dir', flex, false, 'DirectoryOrCreate')] : []),
        ...caExtra,
        ...extraMounts(cluster.controllerManager.extraVolumes),
      ];
    }
    case 'kube-scheduler': {
      const kubeconfig = path.posix.join(KUBERNETES_DIR, KUBECONFIG_FILES.scheduler);
      return [mount('kubeconfig', kubeconfig, true, 'FileOrCreate'), ...extraMounts(cluster.scheduler.extraVolumes)];
    }
  }
}

function extraMounts(volumes: readonly HostPathMountSpec[]): HostPathMountSpec[] {
  return volumes.map((v) => mount(v.name, v.hostPath, v.readOnly, v.pathType, v.mountPath));
}

/**
 * Directories of external etcd's CA/cert/key files, mounted read-only as etcd-certs-N, except
 * those already covered by the certificate dir, /etc/ssl/certs or the CA directories; a
 * directory whose (string) prefix is already listed is dropped, as kubeadm does.
 */
export function externalEtcdCertMounts(etcd: ExternalEtcd, certificatesDir: string, versions: VersionProfile): HostPathMountSpec[] {
  const dirs = new Set<string>();
  for (const file of [etcd.caFile, etcd.certFile, etcd.keyFile]) {
    const dir = file === '' ? '.' : path.posix.dirname(file);
    const covered = versions.controlPlane.caCertsExtraDirs.some((d) => dir.startsWith(d))
      || dir.startsWith(CA_CERTS_DIR) || dir.startsWith(certificatesDir);
    if (dir === '.' || covered) continue;
    let parentListed = false;
    for (const existing of [...dirs].sort()) {
      if (existing.startsWith(dir)) dirs.delete(existing);
      else if (dir.startsWith(existing)) parentListed = true;
    }
    if (!parentListed) dirs.add(dir);
  }
  return [...dirs].sort().map((dir, i) => mount(`etcd-certs-${i}`, dir, true, 'DirectoryOrCreate'));
}
