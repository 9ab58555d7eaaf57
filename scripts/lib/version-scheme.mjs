// tsadm's version scheme (docs/decisions.md, decision 77): releases are tags `v0.N.0`; a build
// between two tags is `v0.N.0-<commits since the tag>+<14 hex of the commit>` (git describe's
// `v0.N.0-<count>-g<sha>` in Kubernetes' spelling, as kubeadm's `version` prints it); a build before
// the first tag counts from the root as if tagged `v0.0.0`, so it sorts below the first release.
// The Debian version sorts the same way under `dpkg --compare-versions`:
//   v0.2.0                 → 0.2.0
//   v0.2.0-9+0123abcd…     → 0.2.0+9.g0123abcd…    (9 < 10: dpkg compares digit runs as numbers)
//   v0.2.0-10+4567ef01…    → 0.2.0+10.g4567ef01…   (and 0.2.0 < 0.2.0+… < 0.3.0)
//   …-dirty                → ….dirty, and 0.2.0+0.dirty on a tag (a changed tree sorts after its commit)
// Pure functions: scripts/lib/build-info.mjs feeds them git's answers, scripts/release.mjs and
// scripts/package-deb.mjs use the results.

/** A release tag: `v0.N.0` (and any vX.Y.Z, which `nextRelease` steps past). */
export const RELEASE_TAG = /^v(\d+)\.(\d+)\.(\d+)$/;

/**
 * gitVersion from git's answers: `describe` is `git describe --tags --match 'v[0-9]*' --abbrev=14`
 * (undefined without a tag), `count` the commits reachable from HEAD (`git rev-list --count HEAD`,
 * used only without a tag), `commit` the full hash.
 *
 * @param {{ describe?: string, count: number, commit: string, dirty: boolean }} git
 */
export function gitVersionOf({ describe, count, commit, dirty }) {
  let v;
  const m = describe === undefined ? null : /^(v.+?)-(\d+)-g([0-9a-f]+)$/.exec(describe);
  if (m) v = `${m[1]}-${m[2]}+${m[3]}`;
  else if (describe !== undefined) v = describe;
  else v = `v0.0.0-${count}+${commit.slice(0, 14)}`;
  return dirty ? `${v}-dirty` : v;
}

/**
 * The Debian version of a gitVersion (a native package: no Debian revision, so no "-"). A
 * pre-release tag's "-rc.1" becomes "~rc.1", which dpkg sorts before the release.
 */
export function debianVersion(gitVersion) {
  const dirty = gitVersion.endsWith('-dirty');
  const v = dirty ? gitVersion.slice(0, -'-dirty'.length) : gitVersion;
  const m = /^v?(\d+\.\d+\.\d+)(?:-([0-9A-Za-z.]+?))?(?:-(\d+)\+([0-9a-f]+))?$/.exec(v);
  if (!m) throw new Error(`gitVersion ${JSON.stringify(gitVersion)} is not vX.Y.Z[-pre][-<count>+<hex>][-dirty]`);
  const [, base, pre, count, hash] = m;
  let deb = pre ? `${base}~${pre}` : base;
  if (count !== undefined) deb += `+${count}.g${hash}`;
  if (dirty) deb += count === undefined ? '+0.dirty' : '.dirty';
  return deb;
}

/** The next release after the tags given (any order, other tags ignored): `v0.1.0` without one. */
export function nextRelease(tags) {
  let minor = 0;
  for (const t of tags) {
    const m = RELEASE_TAG.exec(t.trim());
    if (m && m[1] === '0') minor = Math.max(minor, Number(m[2]));
    else if (m) throw new Error(`tag ${t.trim()} is past 0.x: cut the next release by hand`);
  }
  return `0.${minor + 1}.0`;
}
