// What a build stamps into tsadm (`tsadm version`), the way Kubernetes' hack/lib/version.sh stamps
// kubeadm: gitVersion from `git describe` of the checkout, the full commit, whether the tree had
// uncommitted changes, and the build time in UTC. Used by scripts/build.mjs, scripts/build-sea.mjs
// and scripts/package-deb.mjs so all three carry the same values.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitVersionOf } from './version-scheme.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function git(args, cwd = REPO) {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * gitVersion of the checkout at `dir` from `git describe --tags` as Kubernetes writes it: "v0.2.0" on a
 * tag, "v0.2.0-4+<14 hex>" four commits after it, "-dirty" appended for uncommitted changes; before
 * the first tag "v0.0.0-<commits>+<14 hex>" (scripts/lib/version-scheme.mjs). Undefined outside a
 * checkout (a source tarball has no state to report).
 */
export function gitVersionIn(dir) {
  const commit = git(['rev-parse', 'HEAD'], dir) ?? '';
  if (commit === '') return undefined;
  const dirty = git(['status', '--porcelain'], dir) !== '';
  const describe = git(['describe', '--tags', '--match', 'v[0-9]*', '--abbrev=14', 'HEAD'], dir);
  const count = describe === undefined ? Number(git(['rev-list', '--count', 'HEAD'], dir) ?? 0) : 0;
  return { gitVersion: gitVersionOf({ describe, count, commit, dirty }), commit, dirty };
}

/** The stamp: the checkout's gitVersion, or package.json's version outside a checkout. */
function buildInfo() {
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const checkout = gitVersionIn(REPO);
  const gitVersion = checkout?.gitVersion ?? `v${pkg.version}`;
  const commit = checkout?.commit ?? '';
  const dirty = checkout?.dirty;
  // SOURCE_DATE_EPOCH (reproducible builds) wins over the clock.
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  return {
    // Major and minor follow the gitVersion in a checkout, as Kubernetes' version.sh derives them.
    version: /^v(\d+\.\d+\.\d+)/.exec(gitVersion)?.[1] ?? pkg.version,
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
