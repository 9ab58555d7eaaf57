/**
 * One HTTP(S) health request, with Node's http/https modules: any certificate is accepted (the
 * components serve self-signed or cluster-CA certificates, and kubeadm skips verification
 * too); healthy means status 200.
 */
import http from 'node:http';
import https from 'node:https';

interface CheckResult {
  readonly ok: boolean;
  /** Why it is not healthy: an HTTP status line or a network error. */
  readonly detail: string;
}

/** A health check; tests substitute their own. Must settle promptly when `signal` aborts. */
export type HealthCheck = (url: string, signal: AbortSignal) => Promise<CheckResult>;

const REQUEST_TIMEOUT_MS = 10_000;

export const httpHealthCheck: HealthCheck = (url, signal) =>
  new Promise<CheckResult>((resolve) => {
    let settled = false;
    const done = (r: CheckResult): void => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    const target = new URL(url);
    const mod = target.protocol === 'https:' ? https : http;
    const req = mod.get(target, { rejectUnauthorized: false, agent: false, timeout: REQUEST_TIMEOUT_MS, signal }, (res) => {
      res.resume(); // the body is not needed; drain it so the socket closes
      const code = res.statusCode ?? 0;
      done(code === 200 ? { ok: true, detail: 'ok' } : { ok: false, detail: `HTTP ${code}${res.statusMessage ? ` ${res.statusMessage}` : ''}` });
    });
    req.on('timeout', () => req.destroy(new Error(`no response within ${REQUEST_TIMEOUT_MS / 1000}s`)));
    req.on('error', (err: NodeJS.ErrnoException) => done({ ok: false, detail: err.code ?? err.message }));
  });
