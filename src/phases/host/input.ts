/**
 * What the host phases need to know, resolved once from the configuration (init's, or the
 * cluster's for join) and the flags: pure, no I/O. The pause image and the kubelet's cgroup
 * driver come from the version row and the KubeletConfiguration, as kubelet-start renders them.
 */
import type { FlagValues } from '../../flags.js';
import type { ResolvedInitConfig } from '../../config/types.js';
import { imageRepository } from '../../manifest/inputs.js';
import { imageRef } from '../../manifest/static-pod.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { criSocketFor } from '../kubelet/flags-env.js';

export interface HostPrepInput {
  /** The cluster's version (init's target, the cluster's for join): the bundle's binaries must fit it. */
  readonly kubernetesVersion: string;
  /** --bundle: a local directory with the node's binaries; undefined = install none. */
  readonly bundle?: string;
  /** The CRI endpoint as the kubelet gets it (a path up to 1.23, a unix:// URL from 1.24). */
  readonly criSocket: string;
  /** The kubelet's cgroupDriver (kubeadm's default for the minor when the configuration sets none). */
  readonly cgroupDriver: string;
  /** `<repository>/pause:<tag>` of the target version. */
  readonly pauseImage: string;
  /** The kubelet runs with swap (failSwapOn: false). */
  readonly swapAllowed: boolean;
  /** --swap-off: turning swap off is allowed. */
  readonly swapOff: boolean;
  /** --restart-container-runtime: restarting a running containerd is allowed. */
  readonly restartRuntime: boolean;
  /** --override-host-settings: tsadm's settings win over a conflicting file of the user's. */
  readonly override: boolean;
}

export function hostPrepInput(cfg: ResolvedInitConfig, versions: VersionProfile, flags: FlagValues): HostPrepInput {
  const kubelet = cfg.componentConfigs.kubelet;
  const driver = typeof kubelet.cgroupDriver === 'string' && kubelet.cgroupDriver !== ''
    ? kubelet.cgroupDriver
    // The kubelet's own default before kubeadm 1.22 defaulted it to systemd.
    : versions.kubelet.defaultCgroupDriverSystemd ? 'systemd' : 'cgroupfs';
  const bundle = flags.bundle;
  return {
    kubernetesVersion: cfg.cluster.kubernetesVersion,
    ...(typeof bundle === 'string' && bundle !== '' ? { bundle } : {}),
    criSocket: criSocketFor(cfg.init.nodeRegistration.criSocket, versions),
    cgroupDriver: driver,
    pauseImage: imageRef(imageRepository(cfg.cluster, versions), 'pause', versions.images.pauseTag),
    swapAllowed: kubelet.failSwapOn === false,
    swapOff: flags['swap-off'] === true,
    restartRuntime: flags['restart-container-runtime'] === true,
    override: flags['override-host-settings'] === true,
  };
}
