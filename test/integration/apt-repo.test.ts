/**
 * `npm run repo` (scripts/apt-repo.mjs): a signed apt repository made with apt-ftparchive and gpg,
 * and apt itself as the oracle. A private apt client (its own configuration, sources, keys, lists,
 * cache, logs and dpkg database, installing under its own root with `dpkg --instdir --admindir`)
 * runs `apt-get update`, which verifies the signature (a tampered Release is refused), and
 * `apt-get install tsadm`; then an upgrade from a previous release's package to the current one.
 * apt and dpkg run where the host's /etc, /usr and /var are read-only (READ_ONLY_HOST), so they
 * cannot have touched the host's apt and dpkg state.
 *
 * The package is the real one (test/helpers/test-deb.ts: built once per commit, or $TSADM_TEST_DEB);
 * the "previous release" is that package with its Version lowered by `~prev` (dpkg-deb -R, then -b).
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO, scratchDir } from '../helpers/built-cli.js';
import { describeWithOracles, oracles } from '../helpers/oracle.js';
import { testDeb, testDebOracles } from '../helpers/test-deb.js';

const MIN = 60_000;
const KEYRING = 'tsadm-archive-keyring.gpg';

/**
 * Every apt and dpkg command of this file runs in a mount namespace of its own where the host's
 * /etc, /usr and /var are read-only (bind mounts, private to the namespace): whatever they tried to
 * write outside their private directories would fail them, so their success shows the host's apt
 * and dpkg state untouched whatever else runs on the machine meanwhile.
 */
const READ_ONLY_HOST = 'for d in /etc /usr /var; do mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" || exit 97; done; exec "$@"';

/** dpkg status stanzas: NAMES and everything they depend on, transitively (installed packages only). */
function statusClosure(status: string, names: readonly string[]): string {
  const byName = new Map<string, string[]>();
  for (const stanza of status.split(/\n\n+/)) {
    const name = /^Package: (\S+)$/m.exec(stanza)?.[1];
    if (name === undefined || !/^Status: install ok installed$/m.test(stanza)) continue;
    byName.set(name, [...(byName.get(name) ?? []), stanza.trim()]);
  }
  const depNames = (stanza: string): string[] =>
    [...stanza.matchAll(/^(?:Pre-)?Depends: (.*)$/gm)].flatMap((m) => (m[1] as string).split(/[,|]/).map((d) => d.trim().split(/[\s:(]/)[0] as string));
  const seen = new Set<string>();
  const todo = [...names];
  while (todo.length > 0) {
    const n = todo.pop() as string;
    if (seen.has(n) || !byName.has(n)) continue;
    seen.add(n);
    for (const s of byName.get(n) ?? []) todo.push(...depNames(s));
  }
  return [...seen].sort().flatMap((n) => byName.get(n) ?? []).join('\n\n') + '\n';
}

function run(file: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(file, args, { encoding: 'utf8', timeout: 5 * MIN, env: opts.env ?? process.env, cwd: opts.cwd, maxBuffer: 64 << 20 });
}

/** FILE ARGS with the host's /etc, /usr and /var read-only (READ_ONLY_HOST). */
function guarded(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  return run('unshare', ['--mount', 'sh', '-c', READ_ONLY_HOST, 'sh', file, ...args], { env });
}

/** A Debian-spelled field of a package file. */
const debField = (deb: string, field: string): string => execFileSync('dpkg-deb', ['--field', deb, field], { encoding: 'utf8' }).trim();

/**
 * A private apt client for the repository at REPO_DIR: apt reads only its own configuration
 * (APT_CONFIG with Dir::Etc::main and Parts redirected, so no host hook or pin applies), trusts
 * only the repository's exported key (signed-by), and hands packages to dpkg with its own admin
 * directory and install root. Its dpkg status holds the host's copy of what tsadm depends on.
 */
class AptClient {
  readonly root: string;
  readonly admin: string;
  private readonly conf: string;

  constructor(readonly dir: string, repoDir: string, depends: string) {
    for (const d of ['etc/parts', 'etc/preferences.d', 'etc/trusted.d', 'state/lists/partial', 'cache/archives/partial', 'log', 'admin/info', 'admin/updates', 'admin/triggers', 'root']) {
      mkdirSync(path.join(dir, d), { recursive: true });
    }
    this.root = path.join(dir, 'root');
    this.admin = path.join(dir, 'admin');
    const roots = depends.split(',').flatMap((d) => d.split('|')).map((d) => d.trim().split(/[\s:(]/)[0] as string);
    writeFileSync(path.join(this.admin, 'status'), statusClosure(readFileSync('/var/lib/dpkg/status', 'utf8'), roots));
    writeFileSync(path.join(dir, 'etc/sources.list'), `deb [signed-by=${path.join(repoDir, KEYRING)}] file:${repoDir} stable main\n`);
    this.conf = path.join(dir, 'apt.conf');
    const q = JSON.stringify;
    writeFileSync(this.conf, [
      `Dir::Etc::main "/dev/null";`,
      `Dir::Etc::Parts ${q(path.join(dir, 'etc/parts'))};`,
      `Dir::Etc::SourceList ${q(path.join(dir, 'etc/sources.list'))};`,
      `Dir::Etc::SourceParts ${q(path.join(dir, 'etc/parts'))};`,
      `Dir::Etc::Preferences "/dev/null";`,
      `Dir::Etc::PreferencesParts ${q(path.join(dir, 'etc/preferences.d'))};`,
      `Dir::Etc::Trusted "/dev/null";`,
      `Dir::Etc::TrustedParts ${q(path.join(dir, 'etc/trusted.d'))};`,
      `Dir::State ${q(path.join(dir, 'state'))};`,
      `Dir::State::status ${q(path.join(this.admin, 'status'))};`,
      `Dir::Cache ${q(path.join(dir, 'cache'))};`,
      `Dir::Log ${q(path.join(dir, 'log'))};`,
      // The temporary directories are root's alone; apt's _apt sandbox user could not read them.
      `APT::Sandbox::User "root";`,
      `APT::Architecture "amd64";`,
      `APT::Architectures { "amd64"; };`,
      `DPkg::Options { "--instdir=${this.root}"; "--admindir=${this.admin}"; "--log=${path.join(dir, 'log/dpkg.log')}"; };`,
      '',
    ].join('\n'));
  }

  apt(cmd: 'apt-get' | 'apt-cache', args: readonly string[]): SpawnSyncReturns<string> {
    return guarded(cmd, args, { ...process.env, APT_CONFIG: this.conf, DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' });
  }

  /** `apt-get update`, wiping the lists first so every index is fetched and verified again. */
  update(): SpawnSyncReturns<string> {
    rmSync(path.join(this.dir, 'state/lists'), { recursive: true, force: true });
    mkdirSync(path.join(this.dir, 'state/lists/partial'), { recursive: true });
    return this.apt('apt-get', ['update']);
  }

  installed(): string {
    const r = guarded('dpkg-query', ['--admindir', this.admin, '-W', '-f', '${Version}', 'tsadm']);
    return r.status === 0 ? r.stdout : '';
  }
}

function repo(args: readonly string[], env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  return run(process.execPath, [path.join(REPO, 'scripts', 'apt-repo.mjs'), ...args], { env });
}

const ok = (r: SpawnSyncReturns<string>): string => {
  expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
  return r.stdout;
};

describeWithOracles([oracles.aptRepo, ...testDebOracles()])('npm run repo: a signed apt repository', () => {
  let tmp: ReturnType<typeof scratchDir>;
  let deb = '';
  let version = '';

  beforeAll(() => {
    deb = testDeb();
    version = debField(deb, 'Version');
    tmp = scratchDir('tsadm-apt-repo-');
  }, 30 * MIN);
  afterAll(() => tmp?.cleanup());

  test('refuses a call without a directory, a suite that leaves dists/, and no package', () => {
    const none = repo([]);
    expect([none.status, none.stderr]).toEqual([1, expect.stringMatching(/^apt-repo: no repository directory; usage: npm run repo -- DIR/)]);
    const suite = repo([path.join(tmp.dir, 'x'), '--suite', '../up', deb]);
    expect([suite.status, suite.stderr]).toEqual([1, expect.stringContaining('--suite "../up"')]);
    const empty = repo([path.join(tmp.dir, 'empty'), path.join(tmp.dir, 'missing.deb')]);
    expect([empty.status, empty.stderr.trim()]).toEqual([1, `apt-repo: ${path.join(tmp.dir, 'missing.deb')}: no such package`]);
  }, MIN);

  test('with no --key: pool, both architectures, Release signed inline and detached by a throwaway key that is gone afterwards', () => {
    const dir = path.join(tmp.dir, 'throwaway');
    const gpgTmp = path.join(tmp.dir, 'tmpdir');
    mkdirSync(gpgTmp);
    ok(repo([dir, deb], { ...process.env, TMPDIR: gpgTmp }));
    // The temporary GNUPGHOME (with the secret key) was removed; the exported key is public only.
    expect(readdirSync(gpgTmp)).toEqual([]);
    const shown = ok(run('gpg', ['--batch', '--with-colons', '--show-keys', path.join(dir, KEYRING)]));
    expect(shown.split('\n').filter((l) => /^(pub|sec|ssb):/.test(l)).map((l) => l.slice(0, 4))).toEqual(['pub:']);

    const dists = path.join(dir, 'dists', 'stable');
    const pool = `pool/main/t/tsadm/tsadm_${version.replace(/^\d+:/, '')}_amd64.deb`;
    expect(readFileSync(path.join(dir, pool)).equals(readFileSync(deb))).toBe(true);
    const amd64 = readFileSync(path.join(dists, 'main/binary-amd64/Packages'), 'utf8');
    expect(amd64).toMatch(new RegExp(`^Package: tsadm\n(?:.+\n)*Version: ${version.replace(/[.+]/g, '\\$&')}\n`, 'm'));
    expect(amd64).toContain(`Filename: ${pool}\n`);
    expect(amd64).toContain(`SHA256: ${createHash('sha256').update(readFileSync(deb)).digest('hex')}\n`);
    // No arm64 package in this pool: its index exists and is empty, so an arm64 host gets no 404.
    expect(readFileSync(path.join(dists, 'main/binary-arm64/Packages'), 'utf8')).toBe('');
    const release = readFileSync(path.join(dists, 'Release'), 'utf8');
    expect(release).toMatch(/^Architectures: amd64 arm64$/m);
    expect(release).toMatch(/^Suite: stable$/m);
    for (const f of ['main/binary-amd64/Packages', 'main/binary-amd64/Packages.gz', 'main/binary-arm64/Packages', 'main/binary-arm64/Packages.gz']) {
      const sum = createHash('sha256').update(readFileSync(path.join(dists, f))).digest('hex');
      expect(release).toMatch(new RegExp(`^ ${sum} +\\d+ ${f}$`, 'm'));
    }
    // gpgv, as apt runs it, with the exported key alone.
    const keyring = path.join(dir, KEYRING);
    ok(run('gpgv', ['--keyring', keyring, path.join(dists, 'InRelease')]));
    ok(run('gpgv', ['--keyring', keyring, path.join(dists, 'Release.gpg'), path.join(dists, 'Release')]));
    expect(readFileSync(path.join(dists, 'InRelease'), 'utf8')).toContain(release.trim());
  }, 5 * MIN);

  test('apt-get update verifies the signature and `apt-get install tsadm` installs it; a tampered Release is refused', () => {
    const dir = path.join(tmp.dir, 'install-repo');
    ok(repo([dir, deb]));
    const client = new AptClient(path.join(tmp.dir, 'client1'), dir, debField(deb, 'Depends'));
    ok(client.update());
    expect(ok(client.apt('apt-cache', ['policy', 'tsadm']))).toMatch(new RegExp(`Candidate: ${version.replace(/[.+]/g, '\\$&')}\n`));
    ok(client.apt('apt-get', ['install', '-y', 'tsadm']));
    expect(client.installed()).toBe(version);
    const exe = path.join(client.root, 'usr/bin/tsadm');
    expect(ok(run(exe, ['version', '-o', 'short']))).toMatch(/^v\d+\.\d+\.\d+/);
    expect(existsSync(path.join(client.root, 'usr/share/bash-completion/completions/tsadm'))).toBe(true);

    // One byte of the signed text changed: the signature no longer matches, apt keeps nothing from it.
    const dists = path.join(dir, 'dists', 'stable');
    for (const f of ['InRelease', 'Release']) writeFileSync(path.join(dists, f), readFileSync(path.join(dists, f), 'utf8').replace('Label: tsadm', 'Label: tsadM'));
    const tampered = client.update();
    expect(tampered.status).not.toBe(0);
    expect(tampered.stderr + tampered.stdout).toMatch(/BADSIG/);
    expect(tampered.stderr).toMatch(/is not signed/);
    expect(client.apt('apt-cache', ['policy', 'tsadm']).stdout).not.toMatch(/file:/);
  }, 5 * MIN);

  test('an upgrade: the previous release installed from the repository, then the new one published beside it and chosen by apt', () => {
    // A key of the test's own, handed over as a file (--key FILE) and then by fingerprint from a keyring (--key FPR).
    const home = path.join(tmp.dir, 'gnupg');
    mkdirSync(home, { mode: 0o700 });
    const gpgEnv = { ...process.env, GNUPGHOME: home };
    ok(run('gpg', ['--batch', '--passphrase', '', '--quick-generate-key', 'tsadm apt-repo test <apt-repo-test@invalid>', 'ed25519', 'sign', '1d'], { env: gpgEnv }));
    const fpr = /^fpr:+([0-9A-F]{40}):/m.exec(ok(run('gpg', ['--batch', '--with-colons', '--list-secret-keys'], { env: gpgEnv })))?.[1] as string;
    const keyFile = path.join(tmp.dir, 'secret.key');
    writeFileSync(keyFile, ok(run('gpg', ['--batch', '--armor', '--export-secret-keys', fpr], { env: gpgEnv })));

    // The previous release: the same package with a lower version.
    const prevVersion = `${version}~prev`;
    const raw = path.join(tmp.dir, 'prev-raw');
    ok(run('dpkg-deb', ['-R', deb, raw]));
    const control = path.join(raw, 'DEBIAN/control');
    writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${prevVersion}`));
    const prev = path.join(tmp.dir, 'tsadm_prev_amd64.deb');
    ok(run('dpkg-deb', ['--root-owner-group', '-Znone', '--build', raw, prev]));
    // And one with that version but other bytes, to be refused below.
    const other = path.join(tmp.dir, 'other.deb');
    writeFileSync(path.join(raw, 'usr/share/doc/tsadm/extra'), 'changed\n');
    ok(run('dpkg-deb', ['--root-owner-group', '-Znone', '--build', raw, other]));
    rmSync(raw, { recursive: true });
    expect(run('dpkg', ['--compare-versions', prevVersion, 'lt', version]).status).toBe(0);

    const dir = path.join(tmp.dir, 'upgrade-repo');
    ok(repo([dir, '--key', keyFile, prev]));
    const client = new AptClient(path.join(tmp.dir, 'client2'), dir, debField(deb, 'Depends'));
    ok(client.update());
    ok(client.apt('apt-get', ['install', '-y', 'tsadm']));
    expect(client.installed()).toBe(prevVersion);

    // The new release beside it, signed by the same key from a keyring (the previous package again: the same bytes, no change).
    const pub = readFileSync(path.join(dir, KEYRING));
    expect(ok(repo([dir, '--key', fpr, prev, deb], gpgEnv))).toContain('1 package(s) added');
    expect(readFileSync(path.join(dir, KEYRING)).equals(pub)).toBe(true);
    const packages = readFileSync(path.join(dir, 'dists/stable/main/binary-amd64/Packages'), 'utf8');
    expect([...packages.matchAll(/^Version: (.*)$/gm)].map((m) => m[1]).sort()).toEqual([version, prevVersion].sort());

    ok(client.update());
    expect(ok(client.apt('apt-get', ['-s', 'upgrade']))).toMatch(new RegExp(`^Inst tsadm \\[${prevVersion.replace(/[.+~]/g, '\\$&')}\\] \\(${version.replace(/[.+]/g, '\\$&')} `, 'm'));
    ok(client.apt('apt-get', ['upgrade', '-y']));
    expect(client.installed()).toBe(version);
    expect(readFileSync(path.join(client.dir, 'log/dpkg.log'), 'utf8')).toContain(`upgrade tsadm:amd64 ${prevVersion} ${version}`);

    // A package of a published version with other bytes is refused: a version's package never changes.
    const refused = repo([dir, '--key', keyFile, other]);
    expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining('is already published with other contents')]);
  }, 10 * MIN);

  test("apt and dpkg ran with the host's /etc, /usr and /var read-only, the test's own directory writable", () => {
    const probe = guarded('sh', ['-c', 'touch /var/lib/dpkg/tsadm-apt-repo-probe /usr/bin/tsadm-apt-repo-probe /etc/apt/tsadm-apt-repo-probe 2>&1; echo "rc=$?"; touch "$0" && echo writable', path.join(tmp.dir, 'probe')]);
    expect(probe.stdout).toMatch(/Read-only file system[\s\S]*rc=1\nwritable\n$/);
  });
});
