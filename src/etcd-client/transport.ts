import https from 'node:https';
import { TsadmError } from '../errors.js';
import { USER_AGENT } from '../version.js';

/**
 * One JSON POST to etcd's gRPC gateway (`/v3/...` on the client port) over mutual TLS. etcd
 * serves the gateway on every client URL, so no gRPC stack is needed for the few membership
 * calls tsadm makes. Resolves the parsed body; rejects on network errors, timeouts and etcd
 * errors (the gateway answers `{"error","message","code"}`), with the etcd message kept.
 */
export interface EtcdTls {
  /** PEM of the etcd CA (etcd/ca.crt). */
  readonly ca: string | Buffer;
  /** Client certificate and key (etcd/healthcheck-client.crt/.key, as kubeadm uses). */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

export class EtcdRequestError extends Error {
  constructor(
    message: string,
    readonly endpoint: string,
    /** gRPC status code from the gateway (e.g. 5 = NotFound), when etcd answered. */
    readonly grpcCode?: number,
  ) {
    super(message);
    this.name = 'EtcdRequestError';
  }
}

/** No answer within the request's time: etcd said nothing (it may be slow, not gone). */
export class EtcdNoAnswerError extends EtcdRequestError {
  constructor(timeoutMs: number, endpoint: string) {
    super(`no answer within ${timeoutMs} ms`, endpoint);
    this.name = 'EtcdNoAnswerError';
  }
}

export function postJson(endpoint: string, path: string, body: unknown, tls: EtcdTls, timeoutMs: number): Promise<unknown> {
  const url = new URL(path, endpoint.endsWith('/') ? endpoint : `${endpoint}/`);
  if (url.protocol !== 'https:') {
    return Promise.reject(new TsadmError('E_INTERNAL', `refusing to talk to etcd over ${url.protocol} (${endpoint}): stacked etcd serves https only`));
  }
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = https.request(url, {
      method: 'POST',
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      rejectUnauthorized: true,
      // One-shot connections: a membership change is a handful of calls, and no socket may outlive the command.
      agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length, 'User-Agent': USER_AGENT },
      timeout: timeoutMs,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: { error?: string; message?: string; code?: number } | undefined;
        try {
          parsed = JSON.parse(text) as typeof parsed;
        } catch {
          parsed = undefined;
        }
        if (parsed && typeof parsed === 'object' && (parsed.error !== undefined || (res.statusCode ?? 0) >= 400)) {
          reject(new EtcdRequestError(parsed.message ?? parsed.error ?? `HTTP ${res.statusCode}`, endpoint, parsed.code));
        } else if (parsed === undefined || (res.statusCode ?? 0) >= 400) {
          reject(new EtcdRequestError(`unexpected answer (HTTP ${res.statusCode}): ${text.slice(0, 200)}`, endpoint));
        } else {
          resolve(parsed);
        }
      });
    });
    const deadline = setTimeout(() => req.destroy(new EtcdNoAnswerError(timeoutMs, endpoint)), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new EtcdNoAnswerError(timeoutMs, endpoint)));
    req.on('error', (err) => reject(err instanceof EtcdRequestError ? err : new EtcdRequestError(err.message, endpoint)));
    req.end(payload);
  });
}
