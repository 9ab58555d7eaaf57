import { toKyamlDocuments } from '../yaml/kyaml.js';
import { toKubeYamlDocuments } from '../yaml/write.js';
import type { TokenInfo } from './secret.js';
import { formatToken } from './bootstrap-token.js';
import { formatRfc3339 } from './rfc3339.js';

export type TokenListFormat = 'text' | 'json' | 'yaml' | 'kyaml';

/** kubeadm ≥ 1.23 prints output.kubeadm.k8s.io/v1alpha3 (1.20: v1alpha1); the fields are the same. */
const TOKEN_OUTPUT_API_VERSION = 'output.kubeadm.k8s.io/v1alpha3';

const COLUMNS = ['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS'];

/**
 * `kubeadm token list` text output. kubeadm builds a fresh tabwriter (minwidth 10, padding 3)
 * per token and flushes it, so the header aligns with the first row only and every later row
 * is aligned on its own; the fixed %-9s/%-22s/%-56s paddings keep it readable. Reproduced as is.
 */
export function formatTokenTable(tokens: readonly TokenInfo[], now: Date): string {
  let out = '';
  tokens.forEach((t, i) => {
    const rows = i === 0 ? [COLUMNS, tokenRow(t, now)] : [tokenRow(t, now)];
    out += tabwrite(rows, { minwidth: 10, padding: 3 });
  });
  return out;
}

function tokenRow(t: TokenInfo, now: Date): string[] {
  let ttl = '<forever>';
  let expires = '<never>';
  if (t.expires) {
    ttl = shortHumanDuration(t.expires.epochMs - now.getTime());
    expires = formatRfc3339(t.expires.epochMs, t.expires.offsetMinutes);
  }
  const usages = t.usages.length > 0 ? t.usages.join(',') : '<none>';
  const description = t.description || '<none>';
  const groups = t.groups.length > 0 ? t.groups.join(',') : '<none>';
  return [formatToken(t.token), ttl.padEnd(9), expires, usages.padEnd(22), description.padEnd(56), groups];
}

/** k8s.io/apimachinery duration.ShortHumanDuration. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * Go text/tabwriter with a space pad character and no flags, for rows that all have the same
 * number of cells: every cell but the last is padded to max(minwidth, widest cell + padding).
 */
export function tabwrite(rows: readonly (readonly string[])[], opts: { minwidth: number; padding: number }): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, c) => {
      widths[c] = Math.max(widths[c] ?? opts.minwidth, runeLength(cell) + opts.padding);
    });
  }
  return rows
    .map((row) => row.map((cell, c) => (c < row.length - 1 ? cell + ' '.repeat((widths[c] as number) - runeLength(cell)) : cell)).join('') + '\n')
    .join('');
}

function runeLength(s: string): number {
  return [...s].length;
}

/** The output API object kubeadm prints for -o json / -o yaml (expires in UTC, as metav1.Time marshals). */
function tokenOutputObject(t: TokenInfo, apiVersion = TOKEN_OUTPUT_API_VERSION): Record<string, unknown> {
  const o: Record<string, unknown> = { kind: 'BootstrapToken', apiVersion, token: formatToken(t.token) };
  if (t.description) o.description = t.description;
  if (t.expires) o.expires = formatRfc3339(t.expires.epochMs, 0);
  if (t.usages.length > 0) o.usages = [...t.usages];
  if (t.groups.length > 0) o.groups = [...t.groups];
  return o;
}

/** json: one 4-space-indented document per token (Go's MarshalIndent); yaml: sorted keys, "---" between. */
export function formatTokenObjects(tokens: readonly TokenInfo[], format: 'json' | 'yaml' | 'kyaml', apiVersion?: string): string {
  const objects = tokens.map((t) => tokenOutputObject(t, apiVersion));
  if (format === 'json') return objects.map((o) => `${JSON.stringify(o, null, 4)}\n`).join('');
  if (format === 'kyaml') return toKyamlDocuments(objects);
  return toKubeYamlDocuments(objects);
}
