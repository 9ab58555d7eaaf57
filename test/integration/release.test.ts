/**
 * Versions that sort by history and `npm run release` (scripts/lib/version-scheme.mjs,
 * scripts/lib/build-info.mjs, scripts/lib/changelog.mjs, scripts/release.mjs), on a temporary git
 * repository. Oracle: dpkg's own comparison (`dpkg --compare-versions`), which apt uses to decide
 * what an upgrade is; git itself for the tags and commits the release makes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @ts-expect-error: plain JavaScript without types (jest loads it outside the TypeScript transform)
import { gitVersionIn as gitVersionInJs } from '../../scripts/lib/build-info.mjs';
// @ts-expect-error: plain JavaScript without types
import { debianVersion as debianVersionJs, nextRelease as nextReleaseJs } from '../../scripts/lib/version-scheme.mjs';
// @ts-expect-error: plain JavaScript without types
import { cutRelease as cutReleaseJs, setPackageVersion as setPackageVersionJs } from '../../scripts/lib/changelog.mjs';

const gitVersionIn = gitVersionInJs as (dir: string) => { gitVersion: string; commit: string; dirty: boolean } | undefined;
const debianVersion = debianVersionJs as (gitVersion: string) => string;
const nextRelease = nextReleaseJs as (tags: string[]) => string;
const cutRelease = cutReleaseJs as (text: string, version: string, date: string) => string;
const setPackageVersion = setPackageVersionJs as (json: string, version: string) => string;

const RELEASE = path.join(process.cwd(), 'scripts', 'release.mjs');
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
};

const dpkgLess = (a: string, b: string): boolean => spawnSync('dpkg', ['--compare-versions', a, 'lt', b]).status === 0;

const CHANGELOG = '# Changelog\n\nIntro.\n\n## [Unreleased]\n\n### Added\n- A thing an operator sees.\n';

describe('version scheme and release', () => {
  let repo: string;
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: GIT_ENV, encoding: 'utf8' }).trim();
  const commit = (n: number): void => {
    for (let i = 0; i < n; i++) git('commit', '-q', '--allow-empty', '-m', `c${i}`);
  };
  const release = (...args: string[]) => spawnSync(process.execPath, [RELEASE, '--repo', repo, '--no-package', ...args], { env: { ...GIT_ENV, SOURCE_DATE_EPOCH: '1764374400' }, encoding: 'utf8' });

  beforeEach(() => {
    repo = mkdtempSync(path.join(tmpdir(), 'tsadm-release-'));
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'CHANGELOG.md'), CHANGELOG);
    writeFileSync(path.join(repo, 'package.json'), '{\n  "name": "tsadm",\n  "version": "0.1.0"\n}\n');
    git('add', '.');
    git('commit', '-q', '-m', 'root');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  test('successive builds\' Debian versions sort in history order (9 → 10 commits after a tag too), across two releases', () => {
    const seen: string[] = [];
    const record = (): void => {
      seen.push(gitVersionIn(repo)!.gitVersion);
    };
    record();
    commit(1);
    record();
    // Before the first tag: counted from the root on a v0.0.0 base, below the first release.
    expect(seen.at(-1)).toMatch(/^v0\.0\.0-2\+[0-9a-f]{14}$/);
    expect(release().status).toBe(0);
    record();
    expect(seen.at(-1)).toBe('v0.1.0');
    commit(1);
    record();
    commit(8);
    record();
    commit(1);
    record();
    expect(seen.at(-2)).toMatch(/^v0\.1\.0-9\+[0-9a-f]{14}$/);
    expect(seen.at(-1)).toMatch(/^v0\.1\.0-10\+[0-9a-f]{14}$/);
    writeFileSync(path.join(repo, 'CHANGELOG.md'), readFileSync(path.join(repo, 'CHANGELOG.md'), 'utf8').replace('## [Unreleased]\n', '## [Unreleased]\n\n### Fixed\n- Another.\n'));
    git('commit', '-q', '-am', 'entry');
    record();
    expect(release().status).toBe(0);
    record();
    expect(seen.at(-1)).toBe('v0.2.0');
    // A changed tree sorts after its commit and before the next.
    writeFileSync(path.join(repo, 'x'), 'x');
    record();
    git('add', 'x');
    git('commit', '-q', '-m', 'x');
    record();
    expect(seen.at(-2)).toBe('v0.2.0-dirty');

    const deb = seen.map(debianVersion);
    for (let i = 1; i < deb.length; i++) {
      expect([deb[i - 1], deb[i], dpkgLess(deb[i - 1]!, deb[i]!)]).toEqual([deb[i - 1], deb[i], true]);
    }
    // The old scheme's trap: a hash that sorts lower on a later commit. Here the count decides.
    expect(dpkgLess(debianVersion('v0.1.0-9+ffffffffffffff'), debianVersion('v0.1.0-10+00000000000000'))).toBe(true);
  });

  test('the Debian spelling of each gitVersion form', () => {
    expect(debianVersion('v0.2.0')).toBe('0.2.0');
    expect(debianVersion('v0.2.0-10+0123456789abcd')).toBe('0.2.0+10.g0123456789abcd');
    expect(debianVersion('v0.2.0-10+0123456789abcd-dirty')).toBe('0.2.0+10.g0123456789abcd.dirty');
    expect(debianVersion('v0.2.0-dirty')).toBe('0.2.0+0.dirty');
    expect(debianVersion('v0.3.0-rc.1')).toBe('0.3.0~rc.1');
    expect(dpkgLess('0.3.0~rc.1', '0.3.0')).toBe(true);
    expect(dpkgLess('0.2.0+99.gffff', '0.3.0~rc.1')).toBe(true);
    expect(() => debianVersion('0.2')).toThrow(/not vX\.Y\.Z/);
    expect(nextRelease([])).toBe('0.1.0');
    expect(nextRelease(['v0.9.0', 'v0.10.0', 'v0.2.0', 'other'])).toBe('0.11.0');
    expect(() => nextRelease(['v1.0.0'])).toThrow(/past 0\.x/);
  });

  test('cutRelease moves Unreleased under the version; an empty or missing section is refused', () => {
    const text = `${CHANGELOG}\n## [0.1.0] - 2026-01-01\n\n### Added\n- First.\n`;
    const cut = cutRelease(text, '0.2.0', '2026-11-29');
    expect(cut).toBe('# Changelog\n\nIntro.\n\n## [Unreleased]\n\n## [0.2.0] - 2026-11-29\n\n### Added\n- A thing an operator sees.\n\n## [0.1.0] - 2026-01-01\n\n### Added\n- First.\n');
    expect(() => cutRelease(cut, '0.3.0', '2026-11-30')).toThrow(/empty/);
    expect(() => cutRelease(text, '0.1.0', '2026-11-30')).toThrow(/already has a section/);
    expect(() => cutRelease('# Changelog\n', '0.1.0', '2026-11-30')).toThrow(/no "## \[Unreleased\]"/);
    const lock = setPackageVersion('{\n  "name": "tsadm",\n  "version": "0.1.0",\n  "packages": {\n    "": { "version": "0.1.0" },\n    "node_modules/x": { "version": "0.1.0" }\n  }\n}\n', '0.2.0');
    expect(JSON.parse(lock)).toEqual({ name: 'tsadm', version: '0.2.0', packages: { '': { version: '0.2.0' }, 'node_modules/x': { version: '0.1.0' } } });
  });

  test('--dry-run prints each step and changes nothing; the release then does them; a released HEAD and a dirty tree are refused', () => {
    commit(2);
    const head = git('rev-parse', 'HEAD');
    const dry = release('--dry-run');
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('dry run: release 0.1.0 (tag v0.1.0)');
    expect(dry.stdout).toContain('would write CHANGELOG.md (Unreleased → [0.1.0] - 2025-11-29)');
    expect(dry.stdout).toContain('would write package.json (version 0.1.0)');
    expect(dry.stdout).toContain('would commit CHANGELOG.md, package.json: "Release 0.1.0"');
    expect(dry.stdout).toContain('would tag v0.1.0 (annotated)');
    expect(spawnSync(process.execPath, [RELEASE, '--repo', repo, '--dry-run'], { env: GIT_ENV, encoding: 'utf8' }).stdout).toContain('would build the packages: node scripts/package-deb.mjs');
    expect([git('rev-parse', 'HEAD'), git('tag'), git('status', '--porcelain'), readFileSync(path.join(repo, 'CHANGELOG.md'), 'utf8')]).toEqual([head, '', '', CHANGELOG]);

    const real = release();
    expect(real.status).toBe(0);
    expect(git('tag', '--points-at', 'HEAD')).toBe('v0.1.0');
    expect(git('cat-file', '-t', 'v0.1.0')).toBe('tag');
    expect(git('log', '-1', '--format=%s')).toBe('Release 0.1.0');
    expect(git('rev-parse', 'HEAD~1')).toBe(head);
    expect(git('status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(repo, 'CHANGELOG.md'), 'utf8')).toBe(cutRelease(CHANGELOG, '0.1.0', '2025-11-29'));

    const again = release();
    expect([again.status, again.stderr.trim()]).toEqual([1, 'release: HEAD is already released as v0.1.0']);
    commit(1);
    const empty = release();
    expect([empty.status, empty.stderr.trim()]).toEqual([1, 'release: CHANGELOG.md\'s Unreleased section is empty: nothing to release']);
    writeFileSync(path.join(repo, 'CHANGELOG.md'), 'changed');
    const dirty = release();
    expect(dirty.status).toBe(1);
    expect(dirty.stderr).toMatch(/^release: .* has uncommitted changes: commit or remove them first\n$/);
    expect(git('tag')).toBe('v0.1.0');
  });
});
