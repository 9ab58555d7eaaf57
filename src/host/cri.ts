import { TsadmError } from '../errors.js';
import type { Host } from './host.js';

/** Known CRI sockets, in kubeadm's detection order. Docker maps to dockershim (1.20–1.23). */
const KNOWN_SOCKETS = ['/run/containerd/containerd.sock', '/var/run/crio/crio.sock', '/var/run/cri-dockerd.sock'];
const DOCKER_SOCKET = '/var/run/docker.sock';
const DOCKERSHIM_SOCKET = '/var/run/dockershim.sock';

/** "unix:///run/x.sock" → "/run/x.sock". */
export function socketPath(criSocket: string): string {
  return criSocket.replace(/^unix:\/\//, '');
}

/** Formats a socket path the way kubeadm of the target version writes it. */
function formatCriSocket(p: string, asUrl: boolean): string {
  const bare = socketPath(p);
  return asUrl ? `unix://${bare}` : bare;
}

/**
 * kubeadm's DetectCRISocket: exactly one known socket must exist; several is an error that asks
 * for --cri-socket; none falls back to the version's default.
 */
export async function detectCriSocket(host: Host, opts: { dockershimEra: boolean; asUrl: boolean }): Promise<string> {
  const found: string[] = [];
  if (opts.dockershimEra && (await host.stat(DOCKER_SOCKET))?.isSocket) found.push(DOCKERSHIM_SOCKET);
  for (const s of KNOWN_SOCKETS) {
    if ((await host.stat(s))?.isSocket) found.push(s);
    else if (s === '/run/containerd/containerd.sock' && (await host.stat('/var/run/containerd/containerd.sock'))?.isSocket) found.push('/var/run/containerd/containerd.sock');
  }
  const unique = [...new Set(found)];
  if (unique.length > 1) {
    throw new TsadmError('E_CONFIG_INVALID', `found multiple CRI sockets, please use --cri-socket to select one: ${unique.map((s) => formatCriSocket(s, opts.asUrl)).join(', ')}`);
  }
  const chosen = unique[0] ?? (opts.dockershimEra ? DOCKERSHIM_SOCKET : '/var/run/containerd/containerd.sock');
  return formatCriSocket(chosen, opts.asUrl);
}
