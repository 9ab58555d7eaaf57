import { promises as fs } from 'node:fs';
import * as yaml from 'js-yaml';
import { loadYaml } from '../yaml/read.js';
import { TsadmError, errorMessage } from '../errors.js';
import type { Logger } from '../log/events.js';
import type { KubeconfigAuth } from '../kubeconfig/render.js';
import { CLUSTER_INFO_PATH, parseClusterInfoKubeconfig, readClusterInfoAnswer } from './cluster-info.js';
import { httpsGet, isTlsVerificationError } from './https-get.js';

/**
 * File discovery (kubeadm discovery/file): a kubeconfig from a local path or an https URL
 * (verified with the system CA store) names the cluster and its CA; its credentials, when
 * present, are the TLS bootstrap credentials. The cluster's own cluster-info is then read over
 * TLS pinned to that CA to pick up a newer server/CA; when it cannot be read, the file's data is
 * used as is (kubeadm's behaviour).
 *
 * What the file is trusted for (decision 48): its cluster's server and CA, and the
 * credentials written in it. Whether it is local or fetched from a URL, it names no file and no
 * program: `certificate-authority`, `client-certificate`, `client-key` and `tokenFile` paths,
 * `exec` and `auth-provider` users are refused, naming the field, before anything is read or
 * sent. kubeadm (discovery/file/file.go, util/kubeconfig's EnsureCertificateAuthorityIsEmbedded
 * and EnsureAuthenticationInfoAreEmbedded) reads such paths on the joining machine and embeds
 * them; tsadm is stricter on purpose (docs/safety.md, "Trust boundaries"): a discovery file from
 * an https URL could otherwise name any file on this machine and have it sent to its server.
 */
export interface FileDiscoveryInput {
  /** A path (read from the real filesystem, relative to the working directory) or an https:// URL. */
  readonly location: string;
  readonly timeoutMs: number;
  readonly pollIntervalMs?: number;
}

export interface FileDiscoveryResult {
  readonly server: string;
  readonly caPem: string;
  /** The file's credentials for the TLS bootstrap, when it has any. */
  readonly auth?: KubeconfigAuth;
  readonly userName?: string;
}

export interface FileDiscoveryDeps {
  readonly log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** Reads the discovery file itself (a local --discovery-file); nothing else is ever read. */
  readonly readFile?: (path: string) => Promise<Buffer>;
  readonly now?: () => number;
}

interface RawKubeconfig {
  clusters?: Array<{ name?: string; cluster?: { server?: string; 'certificate-authority-data'?: string; 'certificate-authority'?: string } }> | null;
  contexts?: Array<{ name?: string; context?: { cluster?: string; user?: string } }> | null;
  users?: Array<{ name?: string; user?: Record<string, unknown> }> | null;
  'current-context'?: string;
}

export async function discoverByFile(input: FileDiscoveryInput, deps: FileDiscoveryDeps): Promise<FileDiscoveryResult> {
  const readFile = deps.readFile ?? ((p: string) => fs.readFile(p));
  const text = await loadDiscoveryFile(input, readFile);
  const parsed = parseDiscoveryKubeconfig(text, input.location);
  deps.log.info(`Using the cluster CA and server "${parsed.server}" from ${input.location}`, { prefix: 'discovery' });
  const refreshed = await refreshFromClusterInfo(parsed.server, parsed.caPem, input, deps);
  return { ...parsed, ...(refreshed ?? {}) };
}

async function loadDiscoveryFile(input: FileDiscoveryInput, readFile: (p: string) => Promise<Buffer>): Promise<string> {
  if (/^https:\/\//i.test(input.location)) {
    let res;
    try {
      res = await httpsGet(input.location, { trust: { kind: 'system' }, timeoutMs: Math.min(input.timeoutMs, 30_000) });
    } catch (err) {
      throw new TsadmError('E_TRUST', `couldn't fetch the discovery file ${input.location}: ${errorMessage(err)}`, {
        hint: 'the URL must be served over https with a certificate trusted by this machine\'s CA store',
      });
    }
    if (res.status !== 200) throw new TsadmError('E_PRECONDITION', `couldn't fetch the discovery file ${input.location}: HTTP ${res.status}`);
    return res.body;
  }
  if (/^[a-z]+:\/\//i.test(input.location)) {
    throw new TsadmError('E_CONFIG_INVALID', `--discovery-file ${input.location}: only local paths and https:// URLs are supported`);
  }
  try {
    return (await readFile(input.location)).toString('utf8');
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `couldn't read the discovery file ${input.location}: ${errorMessage(err)}`, { hint: 'check the --discovery-file path' });
  }
}

/** Fields of a discovery file's user that name a file or a program: refused (see the top of this file). */
const REFUSED_USER_FIELDS: ReadonlyArray<readonly [field: string, why: string]> = [
  ['tokenFile', 'names a local file'],
  ['token-file', 'names a local file'],
  ['client-certificate', 'names a local file'],
  ['client-key', 'names a local file'],
  ['exec', 'runs a credential plugin'],
  ['auth-provider', 'uses an auth-provider plugin'],
];

/** Pure: the one reason this discovery file may not be used, or undefined. */
function discoveryFileProblem(doc: RawKubeconfig): string | undefined {
  for (const c of Array.isArray(doc.clusters) ? doc.clusters : []) {
    if (c?.cluster?.['certificate-authority'] !== undefined) {
      return `cluster "${c.name ?? ''}" certificate-authority names a local file; a discovery file must embed its CA as certificate-authority-data`;
    }
  }
  for (const u of Array.isArray(doc.users) ? doc.users : []) {
    for (const [field, why] of REFUSED_USER_FIELDS) {
      if (u?.user?.[field] !== undefined && u.user[field] !== null) {
        return `user "${u.name ?? ''}" ${field} ${why}; a discovery file's credentials must be inline (token, or client-certificate-data and client-key-data)`;
      }
    }
  }
  return undefined;
}

/** The discovery kubeconfig's cluster (current context's, else the only/first one) and user. */
function parseDiscoveryKubeconfig(text: string, source: string): FileDiscoveryResult {
  let doc: RawKubeconfig;
  try {
    doc = (loadYaml(text, { schema: yaml.JSON_SCHEMA }) ?? {});
  } catch (err) {
    throw new TsadmError('E_CONFIG_INVALID', `couldn't parse the discovery file ${source}: ${errorMessage(err)}`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc) || ['clusters', 'contexts', 'users'].some((k) => !(doc[k as keyof RawKubeconfig] == null || Array.isArray(doc[k as keyof RawKubeconfig])))) throw new TsadmError('E_CONFIG_INVALID', `the discovery file ${source} is not a kubeconfig`);
  const problem = discoveryFileProblem(doc);
  if (problem !== undefined) {
    throw new TsadmError('E_TRUST', `the discovery file ${source}: ${problem}`, {
      hint: 'tsadm trusts a discovery file for its server, its CA and the credentials written in it, never for files or programs of this machine',
    });
  }
  const clusters = doc.clusters ?? [];
  if (clusters.length === 0) throw new TsadmError('E_CONFIG_INVALID', `the discovery file ${source} has no cluster`);
  const context = (doc.contexts ?? []).find((c) => c.name === doc['current-context'])?.context;
  const entry = clusters.find((c) => c.name === context?.cluster) ?? clusters[0];
  const cluster = entry?.cluster ?? {};
  if (!cluster.server) throw new TsadmError('E_CONFIG_INVALID', `the discovery file ${source} has no server for cluster "${entry?.name ?? ''}"`);
  const caData = cluster['certificate-authority-data'];
  if (!caData) {
    throw new TsadmError('E_CONFIG_INVALID', `the discovery file ${source} has no certificate authority for cluster "${entry?.name ?? ''}"`, {
      hint: 'file discovery trusts the CA in the file; embed it as certificate-authority-data',
    });
  }
  const caPem = Buffer.from(caData, 'base64').toString('utf8');
  const userEntry = context?.user !== undefined ? (doc.users ?? []).find((u) => u.name === context.user) : undefined;
  const auth = userEntry?.user ? authOf(userEntry.user) : undefined;
  return { server: cluster.server, caPem, ...(auth ? { auth, userName: userEntry?.name ?? 'tls-bootstrap-user' } : {}) };
}

/** The inline credentials of the discovery file's user (paths were refused above). */
function authOf(user: Record<string, unknown>): KubeconfigAuth | undefined {
  const str = (k: string): string | undefined => (typeof user[k] === 'string' && user[k] !== '' ? user[k] : undefined);
  const token = str('token');
  if (token) return { kind: 'token', token };
  const certData = str('client-certificate-data');
  const keyData = str('client-key-data');
  if (certData && keyData) return { kind: 'client-certificate', certificatePem: Buffer.from(certData, 'base64'), keyPem: Buffer.from(keyData, 'base64') };
  return undefined;
}

/** Newer server/CA from the cluster's cluster-info, read over TLS pinned to the file's CA. */
async function refreshFromClusterInfo(server: string, caPem: string, input: FileDiscoveryInput, deps: FileDiscoveryDeps): Promise<{ server: string; caPem: string } | undefined> {
  const now = deps.now ?? Date.now;
  const deadline = now() + input.timeoutMs;
  const url = `${server.replace(/\/+$/, '')}${CLUSTER_INFO_PATH}`;
  let delay = input.pollIntervalMs ?? 1000;
  for (;;) {
    const remaining = deadline - now();
    let reason: string;
    try {
      const res = await httpsGet(url, { trust: { kind: 'ca', pem: caPem }, timeoutMs: Math.max(1, Math.min(remaining, 10_000)) });
      if (res.status === 403 || res.status === 401) {
        deps.log.warn(`Could not access the cluster-info ConfigMap for refreshing the cluster-info information, but the TLS cert is valid so proceeding...`, { prefix: 'discovery' });
        return undefined;
      }
      const answer = readClusterInfoAnswer(res.status, res.body);
      if (answer.kind === 'found') {
        try {
          const fresh = parseClusterInfoKubeconfig(answer.kubeconfig);
          deps.log.debug('Synced cluster-info information from the API Server so we have got the latest information', { prefix: 'discovery' });
          return fresh;
        } catch (err) {
          deps.log.debug(`the cluster-info ConfigMap is not usable (${errorMessage(err)}); using the discovery file's data`, { prefix: 'discovery' });
          return undefined;
        }
      }
      reason = answer.reason;
    } catch (err) {
      if (isTlsVerificationError(err)) {
        throw new TsadmError('E_TRUST', `the API server ${server} does not present a certificate signed by the CA in the discovery file: ${errorMessage(err)}`, {
          hint: 'the discovery file belongs to another cluster, or its server address is not in the API server certificate',
        });
      }
      reason = errorMessage(err);
    }
    if (deadline - now() <= 0) {
      throw new TsadmError('E_TIMEOUT', `could not reach the API server ${server} named by the discovery file: ${reason}`, {
        hint: 'check the server address in the discovery file and that this machine can reach it',
      });
    }
    deps.log.debug(`Error reading the cluster-info ConfigMap, will try again: ${reason}`, { prefix: 'discovery' });
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(delay, deadline - now()))));
    delay = Math.min(delay * 2, 5000);
  }
}
