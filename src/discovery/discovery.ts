import { TsadmError, errorMessage } from '../errors.js';
import type { Logger } from '../log/events.js';
import { caCertHash } from '../pki/hash.js';
import { JWS_KEY_PREFIX, verifyDetachedSignature } from '../token/jws.js';
import {
  CLUSTER_INFO_PATH, endpointURL, parseClusterInfoKubeconfig, pemCertificates, readClusterInfoAnswer, signedTokenIds,
  type ClusterInfoAnswer,
} from './cluster-info.js';
import { httpsGet, isTlsVerificationError, type Trust } from './https-get.js';

/**
 * Token discovery, as kubeadm does it (docs/kubeadm-reference.md §8.1): fetch cluster-info without trusting the
 * server, verify its JWS with the token, verify the CA against the pins, then fetch again over
 * TLS pinned to that CA and require the same bytes. Both fetches are anonymous: the token is
 * never sent anywhere here (it only keys the HMAC), and nothing is written.
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
  /** First retry delay; doubles up to 5 s (kubeadm polls every 5 s). Default 500 ms. */
  readonly pollIntervalMs?: number;
  /**
   * How long cluster-info may carry signatures of other tokens but not ours before the token is
   * declared invalid (the controller-manager signs a new token within seconds). Default 20 s.
   */
  readonly missingSignatureGraceMs?: number;
}

export interface DiscoveryDeps {
  readonly log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  readonly now?: () => number;
}

export interface TokenDiscoveryResult {
  /** The server URL inside cluster-info (used from here on, not the command-line endpoint). */
  readonly server: string;
  readonly caPem: string;
  readonly kubeconfigText: string;
}

export async function discoverByToken(input: TokenDiscoveryInput, deps: DiscoveryDeps): Promise<TokenDiscoveryResult> {
  const now = deps.now ?? Date.now;
  const base = endpointURL(input.endpoint);
  const url = `${base}${CLUSTER_INFO_PATH}`;
  const deadline = now() + input.timeoutMs;
  deps.log.info(`Requesting cluster-info from "${base}" (anonymous, not yet trusted)`, { prefix: 'discovery' });
  const first = await pollUnverified(url, input, deadline, deps);

  const jws = first.data[`${JWS_KEY_PREFIX}${input.tokenId}`];
  if (!(await verifyDetachedSignature(jws, first.kubeconfig, input.tokenId, input.tokenSecret))) {
    throw new TsadmError('E_TRUST', "failed to verify JWS signature of received cluster info object, can't trust this API Server", {
      hint: `the token secret does not match token id "${input.tokenId}" on this cluster: check --token (tsadm token list on a control-plane node); if it is right, something between you and ${base} changed the answer`,
    });
  }
  const { server, caPem } = parseClusterInfoKubeconfig(first.kubeconfig);

  if (input.caCertHashes.length === 0) {
    if (!input.unsafeSkipCAVerification) {
      throw new TsadmError('E_CONFIG_INVALID', 'discovery.bootstrapToken: using token-based discovery without caCertHashes can be unsafe', {
        hint: 'set --discovery-token-ca-cert-hash (or --discovery-token-unsafe-skip-ca-verification to accept the risk)',
      });
    }
    deps.log.warn('the cluster CA is not pinned (--discovery-token-unsafe-skip-ca-verification): the CA in cluster-info is trusted on the token signature alone', { prefix: 'discovery' });
  } else {
    const found = pemCertificates(caPem).map((c) => caCertHash(c));
    const pins = input.caCertHashes.map((h) => h.toLowerCase());
    if (!found.some((h) => pins.includes(h.toLowerCase()))) {
      throw new TsadmError('E_TRUST', `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${found.join(', ')}" are pinned`, {
        hint: 'compare with the --discovery-token-ca-cert-hash printed by init (on a control-plane node: openssl x509 -pubkey -in /etc/kubernetes/pki/ca.crt | openssl pkey -pubin -outform der | sha256sum)',
      });
    }
  }

  deps.log.info(`Requesting info from "${base}" again to validate TLS against the pinned public key`, { prefix: 'discovery' });
  const second = await pollPinned(url, caPem, deadline, deps);
  if (second.kubeconfig !== first.kubeconfig) {
    throw new TsadmError('E_TRUST', 'failed to securely validate the cluster info object: the copy fetched over the pinned TLS connection differs from the validated one', {
      hint: `${base} answered differently to the verified connection; check for a proxy or a second server at that address`,
    });
  }
  deps.log.info(`Cluster info signature and contents are valid and TLS certificate validates against pinned roots, will use API Server "${server}"`, { prefix: 'discovery' });
  return { server, caPem, kubeconfigText: first.kubeconfig };
}

type Found = Extract<ClusterInfoAnswer, { kind: 'found' }>;

async function fetchOnce(url: string, trust: Trust, timeoutMs: number): Promise<ClusterInfoAnswer> {
  const res = await httpsGet(url, { trust, timeoutMs });
  return readClusterInfoAnswer(res.status, res.body);
}

function sleepUntil(ms: number, deadline: number, now: () => number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, Math.min(ms, deadline - now()))));
}

/**
 * Discovery retries back off from 500 ms to at most 1 s (kubeadm retries every 5 s): a join
 * started while the control plane is still settling notices a signed cluster-info within a
 * second (BENCHMARKS.md), for one small anonymous GET per second per joining node.
 */
const MAX_RETRY_DELAY_MS = 1000;

async function pollUnverified(url: string, input: TokenDiscoveryInput, deadline: number, deps: DiscoveryDeps): Promise<Found> {
  const now = deps.now ?? Date.now;
  const grace = input.missingSignatureGraceMs ?? 20_000;
  let delay = input.pollIntervalMs ?? 500;
  let reason = 'not tried';
  let othersSignedSince: number | undefined;
  let sawUnsignedForUs = false;
  for (;;) {
    const remaining = deadline - now();
    // Too little time left for a meaningful attempt: report what was seen so far.
    if (remaining < 50) break;
    const answer = await fetchOnce(url, { kind: 'insecure' }, Math.min(remaining, 10_000))
      .catch((err): ClusterInfoAnswer => ({ kind: 'retry', reason: errorMessage(err) }));
    if (answer.kind === 'found') {
      if (typeof answer.data[`${JWS_KEY_PREFIX}${input.tokenId}`] === 'string') return answer;
      // Signatures of other tokens but none for ours: the controller-manager is signing, just not this token.
      const others = signedTokenIds(answer.data);
      reason = `no JWS signature for token id "${input.tokenId}" in cluster-info (signed token ids: ${others.length > 0 ? others.length : 'none yet'})`;
      sawUnsignedForUs = true;
      if (others.length > 0) {
        othersSignedSince ??= now();
        if (now() - othersSignedSince >= grace) throw invalidToken(input.tokenId);
      }
    } else {
      reason = answer.reason;
    }
    deps.log.debug(`cluster-info not usable yet (${reason}); retrying`, { prefix: 'discovery' });
    await sleepUntil(delay, deadline, now);
    delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
  }
  // The server answered with cluster-info but never signed for this token: the token is the problem,
  // even if the very last attempt then failed on the network.
  if (sawUnsignedForUs) throw invalidToken(input.tokenId, reason.startsWith('no JWS signature') ? undefined : reason);
  throw new TsadmError('E_TIMEOUT', `could not fetch cluster-info from ${url} within ${Math.round(input.timeoutMs / 1000)}s: ${reason}`, {
    hint: 'check the API server endpoint and that it is reachable from this machine (and, with a discovery timeout set, that it is long enough)',
  });
}

async function pollPinned(url: string, caPem: string, deadline: number, deps: DiscoveryDeps): Promise<Found> {
  const now = deps.now ?? Date.now;
  let delay = 500;
  let reason = 'not tried';
  for (;;) {
    const remaining = deadline - now();
    if (remaining <= 0) break;
    let answer: ClusterInfoAnswer;
    try {
      answer = await fetchOnce(url, { kind: 'ca', pem: caPem }, Math.min(remaining, 10_000));
    } catch (err) {
      if (isTlsVerificationError(err)) {
        throw new TsadmError('E_TRUST', `the API server's TLS certificate does not validate against the cluster CA from cluster-info: ${errorMessage(err)}`, {
          hint: 'the server that answered is not the cluster it claims to be, or its serving certificate lacks this address; use an endpoint in the API server certificate',
        });
      }
      answer = { kind: 'retry', reason: errorMessage(err) };
    }
    if (answer.kind === 'found') return answer;
    reason = answer.reason;
    deps.log.debug(`pinned cluster-info fetch failed (${reason}); retrying`, { prefix: 'discovery' });
    await sleepUntil(delay, deadline, now);
    delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
  }
  throw new TsadmError('E_TIMEOUT', `could not fetch cluster-info over the pinned TLS connection to ${url}: ${reason}`, {
    hint: 'check that the API server endpoint is reachable from this machine',
  });
}

function invalidToken(tokenId: string, lastError?: string): TsadmError {
  return new TsadmError('E_TRUST', `token id "${tokenId}" is invalid for this cluster or it has expired. Use "tsadm token create" on the control-plane node to create a new valid token`, {
    hint: `list the valid tokens with \`tsadm token list\` on a control-plane node${lastError ? ` (the last attempt to read cluster-info failed: ${lastError})` : ''}`,
  });
}
