/**
 * The TLS and auth settings of a kubeconfig's current context, resolved by
 * @kubernetes/client-node's KubeConfig (CA, client certificate and key, bearer token, basic
 * auth, exec credential plugins, tls-server-name, insecure-skip-tls-verify), so tsadm reads
 * kubeconfigs the way the Kubernetes clients do — after ./credential-policy.ts has checked the
 * kubeconfig and inlined every file it names: client-node is given options only (never the
 * text, never a path), so it reads no file and runs no auth-provider (decision 48).
 *
 * Only client-node's config module is imported, and only here, when a command opens a
 * connection: that module alone bundles to a 1.4 MB chunk (~0.16 s CPU to load); the package's
 * index pulls in every typed API, ~14 MB, which cost ~220 ms CPU and ~57 MB RSS per command
 * (BENCHMARKS.md). Requests themselves
 * go through ./transport.ts as raw JSON, because client-node's typed models rewrite objects and
 * would break "no change → no write".
 */
import type { AgentOptions } from 'node:https';
import { TsadmError, errorMessage } from '../errors.js';
import { inlineKubeconfig, type KubeconfigFiles } from './credential-policy.js';

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

/**
 * Resolves the current context of TEXT (from SOURCE, a path or a label) into a Connection.
 * FILES reads what the kubeconfig names (undefined: it may name nothing, e.g. discovery's credentials).
 */
export async function resolveKubeconfigConnection(text: string, source: string, files?: KubeconfigFiles): Promise<Connection> {
  const bad = (why: string, hint: string): TsadmError => new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${source}: ${why}`, { hint });
  const inline = await inlineKubeconfig(text, source, files);
  const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
  const kc = new KubeConfig();
  kc.loadFromOptions(inline);
  const server = inline.clusters[0]?.server ?? '';
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
