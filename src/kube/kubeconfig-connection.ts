/**
 * The TLS and auth settings of a kubeconfig's current context, resolved the way kubectl does for
 * the fields kubeadm-style kubeconfigs use (embedded or file CA, client certificate and key,
 * bearer token, basic auth, insecure-skip-tls-verify, tls-server-name). Replaces loading
 * @kubernetes/client-node for this: its 14 MB bundle chunk cost ~220 ms of CPU and ~57 MB of RSS
 * in every command that talks to a cluster (see BENCHMARKS.md). Exec and auth-provider
 * plugins are refused with a clear error; no kubeadm-generated file uses them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
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

type Obj = Record<string, unknown>;
/** Reads a file a kubeconfig refers to (absolute path). */
export type FileReader = (file: string) => Promise<Buffer>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (o: Obj, k: string): string | undefined => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined);

function named(doc: Obj, list: string, name: unknown, field: string): Obj | undefined {
  const items = Array.isArray(doc[list]) ? (doc[list] as unknown[]) : [];
  const item = items.find((i) => isObj(i) && i.name === name) as Obj | undefined;
  return item && isObj(item[field]) ? (item[field] as Obj) : undefined;
}

/** Resolves the current context of TEXT (from SOURCE, a path or a label) into a Connection. */
export async function resolveKubeconfigConnection(text: string, source: string, read: FileReader = (f) => readFile(f)): Promise<Connection> {
  const bad = (why: string, hint: string): TsadmError => new TsadmError('E_PRECONDITION', `failed to load kubeconfig ${source}: ${why}`, { hint });
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw bad(errorMessage(err).split('\n')[0] ?? 'invalid YAML', 'the file is not a valid kubeconfig');
  }
  if (!isObj(doc)) throw bad('it is not a kubeconfig', 'the file is not a valid kubeconfig');
  const context = named(doc, 'contexts', doc['current-context'], 'context');
  const cluster = context ? named(doc, 'clusters', context.cluster, 'cluster') : undefined;
  const server = cluster ? str(cluster, 'server') : undefined;
  if (!cluster || !server) {
    throw new TsadmError('E_PRECONDITION', `kubeconfig ${source} has no cluster for its current context`, { hint: 'check current-context in the kubeconfig' });
  }
  const user = (context && named(doc, 'users', context.user, 'user')) ?? {};
  if (user.exec !== undefined || user['auth-provider'] !== undefined) {
    throw bad('exec and auth-provider credentials are not supported', 'use a kubeconfig with a client certificate or a token (e.g. /etc/kubernetes/admin.conf)');
  }
  // kubectl resolves relative paths against the kubeconfig's own directory.
  const base = path.isAbsolute(source) ? path.dirname(source) : process.cwd();
  const material = async (o: Obj, dataKey: string, fileKey: string): Promise<Buffer | undefined> => {
    const data = str(o, dataKey);
    if (data) return Buffer.from(data, 'base64');
    const file = str(o, fileKey);
    if (!file) return undefined;
    try {
      return await read(path.resolve(base, file));
    } catch (err) {
      throw bad(`cannot read ${fileKey} ${file}: ${errorMessage(err)}`, 'check the certificate and key files the kubeconfig refers to');
    }
  };
  const [ca, cert, key, tokenFile] = await Promise.all([
    material(cluster, 'certificate-authority-data', 'certificate-authority'),
    material(user, 'client-certificate-data', 'client-certificate'),
    material(user, 'client-key-data', 'client-key'),
    material(user, '', 'tokenFile'),
  ]);
  const headers: Record<string, string> = {};
  const token = str(user, 'token') ?? tokenFile?.toString('utf8').trim();
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (str(user, 'username')) headers.Authorization = `Basic ${Buffer.from(`${str(user, 'username')}:${str(user, 'password') ?? ''}`).toString('base64')}`;
  const tlsServerName = str(cluster, 'tls-server-name');
  return {
    server: server.replace(/\/+$/, ''),
    headers,
    ...(tlsServerName ? { tlsServerName } : {}),
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(cluster['insecure-skip-tls-verify'] === true ? { rejectUnauthorized: false } : {}),
  };
}
