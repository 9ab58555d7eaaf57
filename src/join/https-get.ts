import https from 'node:https';
import { TsadmError } from '../errors.js';

export interface HttpsGetOptions {
  /** PEM CA bundle to verify the server against; undefined = do not verify (discovery's first fetch). */
  readonly ca?: string;
  readonly timeoutMs: number;
  /** Bearer token; never sent to an unverified server (enforced here). */
  readonly bearerToken?: string;
}

export interface HttpsResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * One HTTPS GET with a hard deadline. Credentials are refused for unverified connections, so a
 * bootstrap token can never reach a server whose CA was not pinned.
 */
export function httpsGet(url: string, opts: HttpsGetOptions): Promise<HttpsResponse> {
  if (opts.bearerToken !== undefined && opts.ca === undefined) {
    return Promise.reject(new TsadmError('E_INTERNAL', 'refusing to send credentials to an unverified server'));
  }
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        ...(opts.ca !== undefined ? { ca: opts.ca, rejectUnauthorized: true } : { rejectUnauthorized: false }),
        headers: {
          Accept: 'application/json',
          ...(opts.bearerToken !== undefined ? { Authorization: `Bearer ${opts.bearerToken}` } : {}),
        },
        timeout: opts.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          // cluster-info is a few KiB; a huge answer is not an API server talking.
          if (size > 4 * 1024 * 1024) req.destroy(new Error('response larger than 4 MiB'));
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
