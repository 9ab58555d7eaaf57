/**
 * Which versions tsadm deploys (src/versions/release.ts), today and on the release day of the
 * preview minor. The release-day procedure of docs/architecture.md is "NEWEST_MINOR and
 * DEFAULT_PATCH change, nothing else": the promoted state below is today's table with exactly
 * those two edits, and must behave as a released 1.38 (kubeadm deploys v1.38.0 and takes
 * stable-1.38) with 1.39 the next unreleased minor.
 */
import { defaultVersion, isReleasedMinor, normalizeWith, previewMinor, previewWarning, refusal, type ReleaseState } from '../../../src/versions/release.js';
import { DEFAULT_PATCH, NEWEST_MINOR, NEXT_UNRELEASED_MINOR, SUPPORTED_MINORS } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { TsadmError } from '../../../src/errors.js';

const today: ReleaseState = { minors: SUPPORTED_MINORS, newestMinor: NEWEST_MINOR, defaultPatch: DEFAULT_PATCH };
/** Release day of 1.38: the two edits docs/architecture.md names, and nothing else. */
const promoted: ReleaseState = { minors: SUPPORTED_MINORS, newestMinor: '1.38', defaultPatch: { ...DEFAULT_PATCH, '1.38': 'v1.38.0' } };

function thrown(f: () => unknown): TsadmError {
  try {
    f();
  } catch (err) {
    return err as TsadmError;
  }
  throw new Error('expected an error');
}

describe('today: 1.37 released, 1.38 a preview row (v1.38.0-alpha.1 and -alpha.2 are the pre-releases CHANGELOG-1.38.md lists)', () => {
  test('the preview minor is 1.38, the one after the newest released; it is not released', () => {
    expect(NEWEST_MINOR).toBe('1.37');
    expect(NEXT_UNRELEASED_MINOR).toBe('1.38');
    expect(previewMinor(today)).toBe('1.38');
    expect(isReleasedMinor(today, '1.37')).toBe(true);
    expect(isReleasedMinor(today, '1.38')).toBe(false);
    expect(defaultVersion(today)).toMatch(/^v1\.37\.\d+$/);
  });

  test.each(['v1.38.0-alpha.1', 'v1.38.0-alpha.2', 'v1.38.0-beta.0', 'v1.38.0-rc.0', 'v1.38.0-rc.1'])('%s is deployed with a warning', (v) => {
    expect(refusal(today, v)).toBeUndefined();
    expect(previewWarning(today, v)).toContain(`Kubernetes ${v} is a pre-release of v1.38`);
  });

  test.each(['v1.38.0', 'v1.38.2'])('%s (a final 1.38 version) is refused until release day', (v) => {
    expect(refusal(today, v)?.message).toBe(`Kubernetes version "${v}" is not supported: v1.38 is not released yet (only pre-releases exist); the newest minor tsadm supports is v1.37`);
  });

  test('a 1.37 version, its pre-releases included, carries no warning; 1.39 is refused with the supported range', () => {
    expect(previewWarning(today, 'v1.37.0')).toBeUndefined();
    expect(previewWarning(today, 'v1.37.1-rc.0')).toBeUndefined();
    expect(refusal(today, 'v1.39.0-alpha.0')?.message).toContain('tsadm supports v1.20 to v1.37');
  });
});

describe('release day of 1.38: only NEWEST_MINOR and DEFAULT_PATCH change', () => {
  test('the default, stable, stable-1.38 and 1.38 become v1.38.0; v1.38.0 is deployed without a warning', () => {
    expect(defaultVersion(promoted)).toBe('v1.38.0');
    for (const input of ['stable', 'latest', 'stable-1', 'stable-1.38', '1.38', 'v1.38']) expect(normalizeWith(promoted, input)).toBe('v1.38.0');
    for (const v of ['v1.38.0', 'v1.38.0-rc.1', 'v1.38.3']) {
      expect(refusal(promoted, v)).toBeUndefined();
      expect(previewWarning(promoted, v)).toBeUndefined();
    }
  });

  test('1.37 stays a released minor; there is no preview row; 1.39 is the next unreleased minor', () => {
    expect(normalizeWith(promoted, 'stable-1.37')).toBe(DEFAULT_PATCH['1.37']);
    expect(refusal(promoted, 'v1.37.0')).toBeUndefined();
    expect(previewMinor(promoted)).toBeUndefined();
    const err = refusal(promoted, 'v1.39.0-alpha.1');
    expect(err?.message).toBe('Kubernetes version "v1.39.0-alpha.1" is not supported: v1.39 is not released yet (only pre-releases exist); the newest minor tsadm supports is v1.38');
    // No 1.39 row, so no pre-release of it is offered in the hint.
    expect(err?.hint).toBe('use v1.38.0 or another v1.38 patch release');
    expect(thrown(() => normalizeWith(promoted, 'stable-1.39')).message).toContain('v1.39 is not released yet');
  });

  test('the 1.38 row itself needs no edit: it is complete (every fact 1.37 has) and names no release state', () => {
    const row = VERSION_TABLE['1.38'];
    expect(row.minor).toBe('1.38');
    expect(Object.keys(row).sort()).toEqual(Object.keys(VERSION_TABLE['1.37']).sort());
    for (const key of Object.keys(row) as Array<keyof typeof row>) {
      const value = row[key];
      if (typeof value === 'object' && value !== null) {
        expect(Object.keys(value).sort()).toEqual(Object.keys(VERSION_TABLE['1.37'][key] as object).sort());
      }
    }
  });
});

describe('before a next row exists (1.37 newest, no 1.38 row): a 1.38 pre-release is refused', () => {
  const noPreview: ReleaseState = { ...today, minors: SUPPORTED_MINORS.filter((m) => m !== '1.38') };
  test('v1.38.0-rc.0 is refused and the hint does not offer a pre-release', () => {
    const err = refusal(noPreview, 'v1.38.0-rc.0');
    expect(err?.message).toContain('v1.38 is not released yet (only pre-releases exist)');
    expect(err?.hint).toBe(`use ${DEFAULT_PATCH['1.37']} or another v1.37 patch release`);
  });
});
