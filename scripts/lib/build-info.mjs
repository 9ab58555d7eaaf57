// What a build stamps into tsadm (`tsadm version`), the way Kubernetes' hack/lib/version.sh stamps
// kubeadm: gitVersion from `git describe` of the checkout, the full commit, whether the tree had
// uncommitted changes, and the build time in UTC. Used by scripts/build.mjs, scripts/build-sea.mjs
// and scripts/package-deb.mjs so all three carry the same values.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function git(args) {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * gitVersion from `git describe --tags` as Kubernetes writes it: "v1.2.3" on a tag, "v1.2.3-4+<14 hex>"
 * four commits after it, "-dirty" appended for uncommitted changes. Without a tag: package.json's
 * version, "+<14 hex>" of the commit. Outside a checkout: package.json's version alone.
 */
function buildInfo() {
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const commit = git(['rev-parse', 'HEAD']) ?? '';
  // A checkout without git metadata (a source tarball) has no state to report.
  const dirty = commit === '' ? undefined : git(['status', '--porcelain']) !== '';
  let gitVersion = `v${pkg.version}`;
  if (commit !== '') {
    const described = git(['describe', '--tags', '--match', 'v[0-9]*', '--abbrev=14', 'HEAD']);
    const m = described === undefined ? null : /^(v.+?)-(\d+)-g([0-9a-f]+)$/.exec(described);
    if (m) gitVersion = `${m[1]}-${m[2]}+${m[3]}`;
    else if (described !== undefined) gitVersion = described;
    else gitVersion = `v${pkg.version}+${commit.slice(0, 14)}`;
    if (dirty) gitVersion += '-dirty';
  }
  // SOURCE_DATE_EPOCH (reproducible builds) wins over the clock.
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  return {
    version: pkg.version,
    gitVersion,
    gitCommit: commit,
    gitTreeState: commit === '' ? '' : dirty ? 'dirty' : 'clean',
    buildDate: date.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

/** esbuild `define`s for the values src/version.ts reads. */
export function buildDefines(info = buildInfo()) {
  return { __TSADM_VERSION__: JSON.stringify(info.version), __TSADM_BUILD__: JSON.stringify(info) };
}
