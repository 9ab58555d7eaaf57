import { TsadmError } from '../errors.js';

/**
 * Bootstrap token strings (k8s.io/cluster-bootstrap/token): "<id>.<secret>", where the id is
 * public (it names the Secret) and the secret must never be logged.
 */
export const TOKEN_PATTERN = '\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z';
export const TOKEN_ID_PATTERN = '\\A([a-z0-9]{6})\\z';
const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const TOKEN_ID_RE = /^[a-z0-9]{6}$/;

const TOKEN_CHARS = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Bytes ≥ 252 are rejected so that `b % 36` stays uniform (256 − 256 % 36 = 252). */
const MAX_BYTE = 252;

export interface BootstrapTokenString {
  readonly id: string;
  readonly secret: string;
}

export function isValidToken(token: string): boolean {
  return TOKEN_RE.test(token);
}

export function isValidTokenId(id: string): boolean {
  return TOKEN_ID_RE.test(id);
}

/** Parses "abcdef.0123456789abcdef"; the error never echoes the input (it may be a real secret). */
export function parseToken(token: string): BootstrapTokenString {
  const m = TOKEN_RE.exec(token);
  if (!m) {
    throw new TsadmError('E_CONFIG_INVALID', `the bootstrap token does not match the pattern "${TOKEN_PATTERN}"`, {
      hint: 'a token looks like "abcdef.0123456789abcdef"; generate one with `tsadm token generate`',
    });
  }
  return { id: m[1] as string, secret: m[2] as string };
}

export function formatToken(token: BootstrapTokenString): string {
  return `${token.id}.${token.secret}`;
}

/** Name of the Secret that stores a token. */
export function tokenSecretName(id: string): string {
  return `bootstrap-token-${id}`;
}

/** A source of random bytes; tests pass a deterministic one. */
export type RandomSource = (n: number) => Uint8Array;

/**
 * The CSPRNG (Node's Web Crypto global, the same OpenSSL generator as crypto.randomBytes). Reached
 * through the global so that loading this module does not load node:crypto: `version`, which
 * shares the launcher's fast-path bundle with `token generate`, never needs it (decision 29).
 */
const randomBytes: RandomSource = (n) => globalThis.crypto.getRandomValues(new Uint8Array(n));

/** kubeadm's `randBytes`: uniform over [0-9a-z] by rejection sampling. */
export function randomTokenChars(length: number, random: RandomSource = randomBytes): string {
  let out = '';
  let pool = random(length * 2);
  let i = 0;
  while (out.length < length) {
    if (i >= pool.length) {
      pool = random(length * 2);
      i = 0;
    }
    const b = pool[i++] as number;
    if (b < MAX_BYTE) out += TOKEN_CHARS[b % TOKEN_CHARS.length];
  }
  return out;
}

export function generateToken(random: RandomSource = randomBytes): string {
  return `${randomTokenChars(6, random)}.${randomTokenChars(16, random)}`;
}
