/**
 * What happens to the cluster's Corefile when CoreDNS is upgraded (kubeadm's createCoreDNSAddon
 * with github.com/coredns/corefile-migration). Pure.
 *
 * kubeadm: an empty or default Corefile is replaced by the target's default; a customised one is
 * migrated when the migration library reports removed or newly defaulted plugins/options between
 * the installed and the target CoreDNS version, otherwise retained. When it cannot migrate it
 * retains the Corefile with the warning "the CoreDNS Configuration was not migrated: … The
 * existing CoreDNS Corefile configuration has been retained."
 *
 * tsadm does not carry the migration library's per-version plugin tables, so a customised
 * Corefile is retained in every case; across CoreDNS versions it says so with kubeadm's
 * not-migrated warning, and the user reviews it against the target's release notes.
 */
import { isDefaultCorefile } from '../addons/coredns-render.js';

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
  if (input.installedTag === undefined || coreDnsVersion(input.installedTag) === coreDnsVersion(input.targetTag)) return { action: 'retain' };
  return {
    action: 'retain',
    warning: `the CoreDNS Configuration was not migrated: tsadm does not migrate a customised Corefile from CoreDNS ${coreDnsVersion(input.installedTag)} `
      + `to ${coreDnsVersion(input.targetTag)}. The existing CoreDNS Corefile configuration has been retained.`,
  };
}

/** The tag of an image reference ("k8s.gcr.io/coredns:1.7.0" → "1.7.0"); undefined without one or with a digest only. */
export function imageTag(image: string): string | undefined {
  const name = image.split('@')[0] ?? '';
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  return colon > slash ? name.slice(colon + 1) : undefined;
}
