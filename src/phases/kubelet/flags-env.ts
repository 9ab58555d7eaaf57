/**
 * /var/lib/kubelet/kubeadm-flags.env (kubeadm's phases/kubelet/flags.go): one line
 * `KUBELET_KUBEADM_ARGS="<sorted flags>"` that the kubelet's systemd drop-in expands.
 */
import type { Arg, NodeRegistration, Taint } from '../../config/types.js';
import { argValue, argsModeOf, buildArgs } from '../../manifest/args.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { goQuote } from '../../util/go-quote.js';

export const DOCKERSHIM_SOCKET = '/var/run/dockershim.sock';
const POD_INFRA_CONTAINER_IMAGE_FLAG = 'pod-infra-container-image';
const ARGS_VARIABLE = 'KUBELET_KUBEADM_ARGS=';
const DEFAULT_CONTAINERD_SOCKET_URL = 'unix:///var/run/containerd/containerd.sock';

export interface KubeletFlagsInput {
  readonly nodeRegistration: NodeRegistration;
  /** The machine's hostname as kubeadm sees it (lowercased, trimmed). */
  readonly hostname: string;
  /** `<repo>/pause:<tag>` of this minor. */
  readonly pauseImage: string;
  /** Joining workers pass their taints here; init marks the control plane through the API instead. */
  readonly registerTaints: boolean;
  /**
   * NodeLocalCRISocket: the CRI endpoint lives in the kubelet configuration of this node
   * (instance-config.yaml) instead of this file. Absent = off.
   */
  readonly nodeLocalCriSocket?: boolean;
}

export function renderKubeletFlagsEnv(input: KubeletFlagsInput, versions: VersionProfile): string {
  const args = buildArgs(kubeletDefaultFlags(input, versions), input.nodeRegistration.kubeletExtraArgs, argsModeOf(versions));
  return `${ARGS_VARIABLE}${goQuote(args.join(' '))}\n`;
}

function kubeletDefaultFlags(input: KubeletFlagsInput, versions: VersionProfile): Arg[] {
  const nr = input.nodeRegistration;
  const socket = criSocketFor(nr.criSocket, versions);
  const flags: Arg[] = [];
  if (versions.kubelet.containerRuntimeRemoteFlag) {
    // Dockershim era: docker gets CNI and the pause image; any other runtime is "remote".
    if (socket === DOCKERSHIM_SOCKET) {
      flags.push({ name: 'network-plugin', value: 'cni' });
      if (input.pauseImage) flags.push({ name: 'pod-infra-container-image', value: input.pauseImage });
    } else {
      flags.push({ name: 'container-runtime', value: 'remote' }, { name: 'container-runtime-endpoint', value: socket });
    }
  } else {
    // 1.24-1.25: still --container-runtime=remote, before the endpoint (kubeadm's map, sorted).
    if (versions.kubelet.remoteRuntimeFlagAfterDockershim) flags.push({ name: 'container-runtime', value: 'remote' });
    if (!input.nodeLocalCriSocket) flags.push({ name: 'container-runtime-endpoint', value: socket });
    // Gone from 1.35: the kubelet dropped the flag (PR #133779) and kubeadm stopped writing it (PR #133778).
    if (input.pauseImage && versions.kubelet.podInfraContainerImageFlag) flags.push({ name: POD_INFRA_CONTAINER_IMAGE_FLAG, value: input.pauseImage });
  }
  if (input.registerTaints && nr.taints && nr.taints.length > 0) {
    flags.push({ name: 'register-with-taints', value: nr.taints.map(taintString).join(',') });
  }
  // Only when the node name differs from the hostname, so the kubelet's own default is kept otherwise.
  const nodeName = argValue(nr.kubeletExtraArgs, 'hostname-override') ?? (nr.name || input.hostname);
  if (nodeName !== input.hostname) flags.push({ name: 'hostname-override', value: nodeName });
  return flags;
}

/**
 * The CRI endpoint as this minor writes it: a plain path up to 1.23, a unix:// URL from 1.24.
 * An empty socket (not detected) falls back to the minor's default runtime.
 */
export function criSocketFor(criSocket: string, versions: VersionProfile): string {
  if (!versions.kubelet.criSocketUrl) return criSocket || DOCKERSHIM_SOCKET;
  if (!criSocket) return DEFAULT_CONTAINERD_SOCKET_URL;
  return criSocket.startsWith('/') ? `unix://${criSocket}` : criSocket;
}

/** v1.Taint.ToString(): key=value:Effect, or key:Effect without a value. */
function taintString(t: Taint): string {
  return t.value ? `${t.key}=${t.value}:${t.effect}` : `${t.key}:${t.effect}`;
}

/**
 * An existing kubeadm-flags.env without the named flags (`--name=value` in KUBELET_KUBEADM_ARGS),
 * or undefined when none is there, so the caller writes nothing. The other flags and lines keep
 * their bytes and order: kubeadm reads the line by splitting its quoted value on spaces, drops
 * the unwanted flags and writes the rest back (upgrade to 1.35, PR #133778); a file init wrote is
 * sorted, so that order is also the one kubeadm writes. A line with no flags at all
 * (`KUBELET_KUBEADM_ARGS=""`, which a 1.35 init may write) is valid (PR #136127).
 */
export function withoutKubeletFlags(content: string, names: readonly string[]): string | undefined {
  const prefixes = names.map((n) => `--${n}=`);
  let changed = false;
  const lines = content.split('\n').map((line) => {
    if (!line.startsWith(ARGS_VARIABLE)) return line;
    const raw = line.slice(ARGS_VARIABLE.length);
    const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
    const value = quoted ? raw.slice(1, -1) : raw;
    const tokens = value.split(' ').filter((t) => t !== '');
    const kept = tokens.filter((t) => !prefixes.some((p) => t.startsWith(p)));
    if (kept.length === tokens.length) return line;
    changed = true;
    const joined = kept.join(' ');
    return `${ARGS_VARIABLE}${quoted ? `"${joined}"` : joined}`;
  });
  return changed ? lines.join('\n') : undefined;
}
