/** Name validation as k8s.io/apimachinery/pkg/util/validation (what kubeadm accepts in SANs). */

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN = new RegExp(`^${LABEL}(\\.${LABEL})*$`);
const WILDCARD = new RegExp(`^\\*\\.${LABEL}(\\.${LABEL})*$`);
const MAX_SUBDOMAIN = 253;

/** IsDNS1123Subdomain: lowercase RFC 1123 labels joined by dots, at most 253 characters. */
export function isDNS1123Subdomain(s: string): boolean {
  return s.length <= MAX_SUBDOMAIN && SUBDOMAIN.test(s);
}

/** IsWildcardDNS1123Subdomain: "*." followed by a DNS-1123 subdomain. */
export function isWildcardDNS1123Subdomain(s: string): boolean {
  return s.length <= MAX_SUBDOMAIN && WILDCARD.test(s);
}
