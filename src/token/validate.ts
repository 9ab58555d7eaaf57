import { TsadmError } from '../errors.js';

/** Usages the API server and the bootstrapsigner understand (bootstrapapi.KnownTokenUsages). */
const KNOWN_USAGES = ['signing', 'authentication'] as const;

const BOOTSTRAP_GROUP_PATTERN = '\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z';
const BOOTSTRAP_GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** Every unknown usage is named at once, sorted, as kubeadm does. */
export function validateUsages(usages: readonly string[]): void {
  const known = new Set<string>(KNOWN_USAGES);
  const invalid = [...new Set(usages.filter((u) => !known.has(u)))].sort();
  if (invalid.length > 0) {
    throw new TsadmError(
      'E_CONFIG_INVALID',
      `invalid bootstrap token usage string: ${invalid.join(',')}, valid usage options: ${KNOWN_USAGES.join(',')}`,
      { hint: 'pass --usages signing,authentication (or a subset)' },
    );
  }
}

export function validateGroups(groups: readonly string[]): void {
  for (const g of groups) {
    if (!BOOTSTRAP_GROUP_RE.test(g)) {
      throw new TsadmError('E_CONFIG_INVALID', `bootstrap group "${g}" is invalid (must match ${BOOTSTRAP_GROUP_PATTERN})`, {
        hint: 'extra groups must start with "system:bootstrappers:", e.g. system:bootstrappers:kubeadm:default-node-token',
      });
    }
  }
}

/** kubeadm refuses extra groups on a token that cannot authenticate. */
export function validateGroupsNeedAuthentication(usages: readonly string[], groups: readonly string[]): void {
  if (groups.length > 0 && !usages.includes('authentication')) {
    throw new TsadmError('E_CONFIG_INVALID', 'token groups cannot be specified unless --usages includes "authentication"', {
      hint: 'add authentication to --usages or drop --groups',
    });
  }
}
