/**
 * What kubeadm compares in an existing kubeconfig (validateKubeConfig): the cluster of the
 * current context, its server URL and its embedded CA; and the current context's client
 * certificate, which tsadm checks too. Pure.
 */
import { loadYaml } from '../yaml/read.js';

export interface KubeconfigCluster {
  readonly server: string;
  /** Decoded certificate-authority-data, whitespace-trimmed (kubeadm trims before comparing). */
  readonly caData: Buffer;
  /** certificate-authority (a file path), which modern kubeadm reads when there is no data. */
  readonly caFile?: string;
}

type Named = { name?: unknown; cluster?: Record<string, unknown>; context?: Record<string, unknown> };

/** The current context's client certificate and key: embedded data or file paths (as written). */
export interface KubeconfigClientCert {
  readonly certData?: Buffer;
  readonly certFile?: string;
  readonly keyData?: Buffer;
  readonly keyFile?: string;
}

type Loaded = { cfg: Record<string, unknown>; list: (key: string) => Named[]; context: Record<string, unknown> };

function loadCurrentContext(text: string): Loaded | string {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (err) {
    return `it is not valid YAML (${(err as Error).message.split('\n')[0]})`;
  }
  if (!doc || typeof doc !== 'object') return 'it is not a kubeconfig file';
  const cfg = doc as Record<string, unknown>;
  const list = (key: string): Named[] => (Array.isArray(cfg[key]) ? (cfg[key] as Named[]) : []);
  const current = cfg['current-context'];
  const context = list('contexts').find((c) => c?.name === current)?.context;
  if (!current || !context) return 'its CurrentContext is not among its contexts';
  return { cfg, list, context };
}

/**
 * The current context's client certificate, undefined when the user authenticates otherwise
 * (a token, a plugin), or a string saying why the user cannot be found.
 */
export function currentClientCert(text: string): KubeconfigClientCert | undefined | string {
  const loaded = loadCurrentContext(text);
  if (typeof loaded === 'string') return loaded;
  const user = (loaded.list('users') as { name?: unknown; user?: Record<string, unknown> }[]).find((u) => u?.name === loaded.context.user)?.user;
  if (!user) return "the CurrentContext's user is not among its users";
  const str = (key: string): string | undefined => (typeof user[key] === 'string' ? user[key] : undefined);
  const certData = str('client-certificate-data');
  const certFile = str('client-certificate');
  const keyData = str('client-key-data');
  const keyFile = str('client-key');
  if (certData === undefined && certFile === undefined && keyData === undefined && keyFile === undefined) return undefined;
  return {
    ...(certData !== undefined ? { certData: Buffer.from(certData, 'base64') } : {}),
    ...(certFile !== undefined ? { certFile } : {}),
    ...(keyData !== undefined ? { keyData: Buffer.from(keyData, 'base64') } : {}),
    ...(keyFile !== undefined ? { keyFile } : {}),
  };
}

/** The current context's cluster, or a string saying why it cannot be found. */
export function currentCluster(text: string): KubeconfigCluster | string {
  const loaded = loadCurrentContext(text);
  if (typeof loaded === 'string') return loaded;
  const { list, context } = loaded;
  const cluster = list('clusters').find((c) => c?.name === context.cluster)?.cluster;
  if (!cluster) return "the CurrentContext's cluster is not among its clusters";
  const caData = typeof cluster['certificate-authority-data'] === 'string'
    ? Buffer.from(cluster['certificate-authority-data'], 'base64')
    : Buffer.alloc(0);
  const caFile = typeof cluster['certificate-authority'] === 'string' ? cluster['certificate-authority'] : undefined;
  return { server: typeof cluster.server === 'string' ? cluster.server : '', caData: trim(caData), ...(caFile ? { caFile } : {}) };
}

function trim(b: Buffer): Buffer {
  return Buffer.from(b.toString('latin1').trim(), 'latin1');
}
