/**
 * The detached JWS the controller-manager's bootstrapsigner puts on cluster-info as
 * `jws-kubeconfig-<token-id>` (k8s.io/cluster-bootstrap/token/jws): HS256 over the kubeconfig,
 * keyed by the token secret, with the payload left out ("header..signature"). Signing and
 * verification are jose's, loaded only when a signature is made or checked (start-up stays light
 * for every other command).
 */

/** The cluster-info key of a token's signature: jws-kubeconfig-<token-id>. */
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The signature the bootstrapsigner would write for CONTENT and the token (tests sign cluster-info with it). */
export async function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  // Header key order alg, kid is what Go's encoder writes, so the string equals the cluster's.
  // The HMAC key is the 16-character secret only, not "id.secret".
  const { FlattenedSign } = await import('jose');
  const jws = await new FlattenedSign(utf8(content)).setProtectedHeader({ alg: 'HS256', kid: tokenId }).sign(utf8(tokenSecret));
  return `${jws.protected}..${jws.signature}`;
}

/**
 * True when DETACHED is a valid HS256 signature of CONTENT by the token's secret, for that
 * token id. Anything else (malformed, another algorithm, another kid, another key) is false.
 */
export async function verifyDetachedSignature(detached: unknown, content: string, tokenId: string, tokenSecret: string): Promise<boolean> {
  if (typeof detached !== 'string') return false;
  const parts = detached.split('.');
  if (parts.length !== 3 || parts[1] !== '') return false;
  const [protectedHeader = '', , signature = ''] = parts;
  const { flattenedVerify } = await import('jose');
  try {
    const { protectedHeader: header } = await flattenedVerify(
      { protected: protectedHeader, payload: Buffer.from(content, 'utf8').toString('base64url'), signature },
      utf8(tokenSecret),
      { algorithms: ['HS256'] },
    );
    return header?.kid === tokenId;
  } catch {
    return false;
  }
}
