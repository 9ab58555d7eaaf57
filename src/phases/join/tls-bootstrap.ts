import { loadYaml } from '../../yaml/read.js';
import { formatDuration } from '../../duration.js';
import { TsadmError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import { httpHealthCheck, type HealthCheck } from '../../health/http-check.js';
import { currentCluster } from '../../kubeconfig/read.js';

/**
 * Waiting for the kubelet's TLS bootstrap (kubeadm's waitForTLSBootstrappedClient): the kubelet
 * turns bootstrap-kubelet.conf into kubelet.conf once its client certificate is issued. The
 * file counts once it parses, names a cluster and its credentials exist.
 */
const KUBELET_HEALTHZ_URL = 'http://127.0.0.1:10248/healthz';

/** Why kubelet.conf is not usable yet, or undefined when it is. */
export async function kubeletConfProblem(host: Pick<Host, 'readFile' | 'stat'>, file: string): Promise<string | undefined> {
  const bytes = await host.readFile(file);
  if (bytes === undefined) return `${file} does not exist yet`;
  const text = bytes.toString('utf8');
  const cluster = currentCluster(text);
  if (typeof cluster === 'string') return `${file} is not usable: ${cluster}`;
  const certFile = clientCertificateFile(text);
  if (certFile !== undefined && !(await host.stat(certFile))) return `${file} names ${certFile}, which does not exist yet`;
  return undefined;
}

/** The client-certificate path of the current context's user (the kubelet writes a path, not data). */
export function clientCertificateFile(text: string): string | undefined {
  const doc = (loadYaml(text) ?? {}) as {
    'current-context'?: string;
    contexts?: Array<{ name?: string; context?: { user?: string } }>;
    users?: Array<{ name?: string; user?: Record<string, unknown> }>;
  };
  const userName = doc.contexts?.find((c) => c.name === doc['current-context'])?.context?.user;
  const user = doc.users?.find((u) => u.name === userName)?.user;
  const file = user?.['client-certificate'];
  return typeof file === 'string' ? file : undefined;
}

export interface TlsBootstrapWait {
  readonly host: Pick<Host, 'readFile' | 'stat'>;
  readonly file: string;
  readonly timeoutMs: number;
  readonly pollMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now?: () => number;
  readonly healthCheck?: HealthCheck;
  readonly onProgress?: (problem: string, elapsedMs: number) => void;
}

/** kubeadm's kubeadmJoinFailMsg, as a hint. */
const JOIN_FAIL_HINT = 'This error is likely caused by: the kubelet is not running, or it is unhealthy due to a misconfiguration of the node '
  + "(required cgroups disabled). On a systemd host, troubleshoot with 'systemctl status kubelet' and 'journalctl -xeu kubelet'";

export async function waitForTlsBootstrap(w: TlsBootstrapWait): Promise<void> {
  const now = w.now ?? Date.now;
  const start = now();
  let lastReport = start;
  for (;;) {
    const problem = await kubeletConfProblem(w.host, w.file);
    if (problem === undefined) return;
    const elapsed = now() - start;
    if (elapsed >= w.timeoutMs) {
      const health = await kubeletHealth(w.healthCheck ?? httpHealthCheck);
      throw new TsadmError('E_TIMEOUT', `timed out waiting for the kubelet to perform the TLS Bootstrap after ${formatDuration(w.timeoutMs)}: ${problem} (kubelet ${KUBELET_HEALTHZ_URL}: ${health})`, {
        hint: JOIN_FAIL_HINT,
      });
    }
    if (now() - lastReport >= 30_000) {
      lastReport = now();
      w.onProgress?.(problem, elapsed);
    }
    await w.sleep(Math.min(w.pollMs, Math.max(0, w.timeoutMs - elapsed)));
  }
}

/** Whether the local kubelet answers its healthz now (it has finished starting up). */
export async function kubeletServing(check: HealthCheck = httpHealthCheck): Promise<boolean> {
  return (await kubeletHealth(check)) === 'healthy';
}

async function kubeletHealth(check: HealthCheck): Promise<string> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 5000);
  try {
    const r = await check(KUBELET_HEALTHZ_URL, ac.signal);
    return r.ok ? 'healthy' : r.detail;
  } finally {
    clearTimeout(timer);
  }
}
