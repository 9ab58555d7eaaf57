import https from 'node:https';
import http from 'node:http';
import { TsadmError, errorMessage } from '../errors.js';

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

/** The TLS and auth settings of a kubeconfig's current context, as client-node resolves them. */
interface Connection {
  readonly server: string;
  readonly agentOptions: https.AgentOptions;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Loads a kubeconfig with @kubernetes/client-node — imported only here and only when a command
 * talks to a cluster, because loading it costs most of a second — and returns a transport.
 */
export async function transportFromKubeconfig(kubeconfigText: string, source: string, defaultTimeoutMs = 30_000): Promise<RestTransport> {
  const conn = await resolveConnection(kubeconfigText, source);
  return new HttpsTransport(conn, defaultTimeoutMs);
}

async function resolveConnection(text: string, source: string): Promise<Connection> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${source}: ${errorMessage(err)}`, { hint: 'the file is not a valid kubeconfig' });
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) {
    throw new TsadmError('E_PRECONDITION', `kubeconfig ${source} has no cluster for its current context`, { hint: 'check current-context in the kubeconfig' });
  }
  const opts: https.RequestOptions = {};
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `failed to load credentials from kubeconfig ${source}: ${errorMessage(err)}`, { hint: 'check the certificate and key data in the kubeconfig' });
  }
  // client-node made a one-shot agent; we keep its TLS material and use a keep-alive agent.
  (opts.agent as https.Agent | undefined)?.destroy();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
  if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  const agentOptions: https.AgentOptions = {
    keepAlive: true,
    ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
    ...(opts.cert !== undefined ? { cert: opts.cert } : {}),
    ...(opts.key !== undefined ? { key: opts.key } : {}),
    ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
    ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
  };
  return { server: cluster.server.replace(/\/+$/, ''), agentOptions, headers };
}

class HttpsTransport implements RestTransport {
  readonly server: string;
  private readonly agent: http.Agent;
  private readonly secure: boolean;

  constructor(private readonly conn: Connection, private readonly defaultTimeoutMs: number) {
    this.server = conn.server;
    this.secure = conn.server.startsWith('https:');
    this.agent = this.secure ? new https.Agent(conn.agentOptions) : new http.Agent({ keepAlive: true });
  }

  request(req: RestRequest): Promise<RestResponse> {
    const url = new URL(this.server + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    const payload = req.body === undefined ? undefined : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    const headers: Record<string, string | number> = { Accept: 'application/json', ...this.conn.headers };
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
