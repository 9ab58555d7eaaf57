import { promises as fs } from 'node:fs';
import * as yaml from 'js-yaml';
import { loadYaml } from '../yaml/read.js';
import { TsadmError, errorMessage } from '../errors.js';
import type { Logger } from '../log/events.js';
import type { KubeconfigAuth } from '../phases/kubeconfig/render.js';
import { CLUSTER_INFO_PATH, parseClusterInfoKubeconfig, readClusterInfoAnswer } from './cluster-info.js';
import { httpsGet, isTlsVerificationError } from './https-get.js';

/**
 * File discovery (kubeadm discovery/file): a kubeconfig from a local path or an https URL
 * (verified with the system CA store) names the cluster and its CA; its credentials, when
 * present, are the TLS bootstrap credentials. The cluster's own cluster-info is then read over
 * TLS pinned to that CA to pick up a newer server/CA; when it cannot be read, the file's data is
 * used as is (kubeadm's behaviour).
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
  /** Reads a file of the discovery kubeconfig (its own path and the credential files it names). */
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
  const parsed = await parseDiscoveryKubeconfig(text, input.location, readFile);
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

/** The discovery kubeconfig's cluster (current context's, else the only/first one) and user. */
async function parseDiscoveryKubeconfig(text: string, source: string, readFile: (p: string) => Promise<Buffer>): Promise<FileDiscoveryResult> {
  let doc: RawKubeconfig;
  try {
    doc = (loadYaml(text, { schema: yaml.JSON_SCHEMA }) ?? {});
  } catch (err) {
    throw new TsadmError('E_CONFIG_INVALID', `couldn't parse the discovery file ${source}: ${errorMessage(err)}`);
  }
  const clusters = doc.clusters ?? [];
  if (clusters.length === 0) throw new TsadmError('E_CONFIG_INVALID', `the discovery file ${source} has no cluster`);
  const context = (doc.contexts ?? []).find((c) => c.name === doc['current-context'])?.context;
  const entry = clusters.find((c) => c.name === context?.cluster) ?? clusters[0];
  const cluster = entry?.cluster ?? {};
  if (!cluster.server) throw new TsadmError('E_CONFIG_INVALID', `the discovery file ${source} has no server for cluster "${entry?.name ?? ''}"`);
  let caPem: string;
  if (cluster['certificate-authority-data']) caPem = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  else if (cluster['certificate-authority']) caPem = (await readFile(cluster['certificate-authority'])).toString('utf8');
  else {
    throw new TsadmError('E_CONFIG_INVALID', `the discovery file ${source} has no certificate authority for cluster "${entry?.name ?? ''}"`, {
      hint: 'file discovery trusts the CA in the file; embed it as certificate-authority-data',
    });
  }
  const userEntry = context?.user !== undefined ? (doc.users ?? []).find((u) => u.name === context.user) : undefined;
  const auth = userEntry?.user ? await authOf(userEntry.user, readFile) : undefined;
  return { server: cluster.server, caPem, ...(auth ? { auth, userName: userEntry?.name ?? 'tls-bootstrap-user' } : {}) };
}

async function authOf(user: Record<string, unknown>, readFile: (p: string) => Promise<Buffer>): Promise<KubeconfigAuth | undefined> {
  const str = (k: string): string | undefined => (typeof user[k] === 'string' && user[k] !== '' ? user[k] : undefined);
  const token = str('token') ?? (str('tokenFile') ? (await readFile(str('tokenFile') as string)).toString('utf8').trim() : undefined);
  if (token) return { kind: 'token', token };
  const certData = str('client-certificate-data');
  const keyData = str('client-key-data');
  const cert = certData ? Buffer.from(certData, 'base64') : str('client-certificate') ? await readFile(str('client-certificate') as string) : undefined;
  const key = keyData ? Buffer.from(keyData, 'base64') : str('client-key') ? await readFile(str('client-key') as string) : undefined;
  if (cert && key) return { kind: 'client-certificate', certificatePem: cert, keyPem: key };
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
