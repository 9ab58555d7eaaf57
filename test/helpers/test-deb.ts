/**
 * The tsadm Debian package the tests install (test/integration/apt-repo.test.ts,
 * test/e2e/host.e2e.test.ts): $TSADM_TEST_DEB, else `npm run package` once per commit.
 *
 * The unit and e2e projects run at the same time (scripts/test-suites.sh) and scripts/package-deb.mjs
 * builds in fixed places under dist/ (and deletes older packages there), so two builds must never
 * overlap: each runs under one flock(1), and the package is copied into the provisioning cache
 * ($TSADM_CACHE_DIR/deb/<commit>/) before the lock is released. A clean checkout's package is
 * reused from there by every later caller; a tree with uncommitted changes is built again each time
 * (its package goes to …/deb/dirty/, replaced by the next such build).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileOracle, oracles, type Oracle } from './oracle.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MIN = 60_000;

function debCacheDir(): string {
  return path.join(process.env.TSADM_CACHE_DIR || '/var/cache/tsadm', 'deb');
}

/** What building the package needs (as for test/integration/sea.test.ts); nothing when $TSADM_TEST_DEB names one. */
export function testDebOracles(): Oracle[] {
  if (process.env.TSADM_TEST_DEB) return [fileOracle('$TSADM_TEST_DEB', () => process.env.TSADM_TEST_DEB as string, 'npm run package', { program: false })];
  const pinned = `node-${process.platform}-${process.arch}`;
  return [
    oracles.postject,
    fileOracle(`npm's ${pinned}`, () => path.join(REPO, 'node_modules', pinned, 'bin', 'node'), 'npm ci'),
  ];
}

const git = (args: string[]): string => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();

/** The commit and tree state dist/tsadm was built from, if it exists. */
function seaBuild(): { gitCommit?: string; gitTreeState?: string } {
  try {
    return (JSON.parse(execFileSync(path.join(REPO, 'dist', 'tsadm'), ['version', '-o', 'json'], { encoding: 'utf8' })) as { clientVersion: { gitCommit?: string; gitTreeState?: string } }).clientVersion;
  } catch {
    return {}; // no executable yet: package-deb.mjs builds it
  }
}

/** The amd64 package of this checkout (see the file's comment); builds it when needed (minutes). */
export function testDeb(): string {
  if (process.env.TSADM_TEST_DEB) return process.env.TSADM_TEST_DEB;
  const head = git(['rev-parse', 'HEAD']);
  const clean = git(['status', '--porcelain']) === '';
  const dir = path.join(debCacheDir(), clean ? head : 'dirty');
  const found = (): string | undefined => {
    const name = existsSync(dir) ? readdirSync(dir).find((f) => /^tsadm_.+_amd64\.deb$/.test(f)) : undefined;
    return name === undefined ? undefined : path.join(dir, name);
  };
  if (clean && found()) return found() as string;
  mkdirSync(debCacheDir(), { recursive: true });
  // The single executable test/integration/sea.test.ts built from this clean commit serves (saves its build).
  const sea = seaBuild();
  const reuse = clean && sea.gitCommit === head && sea.gitTreeState === 'clean' ? ['--reuse-sea'] : [];
  // Inside the lock: a clean commit's package may have been cached meanwhile; else build, and copy
  // the newest dist/tsadm_*_amd64.deb into DIR (through a temporary name, so a reader never sees half).
  const script = [
    'set -e',
    'dir=$1; shift',
    'if [ "$dir" = "${dir%/dirty}" ] && ls "$dir"/tsadm_*_amd64.deb >/dev/null 2>&1; then exit 0; fi',
    '"$@"',
    'deb=$(ls -t dist/tsadm_*_amd64.deb | head -n 1)',
    'rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && cp "$deb" "$dir.tmp/" && rm -rf "$dir" && mv "$dir.tmp" "$dir"',
  ].join('\n');
  // The project's Node 24 (the `node` devDependency), as the e2e harness runs scripts.
  const ownNode = path.join(REPO, 'node_modules', 'node', 'bin', 'node');
  const node = existsSync(ownNode) ? ownNode : process.execPath;
  try {
    execFileSync('flock', ['--timeout', String(20 * 60), path.join(debCacheDir(), 'build.lock'), 'sh', '-c', script, 'sh', dir, node, path.join(REPO, 'scripts', 'package-deb.mjs'), ...reuse], {
      cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30 * MIN, maxBuffer: 64 << 20,
    });
  } catch (e) {
    // Its stderr can hold megabytes (npm's JSON): the last lines say what failed, and the error
    // itself is left out, or jest would print all of it as the cause.
    const stderr = (e as { stderr?: Buffer }).stderr?.toString() ?? '';
    const tail = stderr.trim().split('\n').slice(-8).join('\n').slice(-2000);
    // eslint-disable-next-line preserve-caught-error -- see above
    throw new Error(`npm run package failed (for ${dir}):\n${tail}`);
  }
  const deb = found();
  if (deb === undefined) throw new Error(`npm run package made no dist/tsadm_*_amd64.deb (looked in ${dir})`);
  return deb;
}
