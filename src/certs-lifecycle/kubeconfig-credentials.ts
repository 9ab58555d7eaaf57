/**
 * The client credentials of a kubeconfig's current context (kubeadm's kubeConfigReadWriter), pure:
 * read the client certificate and key (embedded, or file paths as the kubelet writes them), and
 * write new embedded ones back while keeping every other field of the file.
 */
import { loadYaml } from '../yaml/read.js';
import { toKubeYaml } from '../yaml/write.js';
import { isPlainObject } from '../util/plain-object.js';

export interface ClientCredentials {
  readonly userName: string;
  readonly clusterName: string;
  readonly server: string;
  /** Embedded client-certificate-data, decoded. */
  readonly certPem?: Buffer;
  readonly keyPem?: Buffer;
  /** client-certificate / client-key paths when the data is not embedded. */
  readonly certFile?: string;
  readonly keyFile?: string;
}

type Obj = Record<string, unknown>;
type Named = { name?: unknown; [k: string]: unknown };

const list = (doc: Obj, key: string): Named[] => (Array.isArray(doc[key]) ? (doc[key] as unknown[]).filter(isPlainObject) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

interface Located {
  readonly doc: Obj;
  readonly user: Obj;
  readonly cluster: Obj;
  readonly userName: string;
  readonly clusterName: string;
}

/** The current context's user and cluster entries, or why they cannot be found. */
function locate(text: string, file: string): Located | string {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (err) {
    return `invalid kubeConfig file ${file}: not valid YAML (${(err as Error).message.split('\n')[0]})`;
  }
  if (!isPlainObject(doc)) return `invalid kubeConfig file ${file}: not a kubeconfig`;
  const current = str(doc['current-context']);
  const context = list(doc, 'contexts').find((c) => c.name === current)?.context;
  if (!current || !isPlainObject(context)) return `invalid kubeConfig file ${file}: missing context ${current ?? '""'}`;
  const clusterName = str(context.cluster) ?? '';
  const userName = str(context.user) ?? '';
  const cluster = list(doc, 'clusters').find((c) => c.name === clusterName)?.cluster;
  if (!isPlainObject(cluster)) return `invalid kubeConfig file ${file}: missing cluster ${clusterName}`;
  const user = list(doc, 'users').find((u) => u.name === userName)?.user;
  if (!isPlainObject(user)) return `invalid kubeConfig file ${file}: missing authInfo ${userName}`;
  return { doc, user, cluster, userName, clusterName };
}

const b64 = (v: unknown): Buffer | undefined => (str(v) ? Buffer.from(v as string, 'base64') : undefined);

export function readClientCredentials(text: string, file: string): ClientCredentials | string {
  const found = locate(text, file);
  if (typeof found === 'string') return found;
  const { user, cluster, userName, clusterName } = found;
  const certPem = b64(user['client-certificate-data']);
  const keyPem = b64(user['client-key-data']);
  const certFile = str(user['client-certificate']);
  const keyFile = str(user['client-key']);
  return {
    userName,
    clusterName,
    server: str(cluster.server) ?? '',
    ...(certPem ? { certPem } : {}),
    ...(keyPem ? { keyPem } : {}),
    ...(certFile ? { certFile } : {}),
    ...(keyFile ? { keyFile } : {}),
  };
}

/**
 * The same kubeconfig with new embedded client credentials for the current user and, as modern
 * kubeadm does, the CA on disk as the current cluster's certificate-authority-data.
 */
export function withClientCredentials(text: string, file: string, creds: { certPem: string; keyPem: string; caPem?: string }): string {
  const found = locate(text, file);
  if (typeof found === 'string') throw new Error(found);
  const { doc, user, cluster } = found;
  delete user['client-certificate'];
  delete user['client-key'];
  user['client-certificate-data'] = Buffer.from(creds.certPem).toString('base64');
  user['client-key-data'] = Buffer.from(creds.keyPem).toString('base64');
  if (creds.caPem !== undefined) {
    delete cluster['certificate-authority'];
    cluster['certificate-authority-data'] = Buffer.from(creds.caPem).toString('base64');
  }
  return toKubeYaml(doc);
}

/**
 * The same kubeconfig with CA_PEM (one certificate or a bundle) as its current cluster's
 * certificate-authority-data, every other field kept (a CA rotation changes only the trust).
 */
export function withClusterCA(text: string, file: string, caPem: string): string {
  const found = locate(text, file);
  if (typeof found === 'string') throw new Error(found);
  delete found.cluster['certificate-authority'];
  found.cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  return toKubeYaml(found.doc);
}
