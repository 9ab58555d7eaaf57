/**
 * Runs the tsadm CLI in-process (main(argv, io)) with captured streams: the same code path as the
 * executable minus process start-up, so CLI tests stay fast. Also the shared flags of a local
 * v1.20.2 init on a --rootfs.
 */
import { Writable } from 'node:stream';
import { main } from '../../src/main.js';
import type { TsadmEvent } from '../../src/log/events.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

export async function runCli(argv: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const stdout = new Sink();
  const stderr = new Sink();
  const saved: Record<string, string | undefined> = {};
  // The service seam reads TSADM_SERVICE_MANAGER from the environment: answer kubelet actions with /bin/true.
  const vars = { TSADM_SERVICE_MANAGER: '/bin/true', ...env };
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    const code = await main(argv, { stdout, stderr, stdin: process.stdin, env: process.env });
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Every stdout line parsed as an event (throws on a line that is not JSON: the stream must be pure). */
export function events(stdout: string): TsadmEvent[] {
  return stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as TsadmEvent);
}

/**
 * A local v1.20.2 init. The advertise address is the one of this engineer's harness machine p1:
 * a dry run's best-effort API reads may try it, and only loopback and our own harness addresses
 * may be contacted (without p1 running, there is no route and the read fails at once).
 */
export const LOCAL_INIT = [
  '--kubernetes-version', 'v1.20.2',
  '--apiserver-advertise-address', '10.250.0.51',
  '--node-name', 'n1',
  '--cri-socket', '/run/containerd/containerd.sock',
] as const;

/** The same settings as a kubeadm config file, for phase commands (they take --config, not init's flags). */
export const LOCAL_CONFIG = [
  'apiVersion: kubeadm.k8s.io/v1beta2',
  'kind: InitConfiguration',
  'localAPIEndpoint:',
  '  advertiseAddress: 10.250.0.51',
  'nodeRegistration:',
  '  name: n1',
  '  criSocket: /run/containerd/containerd.sock',
  '---',
  'apiVersion: kubeadm.k8s.io/v1beta2',
  'kind: ClusterConfiguration',
  'kubernetesVersion: v1.20.2',
  '',
].join('\n');

/** init's phases that need a running cluster or kubelet, skipped on a bare --rootfs. */
export const CLUSTER_PHASES = [
  'preflight', 'wait-for-kubelet', 'wait-control-plane', 'upload-config', 'upload-certs', 'mark-control-plane',
  'bootstrap-token', 'kubelet-finalize', 'addon', 'show-join-command',
] as const;
