/**
 * The TLS and auth settings of a kubeconfig's current context, resolved by
 * @kubernetes/client-node's KubeConfig (CA, client certificate and key, bearer token, basic
 * auth, exec credential plugins, tls-server-name, insecure-skip-tls-verify), so tsadm reads
 * kubeconfigs the way the Kubernetes clients do — after ./credential-policy.ts has checked the
 * kubeconfig and inlined every file it names: client-node is given options only (never the
 * text, never a path), so it reads no file and runs no auth-provider (decision 48).
 *
 * Only client-node's config module is imported, and only here, for a user with an exec credential
 * plugin: that module alone bundles to a 2.4 MB chunk (undici included) that costs a join ~18 MB
 * of peak RSS (decision 79); the package's index pulls in every typed API, ~14 MB, which cost ~220 ms
 * CPU and ~57 MB RSS per command (BENCHMARKS.md). Every other user — all kubeadm writes — is
 * resolved by `applyInline`, which does what client-node's applyToHTTPSOptions does for inline
 * credentials (test/unit/kube/kubeconfig-connection.test.ts compares the two). Requests themselves
 * go through ./transport.ts as raw JSON, because client-node's typed models rewrite objects and
 * would break "no change → no write".
 */
import type { AgentOptions } from 'node:https';
import { TsadmError, errorMessage } from '../errors.js';
import { inlineKubeconfig, type InlineKubeconfig, type KubeconfigFiles } from './credential-policy.js';

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
export interface AppliedOptions extends AgentOptions {
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
  const server = inline.clusters[0]?.server ?? '';
  let opts: AppliedOptions = { headers: {} };
  try {
    if (inline.users[0]?.exec === undefined) {
      opts = applyInline(inline);
    } else {
      const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
      const kc = new KubeConfig();
      kc.loadFromOptions(inline);
      await kc.applyToHTTPSOptions(opts);
    }
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

/**
 * client-node's KubeConfig.applyToHTTPSOptions (its applyHTTPSOptions, applyAuthorizationHeader
 * and basic auth, @kubernetes/client-node dist/config.js) for a user without an exec plugin: with
 * every credential inline and auth-provider refused (./credential-policy.ts), none of its
 * authenticators applies, so what is left is this. Pure.
 */
export function applyInline(inline: InlineKubeconfig): AppliedOptions {
  const context = inline.contexts.find((c) => c.name === inline.currentContext);
  const cluster = inline.clusters.find((c) => c.name === context?.cluster);
  const user = inline.users.find((u) => u.name === context?.user);
  const opts: AppliedOptions = { headers: {} };
  if (!user) return opts;
  const headers: Record<string, string> = {};
  if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
  if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
  // Empty data counts as none, as in client-node's bufferFromFileOrString.
  if (cluster?.caData) opts.ca = Buffer.from(cluster.caData, 'base64');
  if (user.certData) opts.cert = Buffer.from(user.certData, 'base64');
  if (user.keyData) opts.key = Buffer.from(user.keyData, 'base64');
  if (user.impersonateUser != null) headers['Impersonate-User'] = user.impersonateUser;
  if (user.token) headers.Authorization = `Bearer ${user.token}`;
  if (user.username) opts.auth = `${user.username}:${user.password}`;
  opts.headers = headers;
  // client-node's createAgent, the last step of applyToHTTPSOptions (no proxy-url reaches it).
  if (cluster?.server.startsWith('http:') && !cluster.skipTLSVerify) throw new Error('HTTP protocol is not allowed when skipTLSVerify is not set or false');
  return opts;
}

function asBuffer(v: unknown): Buffer {
  return Buffer.isBuffer(v) ? v : Buffer.from(String(v));
}

function firstLine(err: unknown): string {
  return errorMessage(err).split('\n')[0] ?? '';
}
