/**
 * Which Kubernetes versions tsadm deploys, decided from three facts of src/versions/table.ts: the
 * minors that have a row (SUPPORTED_MINORS), NEWEST_MINOR (the newest released one, whose
 * DEFAULT_PATCH is the default version) and DEFAULT_PATCH. A row after NEWEST_MINOR is a
 * *preview*: that minor exists only as pre-releases, and its row is built from their release
 * notes. kubeadm deploys a pre-release when it is named (`--kubernetes-version v1.38.0-rc.0`), so
 * tsadm does too, with a warning; a plain v1.38.0, `1.38` or `stable-1.38` is refused until
 * release day, when NEWEST_MINOR and DEFAULT_PATCH move and nothing else (docs/architecture.md,
 * "Release day"). Pure and parameterised by the state, so that release day can be tested.
 */
import semver from 'semver';
import { TsadmError } from '../errors.js';
import { minorAfter } from './minors.js';

export interface ReleaseState {
  /** Every minor with a row, oldest first. */
  readonly minors: readonly string[];
  /** The newest released minor. */
  readonly newestMinor: string;
  /** The default patch of each released minor (a preview minor's entry is never a default). */
  readonly defaultPatch: Readonly<Record<string, string>>;
}

/** The minor with a row that is not released yet (the one after NEWEST_MINOR), if any. */
export function previewMinor(s: ReleaseState): string | undefined {
  const next = minorAfter(s.newestMinor);
  return s.minors.includes(next) ? next : undefined;
}

/** A minor tsadm has a row for and that is released. */
export function isReleasedMinor(s: ReleaseState, minor: string): boolean {
  const i = s.minors.indexOf(minor);
  return i >= 0 && i <= s.minors.indexOf(s.newestMinor);
}

export function defaultVersion(s: ReleaseState): string {
  return s.defaultPatch[s.newestMinor] ?? `v${s.newestMinor}.0`;
}

/**
 * Normalises a user-supplied Kubernetes version ("1.20.2", "v1.20.2", "stable-1.20", "1.20")
 * into "vX.Y.Z". Labels that need the network to resolve ("stable", "latest") map to the
 * newest version tsadm knows, as kubeadm does when offline. A label or bare minor of the preview
 * minor is refused: it would have to pick a pre-release the user did not name.
 */
export function normalizeWith(s: ReleaseState, input: string): string {
  const raw = input.trim();
  const label = /^(stable|latest)(?:-(\d+)(?:\.(\d+))?)?$/.exec(raw);
  if (label) {
    const minor = label[3] !== undefined ? `${label[2]}.${label[3]}` : label[2] === undefined ? s.newestMinor : undefined;
    if (minor && isReleasedMinor(s, minor)) return defaultPatchOf(s, minor);
    if (label[2] !== undefined && label[3] === undefined) return defaultVersion(s);
    throw minor ? unsupported(s, input, minor) : badVersion(input);
  }
  const minorOnly = /^v?(\d+)\.(\d+)$/.exec(raw);
  if (minorOnly) {
    const minor = `${minorOnly[1]}.${minorOnly[2]}`;
    if (isReleasedMinor(s, minor)) return defaultPatchOf(s, minor);
    throw unsupported(s, input, minor);
  }
  const parsed = semver.parse(raw.startsWith('v') ? raw.slice(1) : raw);
  if (!parsed) throw badVersion(input);
  return `v${parsed.version}`;
}

/**
 * Why a normalised version cannot be deployed, or undefined when it can: a released minor's
 * version, or a pre-release (alpha, beta, rc) of the preview minor.
 */
export function refusal(s: ReleaseState, version: string): TsadmError | undefined {
  const parsed = semver.parse(version.replace(/^v/, ''));
  if (!parsed) return badVersion(version);
  const minor = `${parsed.major}.${parsed.minor}`;
  if (isReleasedMinor(s, minor)) return undefined;
  if (minor === previewMinor(s) && parsed.prerelease.length > 0) return undefined;
  return unsupported(s, version, minor);
}

/** The warning a version of the preview minor carries: its facts come from pre-release notes. */
export function previewWarning(s: ReleaseState, version: string): string | undefined {
  const parsed = semver.parse(version.replace(/^v/, ''));
  const preview = previewMinor(s);
  if (!parsed || preview === undefined || `${parsed.major}.${parsed.minor}` !== preview) return undefined;
  return `Kubernetes ${version} is a pre-release of v${preview}, which is not released yet: tsadm's facts of v${preview} `
    + `(images, flags, objects) come from its pre-release notes and may still change before v${preview}.0`;
}

function defaultPatchOf(s: ReleaseState, minor: string): string {
  return s.defaultPatch[minor] ?? `v${minor}.0`;
}

function badVersion(input: string): TsadmError {
  return new TsadmError('E_CONFIG_INVALID', `invalid Kubernetes version "${input}"`, {
    hint: 'use a semantic version such as v1.20.2',
  });
}

function unsupported(s: ReleaseState, input: string, minor: string): TsadmError {
  const newest = defaultVersion(s);
  if (minor === minorAfter(s.newestMinor)) {
    // kubeadm of the next minor exists only as pre-releases: a final version of it does not exist
    // yet, and a label or bare minor would have to guess which pre-release was meant.
    const preview = previewMinor(s) === minor;
    return new TsadmError(
      'E_CONFIG_INVALID',
      `Kubernetes version "${input}" is not supported: v${minor} is not released yet (only pre-releases exist); the newest minor tsadm supports is v${s.newestMinor}`,
      { hint: `use ${newest} or another v${s.newestMinor} patch release${preview ? `, or name a v${minor} pre-release (such as v${minor}.0-rc.0) for tsadm's preview of v${minor}` : ''}` },
    );
  }
  return new TsadmError(
    'E_CONFIG_INVALID',
    `Kubernetes version "${input}" is not supported: tsadm supports v${s.minors[0]} to v${s.newestMinor}`,
    { hint: `pick a version between v${s.minors[0]}.0 and ${newest}` },
  );
}
