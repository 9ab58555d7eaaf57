import https from 'node:https';
import { TsadmError } from '../errors.js';
import { USER_AGENT } from '../version.js';

/**
 * How a GET trusts the server: not at all (discovery's first, anonymous fetch), a pinned CA
 * bundle, or the system's CA store (a --discovery-file https URL).
 */
export type Trust =
  | { readonly kind: 'insecure' }
  | { readonly kind: 'ca'; readonly pem: string }
  | { readonly kind: 'system' };

export interface HttpsGetOptions {
  readonly trust: Trust;
  readonly timeoutMs: number;
  /** Bearer token; never sent to an unverified server (enforced here). */
  readonly bearerToken?: string;
}

export interface HttpsResponse {
  readonly status: number;
  readonly body: string;
}

/** cluster-info is a few KiB; a bigger answer is not an API server talking. */
const MAX_BODY = 4 * 1024 * 1024;

/**
 * One HTTPS GET with a hard deadline (connect, TLS and body included). Credentials are refused
 * for unverified connections, so a bootstrap token can never reach a server whose CA was not
 * pinned. No connection is reused or kept.
 */
export function httpsGet(url: string, opts: HttpsGetOptions): Promise<HttpsResponse> {
  if (opts.bearerToken !== undefined && opts.trust.kind === 'insecure') {
    return Promise.reject(new TsadmError('E_INTERNAL', 'refusing to send credentials to an unverified server'));
  }
  if (!url.startsWith('https://')) {
    return Promise.reject(new TsadmError('E_INTERNAL', `refusing a non-https URL: ${url}`));
  }
  const tls = opts.trust.kind === 'insecure' ? { rejectUnauthorized: false }
    : opts.trust.kind === 'ca' ? { ca: opts.trust.pem, rejectUnauthorized: true }
      : { rejectUnauthorized: true };
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        ...tls,
        agent: false,
        headers: {
          Accept: 'application/json',
          'User-Agent': USER_AGENT,
          ...(opts.bearerToken !== undefined ? { Authorization: `Bearer ${opts.bearerToken}` } : {}),
        },
        timeout: opts.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) req.destroy(new Error('response larger than 4 MiB'));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/** Node's codes for a certificate the trusted CAs do not vouch for (or a name it does not cover). */
export function isTlsVerificationError(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code ?? '';
  return /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_SIGNATURE_FAILURE|CERT_UNTRUSTED|ERR_TLS_CERT_ALTNAME_INVALID|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID)$/.test(code);
}
