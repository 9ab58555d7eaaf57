import * as yaml from 'js-yaml';
import { loadYaml } from '../yaml/read.js';
import { TsadmError, errorMessage } from '../errors.js';
import { JWS_KEY_PREFIX } from '../token/jws.js';

/**
 * The cluster-info ConfigMap (kube-public) as discovery reads it: a kubeconfig with one cluster
 * (server + CA) and one detached JWS per bootstrap token. Pure.
 */
export const CLUSTER_INFO_PATH = '/api/v1/namespaces/kube-public/configmaps/cluster-info';

export type ClusterInfoAnswer =
  | { readonly kind: 'found'; readonly kubeconfig: string; readonly data: Readonly<Record<string, unknown>> }
  | { readonly kind: 'retry'; readonly reason: string };

/** Interprets one HTTP answer to GET cluster-info. */
export function readClusterInfoAnswer(status: number, body: string): ClusterInfoAnswer {
  if (status === 401 || status === 403) return { kind: 'retry', reason: `HTTP ${status}: the API server does not let anonymous clients read cluster-info` };
  if (status === 404) return { kind: 'retry', reason: 'HTTP 404: the cluster-info ConfigMap does not exist (yet)' };
  if (status !== 200) return { kind: 'retry', reason: `HTTP ${status}` };
  let cm: { data?: Record<string, unknown> };
  try {
    cm = JSON.parse(body) as { data?: Record<string, unknown> };
  } catch {
    return { kind: 'retry', reason: 'the answer is not JSON' };
  }
  const data = cm?.data ?? {};
  if (typeof data.kubeconfig !== 'string') return { kind: 'retry', reason: 'cluster-info has no kubeconfig' };
  return { kind: 'found', kubeconfig: data.kubeconfig, data };
}

/** Token ids that have a signature in cluster-info. */
export function signedTokenIds(data: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(data).filter((k) => k.startsWith(JWS_KEY_PREFIX) && typeof data[k] === 'string').map((k) => k.slice(JWS_KEY_PREFIX.length));
}

export interface KubeconfigClusterData {
  readonly server: string;
  readonly caPem: string;
}

/** The single cluster of cluster-info's kubeconfig: its server and CA bundle. */
export function parseClusterInfoKubeconfig(text: string): KubeconfigClusterData {
  let doc: { clusters?: Array<{ cluster?: { server?: string; 'certificate-authority-data'?: string } }> | null };
  try {
    doc = loadYaml(text, { schema: yaml.JSON_SCHEMA }) as typeof doc;
  } catch (err) {
    throw new TsadmError('E_TRUST', `couldn't parse the kubeconfig file in the cluster-info ConfigMap: ${errorMessage(err)}`);
  }
  const clusters = doc?.clusters ?? [];
  if (clusters.length !== 1) {
    throw new TsadmError('E_TRUST', `expected exactly one cluster in the cluster-info ConfigMap, found ${clusters.length}`);
  }
  const cluster = clusters[0]?.cluster ?? {};
  const caData = cluster['certificate-authority-data'];
  if (!cluster.server || !caData) throw new TsadmError('E_TRUST', 'the cluster-info kubeconfig lacks a server or certificate-authority-data');
  return { server: cluster.server, caPem: Buffer.from(caData, 'base64').toString('utf8') };
}

/** "host:port" / "[v6]:port" / "https://…" → "https://host:port". */
export function endpointURL(endpoint: string): string {
  const e = endpoint.trim().replace(/\/+$/, '');
  if (/^https:\/\//.test(e)) return e;
  return `https://${e}`;
}

export function pemCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}
