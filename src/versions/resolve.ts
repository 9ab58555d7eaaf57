import semver from 'semver';
import { TsadmError } from '../errors.js';
import { DEFAULT_PATCH, NEWEST_MINOR, SUPPORTED_MINORS, type SupportedMinor } from './minors.js';
import { PATCH_CHANGES, VERSION_TABLE, withPatchChanges } from './table.js';
import type { VersionProfile } from './table-types.js';
import { isReleasedMinor as releasedIn, normalizeWith, previewWarning, refusal, type ReleaseState } from './release.js';

/** Today's state of the table: which minors have a row, which is the newest released (src/versions/release.ts). */
const RELEASE_STATE: ReleaseState = { minors: SUPPORTED_MINORS, newestMinor: NEWEST_MINOR, defaultPatch: DEFAULT_PATCH };

/** The default --kubernetes-version: the newest patch of the newest minor tsadm knows. */
export const DEFAULT_KUBERNETES_VERSION = DEFAULT_PATCH[NEWEST_MINOR];

/**
 * Normalises a user-supplied Kubernetes version ("1.20.2", "v1.20.2", "stable-1.20", "1.20")
 * into "vX.Y.Z" (src/versions/release.ts normalizeWith: labels and bare minors of released minors
 * only).
 */
export function normalizeKubernetesVersion(input: string): string {
  return normalizeWith(RELEASE_STATE, input);
}

export function minorOf(version: string): string {
  const parsed = semver.parse(version.replace(/^v/, ''));
  if (!parsed) throw badVersion(version);
  return `${parsed.major}.${parsed.minor}`;
}

export function isSupportedMinor(minor: string): minor is SupportedMinor {
  return (SUPPORTED_MINORS as readonly string[]).includes(minor);
}

/** A minor tsadm has a row for and that is released (not the preview minor after NEWEST_MINOR). */
export function isReleasedMinor(minor: string): minor is SupportedMinor {
  return releasedIn(RELEASE_STATE, minor);
}

/**
 * The warning a version of the preview minor carries (its row comes from pre-release notes), or
 * undefined: the configuration loader reports it wherever a version is chosen.
 */
export function prereleaseWarning(version: string): string | undefined {
  return previewWarning(RELEASE_STATE, version);
}

/** The profile of a version tsadm deploys (src/versions/release.ts refusal); undefined for anything else (validation reports it). */
export function supportedProfile(version: string): VersionProfile | undefined {
  const parsed = semver.parse(version.replace(/^v/, ''));
  const minor = parsed ? `${parsed.major}.${parsed.minor}` : '';
  return isSupportedMinor(minor) && parsed && !refusal(RELEASE_STATE, version) ? atPatch(minor, parsed) : undefined;
}

/** The version profile for a normalised version; a version tsadm does not deploy is refused (src/versions/release.ts). */
export function profileFor(version: string): VersionProfile {
  const minor = minorOf(version);
  const refused = refusal(RELEASE_STATE, version);
  if (refused || !isSupportedMinor(minor)) throw refused ?? new TsadmError('E_INTERNAL', `no version row for ${version}`);
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
