/**
 * What happens to the cluster's Corefile when CoreDNS is upgraded (kubeadm's createCoreDNSAddon
 * with github.com/coredns/corefile-migration). Pure.
 *
 * kubeadm: an empty or default Corefile is replaced by the target's default; a customised one is
 * retained unless the migration library reports a "removed" or "newdefault" notice for it between
 * the installed and the target CoreDNS version (its Deprecated), in which case it is migrated
 * (Migrate; the original kept as Corefile-backup). When it cannot migrate it retains the Corefile
 * and warns "the CoreDNS Configuration was not migrated: … The existing CoreDNS Corefile
 * configuration has been retained."
 *
 * tsadm reproduces the decision from the library's tables for the CoreDNS versions its minors
 * deploy (1.7.0 … 1.11.3): the only removals there are options of the kubernetes plugin (below);
 * there are no new defaults after 1.7.0. It does not rewrite Corefiles: where kubeadm would
 * migrate, the Corefile is retained with kubeadm's not-migrated warning naming what to change.
 * Versions outside the table (CoreDNS 1.12 of 1.33+) get the same warning, as the check cannot be made.
 */

import { isDefaultCorefile } from '../addons/coredns-render.js';

/** The library's release chain (versions.go nextVersion links), oldest first, from the CoreDNS of kubeadm 1.20. */
const RELEASES = [
  '1.7.0', '1.7.1', '1.8.0', '1.8.3', '1.8.4', '1.8.5', '1.8.6', '1.8.7', '1.9.0', '1.9.1', '1.9.2', '1.9.3', '1.9.4',
  '1.10.0', '1.10.1', '1.11.0', '1.11.1', '1.11.3',
] as const;

/** Options of the kubernetes plugin with status "removed" in a release's plugin table (plugins.go kubernetes v7, "v8 remove transfer option"). */
const REMOVED_KUBERNETES_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  '1.7.1': ['resyncperiod', 'upstream'],
  '1.8.0': ['transfer'],
};

export type CorefileDecision =
  /** Written as the target's default (kubeadm's CreateOrUpdateConfigMap). */
  | { readonly action: 'replace' }
  /** Kept as it is (CreateOrRetainConfigMap); `warning` when kubeadm would have migrated it. */
  | { readonly action: 'retain'; readonly warning?: string };

export interface CorefileInput {
  /** The live Corefile; undefined or "" when there is none. */
  readonly corefile: string | undefined;
  /** The running CoreDNS image's tag ("1.7.0", "v1.8.0"); undefined when no CoreDNS Deployment runs. */
  readonly installedTag: string | undefined;
  /** The target minor's CoreDNS tag. */
  readonly targetTag: string;
}

/** CoreDNS versions compare without the "v" the registry.k8s.io tags gained in 1.21. */
function coreDnsVersion(tag: string): string {
  return tag.replace(/^v/, '');
}

export function corefileDecision(input: CorefileInput): CorefileDecision {
  const { corefile } = input;
  if (corefile === undefined || corefile === '' || isDefaultCorefile(corefile)) return { action: 'replace' };
  // Same CoreDNS version (or nothing running to compare with): nothing to migrate.
  if (input.installedTag === undefined) return { action: 'retain' };
  const from = coreDnsVersion(input.installedTag);
  const to = coreDnsVersion(input.targetTag);
  if (from === to) return { action: 'retain' };
  const notMigrated = (why: string): CorefileDecision => ({
    action: 'retain',
    warning: `the CoreDNS Configuration was not migrated: ${why}. The existing CoreDNS Corefile configuration has been retained.`,
  });
  const removed = removedOptions(corefile, from, to);
  if (removed === undefined) return notMigrated(`tsadm cannot check a customised Corefile for the upgrade from CoreDNS ${from} to ${to}`);
  if (removed.length === 0) return { action: 'retain' };
  return notMigrated(`CoreDNS ${to} no longer supports ${removed.map((r) => `option "${r.option}" of plugin "kubernetes" (removed in ${r.version})`).join(', ')}, `
    + 'and tsadm does not rewrite Corefiles; remove or replace them before the new CoreDNS starts');
}

/**
 * The removed kubernetes-plugin options the Corefile uses, release by release after `from` up to
 * `to` (the library's Deprecated walk); undefined when either version is not in the table.
 */
export function removedOptions(corefile: string, from: string, to: string): { option: string; version: string }[] | undefined {
  const start = (RELEASES as readonly string[]).indexOf(from);
  const end = (RELEASES as readonly string[]).indexOf(to);
  if (start < 0 || end < 0 || end <= start) return undefined;
  const used = kubernetesOptions(corefile);
  const found: { option: string; version: string }[] = [];
  for (const version of RELEASES.slice(start + 1, end + 1)) {
    for (const option of REMOVED_KUBERNETES_OPTIONS[version] ?? []) {
      if (used.has(option) && !found.some((f) => f.option === option)) found.push({ option, version });
    }
  }
  return found;
}

/** The option names inside every kubernetes plugin block of a Corefile (comments ignored). */
function kubernetesOptions(corefile: string): Set<string> {
  const options = new Set<string>();
  let depth = 0;
  let inKubernetes = false;
  for (const raw of corefile.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const opens = line.endsWith('{');
    const first = line.split(/\s+/)[0] ?? '';
    if (line === '}') {
      depth = Math.max(0, depth - 1);
      if (depth < 2) inKubernetes = false;
      continue;
    }
    if (depth === 1 && first === 'kubernetes' && opens) inKubernetes = true;
    else if (depth === 2 && inKubernetes) options.add(first);
    if (opens) depth++;
  }
  return options;
}

/** The tag of an image reference ("k8s.gcr.io/coredns:1.7.0" → "1.7.0"); undefined without one or with a digest only. */
export function imageTag(image: string): string | undefined {
  const name = image.split('@')[0] ?? '';
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  return colon > slash ? name.slice(colon + 1) : undefined;
}
