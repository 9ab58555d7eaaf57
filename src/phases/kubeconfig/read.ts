/**
 * What kubeadm compares in an existing kubeconfig (validateKubeConfig): the cluster of the
 * current context, its server URL and its embedded CA. Pure.
 */
import yaml from 'js-yaml';

export interface KubeconfigCluster {
  readonly server: string;
  /** Decoded certificate-authority-data, whitespace-trimmed (kubeadm trims before comparing). */
  readonly caData: Buffer;
  /** certificate-authority (a file path), which modern kubeadm reads when there is no data. */
  readonly caFile?: string;
}

type Named = { name?: unknown; cluster?: Record<string, unknown>; context?: Record<string, unknown> };

/** The current context's cluster, or a string saying why it cannot be found. */
export function currentCluster(text: string): KubeconfigCluster | string {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    return `it is not valid YAML (${(err as Error).message.split('\n')[0]})`;
  }
  if (!doc || typeof doc !== 'object') return 'it is not a kubeconfig file';
  const cfg = doc as Record<string, unknown>;
  const list = (key: string): Named[] => (Array.isArray(cfg[key]) ? (cfg[key] as Named[]) : []);
  const current = cfg['current-context'];
  const context = list('contexts').find((c) => c?.name === current)?.context;
  if (!current || !context) return 'its CurrentContext is not among its contexts';
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
