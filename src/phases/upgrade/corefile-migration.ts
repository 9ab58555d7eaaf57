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
 * tsadm reproduces the decision from the library's tables. It does not rewrite Corefiles: where
 * kubeadm would migrate, the Corefile is retained with kubeadm's not-migrated warning naming what
 * to change. Where it cannot make the check, it says so with the same warning.
 *
 * Sources (the library's own files, as stored in the search index; docs/upgrade.md repeats them):
 * - the release chain up to 1.11.3 and the plugin tables of every release up to 1.11.3:
 *   migration/versions.go and migration/plugins.go of the library as vendored by
 *   kubernetes/kubernetes (vendor/github.com/coredns/corefile-migration, commit 9efa0b0228c0,
 *   newest release 1.11.3, plugins_1_11_0), the 1.7.x/1.8.x entries of versions.go at
 *   coredns/corefile-migration commit 3871d683a926 and the kubernetes plugin's "v7" removals in
 *   plugins.go at commit 015c235a058f. The only removals are options of the kubernetes plugin
 *   (below); no new default after 1.7.0.
 * - the release chain from 1.11.3 to 1.14.6: corefile-tool/cmd/validversions_test.go at
 *   coredns/corefile-migration commit 04f4560c4bd7 (the library's ValidVersions: …, 1.11.3,
 *   1.11.4, 1.12.0, …, 1.14.4, 1.14.6), the versions the library's nextVersion links walk.
 * - the plugin tables after 1.11.3: no version of migration/versions.go or plugins.go newer than
 *   1.11.3 is readable in the index, so tsadm does not know them. The library's own pull requests
 *   say "No migrations needed" for 1.12.2 (PR #91) and 1.12.3 (PR #92); every other release after
 *   1.11.3 is unread. A walk through an unread release cannot be checked: the Corefile is
 *   retained with the not-migrated warning saying so (kubeadm of 1.35–1.37 vendors a library that
 *   knows these releases and may migrate; tsadm does not claim to). This covers every upgrade
 *   from 1.33 on (CoreDNS v1.12.0 → v1.12.1 → v1.13.1 → v1.14.2 → v1.14.6).
 */

import { isDefaultCorefile } from '../addons/coredns-render.js';

/**
 * The library's release chain (versions.go nextVersion links), oldest first, from the CoreDNS of
 * kubeadm 1.20 (1.7.0) to that of kubeadm 1.37 (1.14.6).
 */
const RELEASES = [
  '1.7.0', '1.7.1', '1.8.0', '1.8.3', '1.8.4', '1.8.5', '1.8.6', '1.8.7', '1.9.0', '1.9.1', '1.9.2', '1.9.3', '1.9.4',
  '1.10.0', '1.10.1', '1.11.0', '1.11.1', '1.11.3',
  '1.11.4', '1.12.0', '1.12.1', '1.12.2', '1.12.3', '1.12.4', '1.13.0', '1.13.1', '1.13.2',
  '1.14.0', '1.14.1', '1.14.2', '1.14.3', '1.14.4', '1.14.6',
] as const;

/**
 * The releases after 1.11.3 whose migrations tsadm knows (the library's PRs: "No migrations
 * needed"). Every release up to 1.11.3 is known from versions.go itself.
 */
const KNOWN_AFTER_1_11_3: ReadonlySet<string> = new Set(['1.12.2', '1.12.3']);
const LAST_READ_TABLE = '1.11.3';

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
  const unknown = uncheckable(from, to);
  if (unknown !== undefined) return notMigrated(`tsadm cannot check a customised Corefile for the upgrade from CoreDNS ${from} to ${to} (${unknown})`);
  const removed = removedOptions(corefile, from, to) ?? [];
  if (removed.length === 0) return { action: 'retain' };
  return notMigrated(`CoreDNS ${to} no longer supports ${removed.map((r) => `option "${r.option}" of plugin "kubernetes" (removed in ${r.version})`).join(', ')}, `
    + 'and tsadm does not rewrite Corefiles; remove or replace them before the new CoreDNS starts');
}

/**
 * Why the library's decision for the walk from `from` to `to` cannot be reproduced: a version
 * outside the release chain (or a walk that does not go up), or a release on the way whose plugin
 * table tsadm has not read. Undefined when the check can be made.
 */
export function uncheckable(from: string, to: string): string | undefined {
  const chain = RELEASES as readonly string[];
  const start = chain.indexOf(from);
  const end = chain.indexOf(to);
  if (start < 0) return `CoreDNS ${from} is not in corefile-migration's release chain as tsadm knows it`;
  if (end < 0) return `CoreDNS ${to} is not in corefile-migration's release chain as tsadm knows it`;
  if (end <= start) return `CoreDNS ${to} is not newer than ${from}`;
  const lastRead = chain.indexOf(LAST_READ_TABLE);
  const unread = chain.slice(start + 1, end + 1).find((v, i) => start + 1 + i > lastRead && !KNOWN_AFTER_1_11_3.has(v));
  return unread === undefined ? undefined : `tsadm has not read corefile-migration's plugin table of CoreDNS ${unread}`;
}

/**
 * The removed kubernetes-plugin options the Corefile uses, release by release after `from` up to
 * `to` (the library's Deprecated walk); undefined when the walk cannot be checked (uncheckable).
 */
export function removedOptions(corefile: string, from: string, to: string): { option: string; version: string }[] | undefined {
  if (uncheckable(from, to) !== undefined) return undefined;
  const start = (RELEASES as readonly string[]).indexOf(from);
  const end = (RELEASES as readonly string[]).indexOf(to);
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
