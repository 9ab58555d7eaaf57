import semver from 'semver';
import { TsadmError } from '../errors.js';
import { DEFAULT_PATCH, NEWEST_MINOR, NEXT_UNRELEASED_MINOR, PATCH_CHANGES, SUPPORTED_MINORS, VERSION_TABLE, withPatchChanges, type SupportedMinor, type VersionProfile } from './table.js';

/** The default --kubernetes-version: the newest patch of the newest minor tsadm knows. */
export const DEFAULT_KUBERNETES_VERSION = DEFAULT_PATCH[NEWEST_MINOR];

/**
 * Normalises a user-supplied Kubernetes version ("1.20.2", "v1.20.2", "stable-1.20", "1.20")
 * into "vX.Y.Z". Labels that need the network to resolve ("stable", "latest") map to the
 * newest version tsadm knows, as kubeadm does when offline.
 */
export function normalizeKubernetesVersion(input: string): string {
  const raw = input.trim();
  const label = /^(stable|latest)(?:-(\d+)(?:\.(\d+))?)?$/.exec(raw);
  if (label) {
    const minor = label[3] !== undefined ? `${label[2]}.${label[3]}` : label[2] === undefined ? NEWEST_MINOR : undefined;
    if (minor && isSupportedMinor(minor)) return DEFAULT_PATCH[minor];
    if (label[2] !== undefined && label[3] === undefined) return DEFAULT_PATCH[NEWEST_MINOR];
    throw badVersion(input);
  }
  const minorOnly = /^v?(\d+)\.(\d+)$/.exec(raw);
  if (minorOnly) {
    const minor = `${minorOnly[1]}.${minorOnly[2]}`;
    if (isSupportedMinor(minor)) return DEFAULT_PATCH[minor];
    throw unsupported(input);
  }
  const parsed = semver.parse(raw.startsWith('v') ? raw.slice(1) : raw);
  if (!parsed) throw badVersion(input);
  return `v${parsed.version}`;
}

export function minorOf(version: string): string {
  const parsed = semver.parse(version.replace(/^v/, ''));
  if (!parsed) throw badVersion(version);
  return `${parsed.major}.${parsed.minor}`;
}

export function isSupportedMinor(minor: string): minor is SupportedMinor {
  return (SUPPORTED_MINORS as readonly string[]).includes(minor);
}

/** The profile of a version whose minor tsadm supports; undefined for anything else (validation reports it). */
export function supportedProfile(version: string): VersionProfile | undefined {
  const parsed = semver.parse(version.replace(/^v/, ''));
  const minor = parsed ? `${parsed.major}.${parsed.minor}` : '';
  return isSupportedMinor(minor) && parsed ? atPatch(minor, parsed) : undefined;
}

/** The version profile for a normalised version; unsupported minors are refused. */
export function profileFor(version: string): VersionProfile {
  const minor = minorOf(version);
  if (!isSupportedMinor(minor)) throw unsupported(version);
  return atPatch(minor, semver.parse(version.replace(/^v/, '')) as semver.SemVer);
}

/**
 * The profile of one version: its minor's row plus the patch changes (src/versions/table.ts
 * PATCH_CHANGES) whose first patch of that minor is this version or older. A pre-release of that
 * patch (v1.35.5-rc.0) is older than it, as semver orders them. One frozen object per version.
 */
const byVersion = new Map<string, VersionProfile>();
function atPatch(minor: SupportedMinor, version: semver.SemVer): VersionProfile {
  const known = byVersion.get(version.version);
  if (known) return known;
  const applying = PATCH_CHANGES.filter((c) => {
    const since = c.since[minor];
    return since !== undefined && semver.gte(version, since.replace(/^v/, ''));
  });
  const profile = withPatchChanges(VERSION_TABLE[minor], applying);
  byVersion.set(version.version, profile);
  return profile;
}

function badVersion(input: string): TsadmError {
  return new TsadmError('E_CONFIG_INVALID', `invalid Kubernetes version "${input}"`, {
    hint: 'use a semantic version such as v1.20.2',
  });
}

function unsupported(input: string): TsadmError {
  const parsed = semver.coerce(input, { includePrerelease: false });
  const minor = parsed ? `${parsed.major}.${parsed.minor}` : '';
  if (minor === NEXT_UNRELEASED_MINOR) {
    // kubeadm of the next minor exists only as pre-releases: its facts are not settled, so tsadm
    // does not guess them (adding the minor once released is one row in src/versions/table.ts).
    return new TsadmError(
      'E_CONFIG_INVALID',
      `Kubernetes version "${input}" is not supported: v${NEXT_UNRELEASED_MINOR} is not released yet (only pre-releases exist); the newest minor tsadm supports is v${NEWEST_MINOR}`,
      { hint: `use ${DEFAULT_PATCH[NEWEST_MINOR]} or another v${NEWEST_MINOR} patch release` },
    );
  }
  return new TsadmError(
    'E_CONFIG_INVALID',
    `Kubernetes version "${input}" is not supported: tsadm supports v${SUPPORTED_MINORS[0]} to v${NEWEST_MINOR}`,
    { hint: `pick a version between v${SUPPORTED_MINORS[0]}.0 and ${DEFAULT_PATCH[NEWEST_MINOR]}` },
  );
}
