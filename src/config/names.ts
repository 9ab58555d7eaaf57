/**
 * Name checks with the messages of k8s.io/apimachinery/pkg/util/validation (used by kubeadm for
 * node names, DNS domains and certificate SANs) and a container image repository check
 * (github.com/distribution/reference grammar, what kubeadm's ValidateImageRepository uses).
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const WILDCARD_RE = new RegExp(`^\\*\\.${DNS1123_SUBDOMAIN}$`);
const MAX_SUBDOMAIN = 253;

/** validation.IsDNS1123Subdomain: the list of problems (empty when valid). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > MAX_SUBDOMAIN) errs.push(`must be no more than ${MAX_SUBDOMAIN} characters`);
  if (!SUBDOMAIN_RE.test(value)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`,
    );
  }
  return errs;
}

/** validation.IsWildcardDNS1123Subdomain. */
export function wildcardSubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > MAX_SUBDOMAIN) errs.push(`must be no more than ${MAX_SUBDOMAIN} characters`);
  if (!WILDCARD_RE.test(value)) {
    errs.push(
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character " +
        `(e.g. '*.example.com', regex used for validation is '\\*\\.${DNS1123_SUBDOMAIN}')`,
    );
  }
  return errs;
}

// distribution/reference: domain[:port]/path-component/..., lower-case path components.
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const NAME_RE = new RegExp(`^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);

/** Whether "<repository>/name:tag" would be a valid image reference. */
export function isValidImageRepository(repository: string): boolean {
  const name = `${repository}/name`;
  return NAME_RE.test(name) && name.length <= 255;
}
