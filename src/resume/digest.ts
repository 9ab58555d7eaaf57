import { createHash } from 'node:crypto';

/**
 * Pure: the digest of what a phase's result depends on — the phase, the resolved configuration
 * and the run's options — as canonical JSON (keys sorted). Secrets and values made up anew on
 * every run (bootstrap tokens, the certificate key) are left out: a phase that depends on them
 * proves its result with its exit check instead (src/verify/exit-check.ts), so a new random token never
 * passes for an old one.
 */
export function inputDigest(path: string, inputs: unknown): string {
  return createHash('sha256').update(canonicalJson({ phase: path, inputs: withoutSecrets(inputs) })).digest('hex');
}

const SECRET_KEYS = new Set(['token', 'certificateKey', 'warnings', 'flags']);

function withoutSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([k]) => !SECRET_KEYS.has(k)).map(([k, x]) => [k, withoutSecrets(x)]));
  }
  return v;
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
