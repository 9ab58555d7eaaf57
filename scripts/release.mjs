// `npm run release [-- --dry-run] [--no-package] [--repo DIR]`: cuts the next tsadm release.
//
//   1. the next version: 0.N+1.0 after the highest v0.N.0 tag, 0.1.0 without one
//      (scripts/lib/version-scheme.mjs; decision 77 in docs/decisions.md);
//   2. CHANGELOG.md: the "[Unreleased]" entries move under "## [0.N.0] - <date>" (scripts/lib/changelog.mjs);
//      package.json and package-lock.json take the version;
//   3. a commit "Release 0.N.0" of those three files and the annotated tag v0.N.0 on it;
//   4. the packages, built from the tagged commit: `node scripts/package-deb.mjs` (dist/tsadm_0.N.0_<arch>.deb).
//
// It refuses a tree with uncommitted changes, a HEAD that already carries a release tag and an empty
// Unreleased section. --dry-run prints every step and changes nothing. --repo runs it on another
// checkout (the tests use a temporary repository); --no-package stops after the tag.
// The date is today's in UTC, or SOURCE_DATE_EPOCH's. Nothing is pushed: `git push origin v0.N.0`
// is left to the person releasing.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './lib/build-info.mjs';
import { cutRelease, setPackageVersion } from './lib/changelog.mjs';
import { RELEASE_TAG, nextRelease } from './lib/version-scheme.mjs';

function parseArgs(argv) {
  const opts = { dryRun: false, package: true, repo: REPO };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dry-run') opts.dryRun = true;
    else if (a === '--no-package') opts.package = false;
    else if (a === '--repo' && argv[i + 1] !== undefined) opts.repo = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${a}: use [--dry-run] [--no-package] [--repo DIR]`);
  }
  return opts;
}

function main(argv) {
  const opts = parseArgs(argv);
  const git = (args) => execFileSync('git', args, { cwd: opts.repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const say = (line) => console.log(opts.dryRun ? `would ${line}` : line);

  if (git(['status', '--porcelain']) !== '') {
    const problem = `${opts.repo} has uncommitted changes: commit or remove them first`;
    if (!opts.dryRun) throw new Error(problem);
    console.log(`note: a release would stop here: ${problem}`);
  }
  const onHead = git(['tag', '--points-at', 'HEAD']).split('\n').filter((t) => RELEASE_TAG.test(t));
  if (onHead.length > 0) throw new Error(`HEAD is already released as ${onHead.join(', ')}`);
  const version = nextRelease(git(['tag', '--list', 'v*']).split('\n').filter(Boolean));
  const tag = `v${version}`;
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = (epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date()).toISOString().slice(0, 10);

  const changes = [['CHANGELOG.md', (t) => cutRelease(t, version, date)], ['package.json', (t) => setPackageVersion(t, version)], ['package-lock.json', (t) => setPackageVersion(t, version)]]
    .filter(([file]) => file === 'CHANGELOG.md' || existsSync(path.join(opts.repo, file)))
    .map(([file, edit]) => {
      const before = readFileSync(path.join(opts.repo, file), 'utf8');
      return { file, after: edit(before) };
    });
  console.log(`${opts.dryRun ? 'dry run: ' : ''}release ${version} (tag ${tag}) of ${git(['rev-parse', '--short=14', 'HEAD'])}, dated ${date}`);
  for (const { file } of changes) say(`write ${file}${file === 'CHANGELOG.md' ? ` (Unreleased → [${version}] - ${date})` : ` (version ${version})`}`);
  const files = changes.map((c) => c.file);
  say(`commit ${files.join(', ')}: "Release ${version}"`);
  say(`tag ${tag} (annotated)`);
  if (opts.package) say('build the packages: node scripts/package-deb.mjs');
  if (opts.dryRun) return;

  for (const { file, after } of changes) writeFileSync(path.join(opts.repo, file), after);
  git(['commit', '-q', '-m', `Release ${version}`, '--', ...files]);
  git(['tag', '-a', tag, '-m', `tsadm ${version}`]);
  if (opts.package) execFileSync(process.execPath, [path.join(opts.repo, 'scripts', 'package-deb.mjs')], { cwd: opts.repo, stdio: 'inherit' });
  console.log(`released ${version}; publish with: git push origin HEAD ${tag}`);
}

try {
  main(process.argv.slice(2));
} catch (err) {
  console.error(`release: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  process.exitCode = 1;
}
