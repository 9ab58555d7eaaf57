/**
 * The TLS and auth settings of a kubeconfig's current context, resolved by
 * @kubernetes/client-node's KubeConfig (embedded or file CA, client certificate and key, bearer
 * token, basic auth, exec and auth-provider plugins, tls-server-name, insecure-skip-tls-verify),
 * so tsadm reads kubeconfigs the way the Kubernetes clients do.
 *
 * Only client-node's config module is imported, and only here, when a command opens a
 * connection: that module alone bundles to a 1.4 MB chunk (~0.16 s CPU to load); the package's
 * index pulls in every typed API, ~14 MB, which cost ~220 ms CPU and ~57 MB RSS per command
 * (BENCHMARKS.md). Requests themselves
 * go through ./transport.ts as raw JSON, because client-node's typed models rewrite objects and
 * would break "no change → no write".
 */
import path from 'node:path';
import type { AgentOptions } from 'node:https';
import { TsadmError, errorMessage } from '../errors.js';

export interface Connection {
  readonly server: string;
  readonly tlsServerName?: string;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly rejectUnauthorized?: boolean;
  readonly headers: Readonly<Record<string, string>>;
}

/** What client-node's applyToHTTPSOptions fills in (https.RequestOptions, minus the agent we make ourselves). */
interface AppliedOptions extends AgentOptions {
  headers?: Record<string, string>;
  auth?: string;
}

/** Resolves the current context of TEXT (from SOURCE, a path or a label) into a Connection. */
export async function resolveKubeconfigConnection(text: string, source: string): Promise<Connection> {
  const bad = (why: string, hint: string): TsadmError => new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${source}: ${why}`, { hint });
  const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw bad(firstLine(err) || 'invalid YAML', 'the file is not a valid kubeconfig');
  }
  const server = kc.getCurrentCluster()?.server;
  if (!server) {
    throw new TsadmError('E_PRECONDITION', `kubeconfig ${source} has no cluster for its current context`, { hint: 'check current-context in the kubeconfig' });
  }
  // kubectl resolves relative paths against the kubeconfig's own directory.
  kc.makePathsAbsolute(path.isAbsolute(source) ? path.dirname(source) : process.cwd());
  const opts: AppliedOptions = { headers: {} };
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (err) {
    throw bad(`cannot resolve its credentials: ${firstLine(err)}`, 'check the certificate, key and token files (or the credential plugin) the kubeconfig refers to');
  }
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (!headers.Authorization && opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  return {
    server: server.replace(/\/+$/, ''),
    headers,
    ...(opts.servername ? { tlsServerName: opts.servername } : {}),
    ...(opts.ca ? { ca: asBuffer(opts.ca) } : {}),
    ...(opts.cert ? { cert: asBuffer(opts.cert) } : {}),
    ...(opts.key ? { key: asBuffer(opts.key) } : {}),
    ...(opts.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
  };
}

function asBuffer(v: unknown): Buffer {
  return Buffer.isBuffer(v) ? v : Buffer.from(String(v));
}

function firstLine(err: unknown): string {
  return errorMessage(err).split('\n')[0] ?? '';
}
