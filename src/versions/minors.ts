/**
 * Which Kubernetes minors tsadm knows, which of them is the newest released one, and the patch
 * each minor defaults to. The facts of each minor are its row in src/versions/table.ts (the row's
 * shape: src/versions/table-types.ts); which versions tsadm deploys is derived from these in
 * src/versions/release.ts. A new minor starts here (docs/architecture.md, "How to add a
 * Kubernetes minor").
 */

export const SUPPORTED_MINORS = [
  '1.20', '1.21', '1.22', '1.23', '1.24', '1.25', '1.26', '1.27',
  '1.28', '1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35', '1.36', '1.37',
  // The preview minor (after NEWEST_MINOR): deployed only when one of its pre-releases is named
  // (src/versions/release.ts).
  '1.38',
] as const;
export type SupportedMinor = (typeof SUPPORTED_MINORS)[number];

/**
 * The newest *released* minor tsadm knows: its DEFAULT_PATCH is the default --kubernetes-version.
 * A row after it (the last of SUPPORTED_MINORS) is a preview built from pre-release notes; on
 * release day this constant and DEFAULT_PATCH change and nothing else (docs/architecture.md,
 * "Release day"; test/unit/versions/release.test.ts).
 */
export const NEWEST_MINOR: SupportedMinor = '1.37';
/** The minor after `minor` ("1.37" → "1.38"). */
export function minorAfter(minor: string): string {
  const [major, min] = minor.split('.').map(Number);
  return `${major}.${(min ?? 0) + 1}`;
}
/** The minor after NEWEST_MINOR: exists only as pre-releases (a final version of it is refused). */
export const NEXT_UNRELEASED_MINOR = minorAfter(NEWEST_MINOR);
/** Default patch version per minor for `--kubernetes-version` when only the minor is implied. */
export const DEFAULT_PATCH: Readonly<Record<SupportedMinor, string>> = {
  '1.20': 'v1.20.2', '1.21': 'v1.21.14', '1.22': 'v1.22.17', '1.23': 'v1.23.17',
  '1.24': 'v1.24.17', '1.25': 'v1.25.16', '1.26': 'v1.26.15', '1.27': 'v1.27.16',
  '1.28': 'v1.28.15', '1.29': 'v1.29.15', '1.30': 'v1.30.14', '1.31': 'v1.31.13',
  '1.32': 'v1.32.9', '1.33': 'v1.33.5', '1.34': 'v1.34.1',
  // The newest patch of each current minor confirmed from kubernetes/kubernetes CHANGELOG-1.3x.md
  // (docs/kubernetes-1.35-1.38.md names the source).
  // v1.35.4 and v1.36.0 are the newest in the stored changelogs (CHANGELOG-1.35.md at 008b3652,
  // CHANGELOG-1.36.md up to v1.36.0; re-read 2026-11-29); CHANGELOG-1.37.md lists only
  // v1.37.0-alpha.1, so v1.37.0 is attested only by third-party reports of kubeadm v1.37.0 runs.
  // Changes of later patches (PR #138957 from v1.35.5 and v1.36.1) are PATCH_CHANGES below;
  // how to bump an entry: docs/architecture.md, "Bumping a minor's default patch".
  '1.35': 'v1.35.4', '1.36': 'v1.36.0', '1.37': 'v1.37.0',
  // Preview minor: never a default while NEWEST_MINOR is older (src/versions/release.ts refuses
  // `1.38` and `stable-1.38`); the newest pre-release CHANGELOG-1.38.md lists. v1.38.0 on release day.
  '1.38': 'v1.38.0-alpha.2',
};
