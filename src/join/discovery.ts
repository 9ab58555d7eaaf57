import yaml from 'js-yaml';
import { TsadmError, errorMessage } from '../errors.js';
import type { Logger } from '../log/events.js';
import { httpsGet } from './https-get.js';

/**
 * Token discovery, as kubeadm does it (spec §8.1): fetch cluster-info without trusting the
 * server, verify its JWS with the token, verify the CA against the pins, then fetch again over
 * TLS pinned to that CA and require the same bytes. No credential is ever sent before the last
 * step succeeds (the fetches are anonymous).
 */
export interface TokenDiscoveryInput {
  /** "host:port" of any API server of the cluster, as typed on the command line. */
  readonly endpoint: string;
  readonly tokenId: string;
  readonly tokenSecret: string;
  /** "sha256:<hex>" pins; any match passes. */
  readonly caCertHashes: readonly string[];
  readonly unsafeSkipCAVerification: boolean;
  readonly timeoutMs: number;
  /** First retry delay; doubles up to 5 s (kubeadm polls every 5 s). */
  readonly pollIntervalMs?: number;
}

export interface DiscoveryDeps {
  /** Recomputes the detached JWS over payload and compares it with the given one. */
  verifyJws(payload: string, detached: string, tokenId: string, tokenSecret: string): boolean;
  /** "sha256:<hex>" of a certificate's SubjectPublicKeyInfo. */
  spkiHash(certPem: string): string;
  readonly log: Logger;
}

export interface DiscoveryResult {
  /** The server URL inside cluster-info (used from here on, not the command-line endpoint). */
  readonly server: string;
  readonly caPem: string;
  readonly kubeconfigText: string;
}

const CLUSTER_INFO_PATH = '/api/v1/namespaces/kube-public/configmaps/cluster-info';

export async function discoverByToken(input: TokenDiscoveryInput, deps: DiscoveryDeps): Promise<DiscoveryResult> {
  const url = `${endpointURL(input.endpoint)}${CLUSTER_INFO_PATH}`;
  const deadline = Date.now() + input.timeoutMs;
  deps.log.info(`Retrieving cluster-info from ${endpointURL(input.endpoint)} (unverified, anonymous)`, { prefix: 'discovery' });
  const first = await pollClusterInfo(url, input, deadline, deps.log);

  const jws = first.data[`jws-kubeconfig-${input.tokenId}`] as string;
  if (!deps.verifyJws(first.kubeconfig, jws, input.tokenId, input.tokenSecret)) {
    throw new TsadmError('E_TRUST', "failed to verify JWS signature of received cluster info object, can't trust this API Server", {
      hint: 'check the token (tsadm token list on a control-plane node) and that --token matches it; an attacker may be in the path',
    });
  }
  const { server, caPem } = parseClusterInfoKubeconfig(first.kubeconfig);

  if (input.caCertHashes.length === 0) {
    if (!input.unsafeSkipCAVerification) {
      throw new TsadmError('E_CONFIG_INVALID', 'discovery.bootstrapToken: using token-based discovery without caCertHashes can be unsafe', {
        hint: 'set --discovery-token-ca-cert-hash (or --discovery-token-unsafe-skip-ca-verification to accept the risk)',
      });
    }
    deps.log.warn('Cluster CA is not pinned (--discovery-token-unsafe-skip-ca-verification): trusting the CA in cluster-info on the token\'s word alone', { prefix: 'discovery' });
  } else {
    const found = pemCertificates(caPem).map((c) => deps.spkiHash(c));
    const pins = input.caCertHashes.map((h) => h.toLowerCase());
    if (!found.some((h) => pins.includes(h.toLowerCase()))) {
      throw new TsadmError('E_TRUST', `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${found.join(', ')}" are pinned`, {
        hint: 'compare with the --discovery-token-ca-cert-hash printed by init (or: openssl x509 -pubkey -in ca.crt | openssl pkey -pubin -outform der | sha256sum)',
      });
    }
  }

  deps.log.info('Cluster info signature and contents are valid; fetching it again over TLS pinned to the cluster CA', { prefix: 'discovery' });
  const second = await fetchClusterInfo(url, { ca: caPem, timeoutMs: Math.max(1000, deadline - Date.now()) });
  if (second.kind !== 'found' || second.kubeconfig !== first.kubeconfig) {
    throw new TsadmError('E_TRUST', 'cluster-info fetched over the pinned TLS connection differs from the validated copy', {
      hint: 'the API server answered differently to the verified connection; check for a proxy or a second server at that address',
    });
  }
  deps.log.info(`Successfully established connection with API Server "${server}"`, { prefix: 'discovery' });
  return { server, caPem, kubeconfigText: first.kubeconfig };
}

type Fetch =
  | { kind: 'found'; kubeconfig: string; data: Record<string, unknown> }
  | { kind: 'missing-jws'; kubeconfig: string; data: Record<string, unknown> }
  | { kind: 'retry'; reason: string };

async function pollClusterInfo(url: string, input: TokenDiscoveryInput, deadline: number, log: Logger): Promise<{ kubeconfig: string; data: Record<string, unknown> }> {
  let delay = input.pollIntervalMs ?? 500;
  let last: Fetch = { kind: 'retry', reason: 'not tried' };
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    last = await fetchClusterInfo(url, { timeoutMs: Math.min(remaining, 10_000) }).catch((err) => ({ kind: 'retry', reason: errorMessage(err) }) as Fetch);
    if (last.kind === 'found') {
      if (typeof last.data[`jws-kubeconfig-${input.tokenId}`] === 'string') return last;
      last = { ...last, kind: 'missing-jws' };
    }
    log.debug(`cluster-info not usable yet (${last.kind === 'retry' ? last.reason : `no JWS for token id ${input.tokenId}`}); retrying`, { prefix: 'discovery' });
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, deadline - Date.now()))));
    delay = Math.min(delay * 2, 5000);
  }
  if (last.kind === 'missing-jws') {
    throw new TsadmError('E_TRUST', `token id "${input.tokenId}" is invalid for this cluster or it has expired. Use "tsadm token create" on the control-plane node to create a new valid token`);
  }
  throw new TsadmError('E_TIMEOUT', `could not fetch cluster-info from ${url} within ${Math.round(input.timeoutMs / 1000)}s: ${last.kind === 'retry' ? last.reason : 'unknown'}`, {
    hint: 'check the API server endpoint and that it is reachable from this machine',
  });
}

async function fetchClusterInfo(url: string, opts: { ca?: string; timeoutMs: number }): Promise<Fetch> {
  const res = await httpsGet(url, { ...opts });
  if (res.status !== 200) return { kind: 'retry', reason: `HTTP ${res.status}` };
  let cm: { data?: Record<string, unknown> };
  try {
    cm = JSON.parse(res.body) as { data?: Record<string, unknown> };
  } catch {
    return { kind: 'retry', reason: 'the answer is not JSON' };
  }
  const data = cm.data ?? {};
  if (typeof data.kubeconfig !== 'string') return { kind: 'retry', reason: 'cluster-info has no kubeconfig' };
  return { kind: 'found', kubeconfig: data.kubeconfig, data };
}

/** The single cluster of cluster-info's kubeconfig: its server and CA bundle. */
export function parseClusterInfoKubeconfig(text: string): { server: string; caPem: string } {
  let doc: { clusters?: Array<{ cluster?: { server?: string; 'certificate-authority-data'?: string } }> };
  try {
    doc = yaml.load(text, { schema: yaml.JSON_SCHEMA }) as typeof doc;
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
