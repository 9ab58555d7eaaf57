import type { BootstrapToken } from '../config/types.js';
import { TsadmError } from '../errors.js';
import type { SecretObject } from '../kube/types.js';
import { isValidTokenId, parseToken, tokenSecretName, type BootstrapTokenString } from './bootstrap-token.js';
import { formatRfc3339Local, hostZone, parseRfc3339, type Timestamp, type ZoneOffset } from './rfc3339.js';

/** The Secret format of k8s.io/cluster-bootstrap/token/api (what the API server authenticates). */
export const TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const TOKEN_NAMESPACE = 'kube-system';
const USAGE_PREFIX = 'usage-bootstrap-';

/** A token as read back from its Secret (what `token list` shows). */
export interface TokenInfo {
  readonly token: BootstrapTokenString;
  readonly description: string;
  readonly expires: Timestamp | undefined;
  /** Sorted. */
  readonly usages: readonly string[];
  readonly groups: readonly string[];
}

/**
 * kubeadm's BootstrapTokenToSecret: an absolute `expires` wins over `ttlMs`; TTL 0 = no
 * expiration key; the expiration is written in the host's local time zone.
 */
export function tokenToSecret(bt: BootstrapToken, now: Date, zone: ZoneOffset = hostZone): SecretObject {
  const { id, secret } = parseToken(bt.token);
  const data: Record<string, string> = { 'token-id': id, 'token-secret': secret };
  if (bt.description) data.description = bt.description;
  const expiration = expirationOf(bt, now, zone);
  if (expiration !== undefined) data.expiration = expiration;
  for (const usage of bt.usages) data[`${USAGE_PREFIX}${usage}`] = 'true';
  if (bt.groups.length > 0) data['auth-extra-groups'] = bt.groups.join(',');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: tokenSecretName(id), namespace: TOKEN_NAMESPACE },
    type: TOKEN_SECRET_TYPE,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

function expirationOf(bt: BootstrapToken, now: Date, zone: ZoneOffset): string | undefined {
  if (bt.expires !== undefined && bt.expires !== '') {
    const ts = parseRfc3339(bt.expires);
    if (!ts) {
      throw new TsadmError('E_CONFIG_INVALID', `invalid bootstrap token expiration "${bt.expires}"`, { hint: 'use RFC 3339, e.g. 2030-01-02T15:04:05Z' });
    }
    return formatRfc3339Local(new Date(ts.epochMs), zone);
  }
  if (bt.ttlMs > 0) return formatRfc3339Local(new Date(now.getTime() + bt.ttlMs), zone);
  return undefined;
}

/** kubeadm's BootstrapTokenFromSecret; errors are one line naming the Secret, never the secret. */
export function secretToToken(secret: SecretObject): TokenInfo {
  const name = secret.metadata.name;
  const get = (key: string): string => unb64(secret.data?.[key]);
  const id = get('token-id');
  if (!id) throw invalid(`bootstrap Token Secret has no token-id data: ${name}`);
  if (name !== tokenSecretName(id)) {
    throw invalid(`bootstrap token name is not of the form 'bootstrap-token-(token-id)'. Actual: "${name}". Expected: "${tokenSecretName(id)}"`);
  }
  const tokenSecret = get('token-secret');
  if (!tokenSecret) throw invalid(`bootstrap Token Secret has no token-secret data: ${name}`);
  if (!isValidTokenId(id) || !/^[a-z0-9]{16}$/.test(tokenSecret)) {
    throw invalid(`bootstrap Token Secret is invalid and couldn't be parsed: ${name}`);
  }
  const expirationText = get('expiration');
  let expires: Timestamp | undefined;
  if (expirationText) {
    expires = parseRfc3339(expirationText);
    if (!expires) throw invalid(`can't parse expiration time of bootstrap token "${name}"`);
  }
  const usages = Object.entries(secret.data ?? {})
    .filter(([k, v]) => k.startsWith(USAGE_PREFIX) && unb64(v) === 'true')
    .map(([k]) => k.slice(USAGE_PREFIX.length))
    .sort();
  const groupsText = get('auth-extra-groups');
  const groups = groupsText ? groupsText.split(',') : [];
  return { token: { id, secret: tokenSecret }, description: get('description'), expires, usages, groups };
}

function invalid(message: string): TsadmError {
  return new TsadmError('E_API', message, { hint: 'inspect or delete the Secret in kube-system' });
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

function unb64(s: string | undefined): string {
  return s === undefined ? '' : Buffer.from(s, 'base64').toString('utf8');
}
