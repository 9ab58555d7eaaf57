import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The detached JWS the controller-manager's bootstrapsigner puts on cluster-info as
 * `jws-kubeconfig-<token-id>` (k8s.io/cluster-bootstrap/token/jws). The header bytes are fixed
 * because verifiers recompute the whole string and compare.
 */
export function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(Buffer.from(`{"alg":"HS256","kid":"${tokenId}"}`, 'utf8'));
  const payload = b64url(Buffer.from(content, 'utf8'));
  // The HMAC key is the 16-character secret only, not "id.secret".
  const sig = createHmac('sha256', tokenSecret).update(`${header}.${payload}`).digest();
  return `${header}..${b64url(sig)}`;
}

/** Constant-time check of a detached signature against content and token. */
export function verifyDetachedSignature(detached: string, content: string, tokenId: string, tokenSecret: string): boolean {
  const expected = Buffer.from(computeDetachedSignature(content, tokenId, tokenSecret));
  const given = Buffer.from(detached);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}
