import https from 'node:https';
import http from 'node:http';
import { USER_AGENT } from '../version.js';
import type { KubeconfigFiles } from './credential-policy.js';
import { resolveKubeconfigConnection, type Connection } from './kubeconfig-connection.js';

/**
 * Raw JSON over HTTPS to one API server. Kept apart from the API logic so tests can replay
 * answers a real server will not give on demand (429, 500, connection refused).
 */
export interface RestRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Default application/json. */
  readonly contentType?: string;
  readonly timeoutMs?: number;
}

export interface RestResponse {
  readonly status: number;
  /** Parsed JSON when the server sent JSON, else undefined. */
  readonly body: unknown;
  readonly text: string;
}

export interface RestTransport {
  readonly server: string;
  /** Resolves for every HTTP status; rejects only on network errors (with err.code set). */
  request(req: RestRequest): Promise<RestResponse>;
  close(): void;
}

/**
 * A transport to the cluster of a kubeconfig's current context. The kubeconfig is resolved by
 * ./kubeconfig-connection.ts (client-node's KubeConfig, loaded on first use).
 */
export async function transportFromKubeconfig(kubeconfigText: string, source: string, defaultTimeoutMs = 30_000, files?: KubeconfigFiles): Promise<RestTransport> {
  const conn = await resolveKubeconfigConnection(kubeconfigText, source, files);
  return new HttpsTransport(conn, defaultTimeoutMs);
}

function agentOptions(conn: Connection): https.AgentOptions {
  return {
    keepAlive: true,
    ...(conn.ca !== undefined ? { ca: conn.ca } : {}),
    ...(conn.cert !== undefined ? { cert: conn.cert } : {}),
    ...(conn.key !== undefined ? { key: conn.key } : {}),
    ...(conn.rejectUnauthorized !== undefined ? { rejectUnauthorized: conn.rejectUnauthorized } : {}),
    ...(conn.tlsServerName ? { servername: conn.tlsServerName } : {}),
  };
}

class HttpsTransport implements RestTransport {
  readonly server: string;
  private readonly agent: http.Agent;
  private readonly secure: boolean;

  constructor(private readonly conn: Connection, private readonly defaultTimeoutMs: number) {
    this.server = conn.server;
    this.secure = conn.server.startsWith('https:');
    this.agent = this.secure ? new https.Agent(agentOptions(conn)) : new http.Agent({ keepAlive: true });
  }

  request(req: RestRequest): Promise<RestResponse> {
    const url = new URL(this.server + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    const payload = req.body === undefined ? undefined : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    const headers: Record<string, string | number> = { Accept: 'application/json', ...this.conn.headers, 'User-Agent': USER_AGENT };
    if (payload) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = payload.length;
    }
    const mod = this.secure ? https : http;
    return new Promise((resolve, reject) => {
      const r = mod.request(url, { method: req.method, headers, agent: this.agent, timeout: req.timeoutMs ?? this.defaultTimeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          if ((res.headers['content-type'] ?? '').includes('json')) {
            try {
              body = JSON.parse(text);
            } catch {
              body = undefined;
            }
          }
          resolve({ status: res.statusCode ?? 0, body, text });
        });
      });
      r.on('timeout', () => r.destroy(Object.assign(new Error(`request timed out after ${req.timeoutMs ?? this.defaultTimeoutMs} ms`), { code: 'ETIMEDOUT' })));
      r.on('error', reject);
      if (payload) r.write(payload);
      r.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
