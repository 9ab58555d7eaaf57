/**
 * Which kubeadm.k8s.io API versions kubeadm of the target minor reads from a config file
 * (kubeadm's util/config validateSupportedVersion): a version the minor no longer reads is
 * refused with one line naming `tsadm config migrate`; a deprecated one warns as kubeadm does
 * ("your configuration file uses a deprecated API spec …"), unless the caller allows deprecated
 * versions (`config validate --allow-deprecated-api`, kubeadm 1.36 PR #135148). The lists are the
 * version table's (`configApiVersionsRead`, `configApiVersionsDeprecated` in
 * src/versions/table.ts). Pure.
 */
import type { VersionProfile } from '../versions/table-types.js';
import { KUBEADM_GROUP, type ApiVersionUse } from './schema-kubeadm.js';
import { configInvalid } from './validate.js';

export type { ApiVersionUse } from './schema-kubeadm.js';

export interface ApiVersionTarget {
  /** The target Kubernetes version ("v1.37.0"), for messages. */
  readonly kubernetesVersion: string;
  readonly profile: VersionProfile;
  /** The config file's path, named in the migrate hint (FILE when unknown). */
  readonly source?: string;
}

export interface ApiVersionFindings {
  readonly errors: string[];
  readonly warnings: string[];
}

/** The documents a file uses, checked against what kubeadm of the target minor reads. */
export function apiVersionFindings(uses: readonly ApiVersionUse[], target: ApiVersionTarget, allowDeprecated = false): ApiVersionFindings {
  const { profile } = target;
  const errors: string[] = [];
  const warnings: string[] = [];
  const refused = [...new Set(uses.map((u) => u.version).filter((v) => !profile.configApiVersionsRead.includes(v)))];
  for (const version of refused) {
    const kinds = [...new Set(uses.filter((u) => u.version === version).map((u) => u.kind))].join(', ');
    const reads = profile.configApiVersionsRead.map((v) => `${KUBEADM_GROUP}/${v}`).join(' and ');
    const only = profile.configApiVersionsRead.length === 1 ? 'only ' : '';
    errors.push(
      `${KUBEADM_GROUP}/${version} is not supported for Kubernetes ${target.kubernetesVersion} (${kinds}): kubeadm ${profile.minor} reads ${only}${reads}; ` +
        `convert the file with 'tsadm config migrate --old-config ${target.source ?? 'FILE'} --new-config NEW'`,
    );
  }
  if (!allowDeprecated) {
    for (const u of uses) {
      if (!profile.configApiVersionsDeprecated.includes(u.version) || !profile.configApiVersionsRead.includes(u.version)) continue;
      warnings.push(
        `your configuration file uses a deprecated API spec: "${KUBEADM_GROUP}/${u.version}" (kind: "${u.kind}"). ` +
          `Please use 'tsadm config migrate --old-config old-config-file --new-config new-config-file', which will write the new, similar spec using a newer API version.`,
      );
    }
  }
  return { errors, warnings: [...new Set(warnings)] };
}

/**
 * For a check made after loading (join, once discovery has found the cluster's version): throws
 * E_CONFIG_INVALID when the target minor no longer reads a version; returns the warnings.
 */
export function refuseUnreadApiVersions(uses: readonly ApiVersionUse[], target: ApiVersionTarget): readonly string[] {
  const found = apiVersionFindings(uses, target);
  if (found.errors.length > 0) throw configInvalid(found.errors, target.source);
  return found.warnings;
}
