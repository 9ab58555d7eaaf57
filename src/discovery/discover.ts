import type { Discovery } from '../config/types.js';
import { TsadmError } from '../errors.js';
import type { Logger } from '../log/events.js';
import { renderKubeconfig, type KubeconfigAuth } from '../kubeconfig/render.js';
import { parseToken } from '../token/bootstrap-token.js';
import { discoverByToken } from './discovery.js';
import { discoverByFile, type FileDiscoveryDeps } from './file-discovery.js';

/**
 * What discovery establishes, whatever the method: the API server to use, the cluster CA it
 * is verified against, and the credentials of the TLS bootstrap (kubeadm's discovery.For).
 */
export interface JoinDiscovery {
  readonly method: 'token' | 'file';
  readonly server: string;
  readonly caPem: string;
  readonly auth: KubeconfigAuth;
  /** The kubeconfig user the credentials go under. */
  readonly userName: string;
}

/** kubeadm's TokenUser: the user name of bootstrap-kubelet.conf. */
const TLS_BOOTSTRAP_USER = 'tls-bootstrap-token-user';

export interface DiscoverDeps extends FileDiscoveryDeps {
  readonly log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** Poll interval overrides (tests). */
  readonly pollIntervalMs?: number;
  readonly missingSignatureGraceMs?: number;
}

export async function discover(d: Discovery, deps: DiscoverDeps): Promise<JoinDiscovery> {
  const bt = d.bootstrapToken;
  if (bt) {
    const token = parseToken(bt.token);
    const found = await discoverByToken({
      endpoint: bt.apiServerEndpoint,
      tokenId: token.id,
      tokenSecret: token.secret,
      caCertHashes: bt.caCertHashes,
      unsafeSkipCAVerification: bt.unsafeSkipCAVerification,
      timeoutMs: d.timeoutMs,
      ...(deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs } : {}),
      ...(deps.missingSignatureGraceMs !== undefined ? { missingSignatureGraceMs: deps.missingSignatureGraceMs } : {}),
    }, deps);
    return { method: 'token', server: found.server, caPem: found.caPem, auth: { kind: 'token', token: d.tlsBootstrapToken || bt.token }, userName: TLS_BOOTSTRAP_USER };
  }
  if (d.file) {
    const found = await discoverByFile({ location: d.file.kubeConfigPath, timeoutMs: d.timeoutMs, ...(deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs } : {}) }, deps);
    // A TLS bootstrap token wins over the file's own credentials (kubeadm's discovery.For).
    if (d.tlsBootstrapToken) return { method: 'file', server: found.server, caPem: found.caPem, auth: { kind: 'token', token: d.tlsBootstrapToken }, userName: TLS_BOOTSTRAP_USER };
    if (found.auth) return { method: 'file', server: found.server, caPem: found.caPem, auth: found.auth, userName: found.userName ?? TLS_BOOTSTRAP_USER };
    throw new TsadmError('E_CONFIG_INVALID', "couldn't find authentication credentials for the TLS bootstrap process", {
      hint: 'use token discovery, a discovery file with embedded credentials, or a discovery file without credentials plus --tls-bootstrap-token',
    });
  }
  throw new TsadmError('E_CONFIG_INVALID', 'no discovery method: give an API server endpoint with --token, or --discovery-file', {
    hint: 'tsadm join <host:port> --token <token> --discovery-token-ca-cert-hash sha256:<hash>',
  });
}

/** bootstrap-kubelet.conf (docs/kubeadm-reference.md §8.2): the discovered cluster under the cluster's name, the bootstrap credentials. */
export function bootstrapKubeconfig(disc: JoinDiscovery, clusterName: string): string {
  return renderKubeconfig({ clusterName, server: disc.server, caPem: disc.caPem, userName: disc.userName, auth: disc.auth });
}
