/**
 * The version policy of `tsadm upgrade plan|apply`: may the cluster go from its current version to
 * the target one? Pure: the caller reads the versions (the API server's gitVersion, each Node's
 * kubeletVersion) and passes them in; nothing here touches the host or the API.
 *
 * kubeadm's rules (cmd/kubeadm/app/phases/upgrade/policy.go, the same in v1.20 and later releases
 * except for the kubelet skew, which became 3 minors in v1.29), in two classes like kubeadm's:
 * mandatory violations stop the upgrade whatever the flags; skippable ones stop it unless
 * `--force` is given.
 *
 * Where tsadm differs, on purpose (docs/upgrade.md):
 * - kubeadm compares the target with its own version ("upgrade kubeadm first", "kubeadm vX.Y can
 *   only be used to upgrade to X.Y"). One tsadm build knows every minor from v1.20, so those rules
 *   become one: a target minor beyond the newest tsadm knows (or older than the oldest) is refused.
 *   A newer patch of a known minor needs nothing: patches do not change the facts in the table.
 * - kubeadm accepts a downgrade of up to one minor silently; tsadm asks for `--force`.
 * - A target equal to the cluster's version is reported as `change: 'none'` (nothing to upgrade;
 *   re-applying it must change nothing), which kubeadm does not distinguish.
 */
import semver from 'semver';
import { TsadmError } from '../errors.js';
import { supportedProfile } from '../versions/resolve.js';
import { NEWEST_MINOR, NEXT_UNRELEASED_MINOR, SUPPORTED_MINORS } from '../versions/minors.js';

/** kubeadm's MaximumAllowedMinorVersionUpgradeSkew: one minor per upgrade. */
const MAX_MINOR_UPGRADE_SKEW = 1;
/** kubeadm's MaximumAllowedMinorVersionDowngradeSkew: one minor per downgrade. */
const MAX_MINOR_DOWNGRADE_SKEW = 1;

/**
 * kubeadm's MaximumAllowedMinorVersionKubeletSkew of the release that performs the upgrade (here:
 * the target's minor, since tsadm acts as that minor's kubeadm): 1 up to v1.28, 3 from v1.29
 * (kubernetes/kubernetes PR 120825, after the kubelet n-3 skew of KEP-3935).
 */
export function kubeletSkewLimit(targetMinor: number): number {
  return targetMinor >= 29 ? 3 : 1;
}

export interface VersionPolicyInput {
  /** The control plane's version as the cluster reports it (kubeadm: the API server's gitVersion). */
  readonly clusterVersion: string;
  /**
   * Node.status.nodeInfo.kubeletVersion of every node; `undefined` when they could not be read
   * (kubeadm goes on and makes that a skippable violation).
   */
  readonly kubeletVersions: readonly string[] | undefined;
  /** The version asked for (normalised, e.g. "v1.21.0"). */
  readonly targetVersion: string;
  /** --allow-experimental-upgrades: any pre-release (alpha, beta, rc) is acceptable. */
  readonly allowExperimentalUpgrades?: boolean;
  /** --allow-release-candidate-upgrades: release candidates (pre-release "rc…") are acceptable. */
  readonly allowRCUpgrades?: boolean;
}

/** Which way the target lies from the cluster's version (build metadata is ignored). */
export type VersionChange = 'upgrade' | 'downgrade' | 'none';

export type PolicyViolationCode =
  | 'cluster-version-unreadable' // the cluster's version does not parse
  | 'target-version-invalid' // the target does not parse
  | 'below-oldest-known' // target minor older than the oldest tsadm knows
  | 'beyond-newest-known' // target minor newer than the newest tsadm knows
  | 'minor-skipped' // upgrade by more than one minor
  | 'downgrade-too-far' // downgrade by more than one minor
  | 'downgrade' // any downgrade (tsadm: only with --force)
  | 'unstable-not-allowed' // pre-release without the --allow-*-upgrades flag it needs
  | 'kubelet-versions-unreadable' // kubelet versions missing or unparseable
  | 'kubelets-too-old'; // kubelets would fall out of the supported skew

interface PolicyViolation {
  readonly code: PolicyViolationCode;
  /** One line, what is wrong (the fix is the caller's hint or the flag named in it). */
  readonly message: string;
}

export interface VersionPolicyVerdict {
  /** Undefined when a version does not parse (then `mandatory` says which). */
  readonly change: VersionChange | undefined;
  /** Violations no flag bypasses. */
  readonly mandatory: readonly PolicyViolation[];
  /** Violations `--force` bypasses (kubeadm's "skippable"). */
  readonly skippable: readonly PolicyViolation[];
}

const OLDEST_MINOR = SUPPORTED_MINORS[0];

/** Applies kubeadm's version-skew policy (with tsadm's differences above) to one upgrade. */
export function checkVersionPolicy(input: VersionPolicyInput): VersionPolicyVerdict {
  const mandatory: PolicyViolation[] = [];
  const skippable: PolicyViolation[] = [];

  const cluster = parseVersion(input.clusterVersion);
  if (!cluster) {
    // As kubeadm: without the cluster's version nothing else can be judged.
    mandatory.push({
      code: 'cluster-version-unreadable',
      message: `the cluster's version "${input.clusterVersion}" is not a semantic version`,
    });
    return { change: undefined, mandatory, skippable };
  }
  const target = parseVersion(input.targetVersion);
  if (!target) {
    mandatory.push({
      code: 'target-version-invalid',
      message: `the version to upgrade to "${input.targetVersion}" is not a semantic version`,
    });
    return { change: undefined, mandatory, skippable };
  }

  const kubelets = parseKubelets(input.kubeletVersions);
  if (kubelets.problem) skippable.push(kubelets.problem);

  const to = input.targetVersion;
  // kubeadm relaxes the minor-distance rules to skippable for pre-releases (CI and dev builds).
  const distanceRules = target.prerelease.length === 0 ? mandatory : skippable;

  if (compareMinor(target, OLDEST_MINOR) < 0) {
    mandatory.push({
      code: 'below-oldest-known',
      message: `the version to upgrade to ${to} is older than v${OLDEST_MINOR}, the oldest minor tsadm knows`,
    });
  }
  // A named pre-release of the preview minor (src/versions/release.ts) has a row: it is judged as
  // kubeadm judges any pre-release (the unstable-version rule below), not as an unknown minor.
  if (compareMinor(target, NEWEST_MINOR) > 0 && supportedProfile(to) === undefined) {
    // The next minor exists only as pre-releases: a final version of it does not exist yet
    // (src/versions/resolve.ts refuses to render it with the same words).
    const unreleased = compareMinor(target, NEXT_UNRELEASED_MINOR) === 0 ? `: v${NEXT_UNRELEASED_MINOR} is not released yet (only pre-releases exist)` : '';
    distanceRules.push({
      code: 'beyond-newest-known',
      message: `the version to upgrade to ${to} is newer than v${NEWEST_MINOR}, the newest minor tsadm knows${unreleased}`,
    });
  }

  const minorDistance = minorIndex(target) - minorIndex(cluster);
  if (minorDistance > MAX_MINOR_UPGRADE_SKEW) {
    distanceRules.push({
      code: 'minor-skipped',
      message: `the version to upgrade to ${to} skips a minor: the cluster is at ${input.clusterVersion} and can go up only ${MAX_MINOR_UPGRADE_SKEW} minor version at a time`,
    });
  }
  if (-minorDistance > MAX_MINOR_DOWNGRADE_SKEW) {
    distanceRules.push({
      code: 'downgrade-too-far',
      message: `the version to downgrade to ${to} is too low: the cluster is at ${input.clusterVersion} and can go down only ${MAX_MINOR_DOWNGRADE_SKEW} minor version at a time`,
    });
  }

  const order = semver.compare(target, cluster);
  const change: VersionChange = order > 0 ? 'upgrade' : order < 0 ? 'downgrade' : 'none';
  if (change === 'downgrade') {
    skippable.push({
      code: 'downgrade',
      message: `${to} is older than the cluster's ${input.clusterVersion}: a downgrade`,
    });
  }

  const unstable = unstableViolation(target, to, input);
  if (unstable) skippable.push(unstable);

  const limit = kubeletSkewLimit(target.minor);
  const tooOld = kubelets.versions.filter((k) => minorIndex(target) - minorIndex(k.parsed) > limit).map((k) => k.raw);
  if (tooOld.length > 0) {
    skippable.push({
      code: 'kubelets-too-old',
      message: `kubelets too old for ${to} (more than ${limit} minor${limit === 1 ? '' : 's'} behind it): ${[...new Set(tooOld)].sort().join(', ')}`,
    });
  }

  return { change, mandatory, skippable };
}

/**
 * The error that stops the upgrade, or undefined when it may go on: every mandatory violation
 * stops it; skippable ones stop it unless `force` (--force) is set. The caller prints the
 * skippable violations it let through.
 */
export function versionPolicyError(verdict: VersionPolicyVerdict, force: boolean): TsadmError | undefined {
  const blocking = force ? verdict.mandatory : [...verdict.mandatory, ...verdict.skippable];
  const first = blocking[0];
  if (!first) return undefined;
  const more = blocking.length > 1 ? ` (and ${blocking.length - 1} more)` : '';
  const onlySkippable = verdict.mandatory.length === 0;
  return new TsadmError('E_PRECONDITION', `version policy: ${first.message}${more}`, {
    hint: onlySkippable
      ? 'pass --force to upgrade anyway (not recommended), or pick another version'
      : `pick a version the policy allows: one minor at a time, between v${OLDEST_MINOR}.0 and the newest v${NEWEST_MINOR} patch`,
    details: blocking.map((v) => `${verdictClass(verdict, v)}: ${v.message}`),
  });
}

function verdictClass(verdict: VersionPolicyVerdict, violation: PolicyViolation): string {
  return verdict.mandatory.includes(violation) ? 'fatal' : 'needs --force';
}

/** kubeadm's detectUnstableVersionError: experimental allows any pre-release, rc allows "rc…". */
function unstableViolation(target: semver.SemVer, to: string, input: VersionPolicyInput): PolicyViolation | undefined {
  if (target.prerelease.length === 0 || input.allowExperimentalUpgrades === true) return undefined;
  const isRC = target.prerelease.join('.').startsWith('rc');
  if (isRC && input.allowRCUpgrades === true) return undefined;
  return {
    code: 'unstable-not-allowed',
    message: `${to} is a pre-release: allow it with ${isRC ? '--allow-release-candidate-upgrades or ' : ''}--allow-experimental-upgrades`,
  };
}

interface ParsedKubelet {
  readonly raw: string;
  readonly parsed: semver.SemVer;
}

function parseKubelets(versions: readonly string[] | undefined): {
  versions: readonly ParsedKubelet[];
  problem?: PolicyViolation;
} {
  if (versions === undefined) {
    return {
      versions: [],
      problem: { code: 'kubelet-versions-unreadable', message: "the nodes' kubelet versions could not be read" },
    };
  }
  const parsed: ParsedKubelet[] = [];
  for (const raw of versions) {
    const v = parseVersion(raw);
    // As kubeadm: one unparseable kubelet version makes the whole skew check a skippable error.
    if (!v) {
      return {
        versions: [],
        problem: { code: 'kubelet-versions-unreadable', message: `a node's kubelet version "${raw}" is not a semantic version` },
      };
    }
    parsed.push({ raw, parsed: v });
  }
  return { versions: parsed };
}

/** "v1.20.3", "1.20.3", "v1.21.0-rc.1", "v1.20.0+build" → SemVer; anything else → undefined. */
function parseVersion(version: string): semver.SemVer | undefined {
  return semver.parse(version.trim().replace(/^v/, '')) ?? undefined;
}

/** Major and minor as one number, so distances across a major boundary stay ordered. */
function minorIndex(v: { major: number; minor: number }): number {
  return v.major * 1000 + v.minor;
}

/** Compares v's minor with a "1.20"-style minor of the table. */
function compareMinor(v: semver.SemVer, minor: string): number {
  return semver.compare(`${v.major}.${v.minor}.0`, `${minor}.0`);
}
