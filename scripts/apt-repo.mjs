// `npm run repo -- DIR [--key K] [--suite S] [DEB...]`: a signed apt repository in DIR, made with
// Debian's own tools (apt-ftparchive from apt-utils, gpg), to be served as static files.
//
//   DIR/pool/main/t/tsadm/tsadm_<version>_<arch>.deb   every package ever added (the pool only grows,
//                                                      so `apt-get install tsadm=<older>` keeps working)
//   DIR/dists/<suite>/main/binary-{amd64,arm64}/Packages(.gz)   one index per architecture, empty when
//                                                      the pool has no package of it yet
//   DIR/dists/<suite>/Release, InRelease, Release.gpg  Release signed inline and detached
//   DIR/tsadm-archive-keyring.gpg (.asc)               the signing key's public half, for signed-by=
//
// DEB...: the packages to add (default: every dist/tsadm_*.deb); run again with a newer package to
// publish it beside the older ones. A pool file is never replaced by different bytes: apt and its
// caches take a published version's checksum as final.
// --key K: the signing key: a file holding a secret key (imported into a temporary GNUPGHOME, nothing
// kept), or a key id, fingerprint or user id in the caller's own keyring ($GNUPGHOME, else ~/.gnupg).
// Without --key, a throwaway key is made in a temporary GNUPGHOME and deleted with it: fit for tests,
// and every run signs with a new one.
// --suite S (default "stable"): the name under dists/, written as both Suite and Codename.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { REPO } from './lib/build-info.mjs';

const COMPONENT = 'main';
/** Always indexed, so an arm64 host gets an empty list rather than a missing file until an arm64 package exists. */
const ARCHITECTURES = ['amd64', 'arm64'];
const KEYRING = 'tsadm-archive-keyring';

class RepoError extends Error {}

function run(file, args, opts = {}) {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
  } catch (e) {
    if (e.code === 'ENOENT') throw new RepoError(`${file} not found: apt-get install ${file === 'apt-ftparchive' ? 'apt-utils' : file === 'gpg' ? 'gpg' : 'dpkg'}`);
    const why = String(e.stderr ?? '').trim().split('\n').filter(Boolean).at(-1) ?? e.message;
    throw new RepoError(`${file} ${args[0] ?? ''} failed: ${why}`);
  }
}

function options(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { key: { type: 'string' }, suite: { type: 'string', default: 'stable' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    throw new RepoError(`${e.message}; usage: npm run repo -- DIR [--key K] [--suite S] [DEB...]`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  const [dir, ...debs] = positionals;
  if (!dir) throw new RepoError('no repository directory; usage: npm run repo -- DIR [--key K] [--suite S] [DEB...]');
  // apt builds URLs from the suite: a plain name, no slashes or dots leading out of dists/.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(values.suite)) throw new RepoError(`--suite ${JSON.stringify(values.suite)}: letters, digits, ".", "_" and "-" only`);
  return { dir: path.resolve(dir), key: values.key, suite: values.suite, debs: debs.map((d) => path.resolve(d)) };
}

/** The packages to add: those named, else dist/tsadm_*.deb. */
function packagesToAdd(named) {
  if (named.length > 0) {
    for (const d of named) if (!existsSync(d)) throw new RepoError(`${d}: no such package`);
    return named;
  }
  const dist = path.join(REPO, 'dist');
  return existsSync(dist) ? readdirSync(dist).filter((f) => /^tsadm_.+\.deb$/.test(f)).sort().map((f) => path.join(dist, f)) : [];
}

/** Debian's pool layout: pool/<component>/<initial, or "libx" for lib*>/<package>/<file>. */
function poolPath(fields) {
  const { Package: pkg, Version: version, Architecture: arch } = fields;
  const initial = pkg.startsWith('lib') ? pkg.slice(0, 4) : pkg[0];
  // The file name drops the epoch, as dpkg-name does (":" is awkward in URLs).
  return path.posix.join('pool', COMPONENT, initial, pkg, `${pkg}_${version.replace(/^\d+:/, '')}_${arch}.deb`);
}

function debFields(deb) {
  const names = ['Package', 'Version', 'Architecture'];
  const out = run('dpkg-deb', ['--field', deb, ...names]);
  const fields = Object.fromEntries(out.split('\n').map((l) => /^([\w-]+): (.*)$/.exec(l)).filter(Boolean).map((m) => [m[1], m[2].trim()]));
  for (const n of names) if (!fields[n]) throw new RepoError(`${deb}: no ${n} field in its control file`);
  return fields;
}

function sameBytes(a, b) {
  return statSync(a).size === statSync(b).size && readFileSync(a).equals(readFileSync(b));
}

/** Copies each package into the pool; returns the pool paths added. */
function addToPool(dir, debs) {
  const added = [];
  for (const deb of debs) {
    const rel = poolPath(debFields(deb));
    const dest = path.join(dir, rel);
    if (existsSync(dest)) {
      if (!sameBytes(deb, dest)) throw new RepoError(`${rel} is already published with other contents; a version's package never changes (build a new version, or remove the file)`);
      continue;
    }
    mkdirSync(path.dirname(dest), { recursive: true });
    copyFileSync(deb, `${dest}.tmp`);
    renameSync(`${dest}.tmp`, dest);
    added.push(rel);
  }
  return added;
}

/** The architectures in the pool's file names, besides the ones always indexed ("all" goes into each). */
function poolArchitectures(dir) {
  const found = new Set(ARCHITECTURES);
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith('.deb')) found.add(e.name.slice(0, -4).split('_').at(-1));
    }
  };
  if (existsSync(path.join(dir, 'pool'))) walk(path.join(dir, 'pool'));
  found.delete('all');
  return [...found].sort();
}

/** A GNUPGHOME and the fingerprint to sign with, and how to clean up after. */
function signingKey(key) {
  const temporary = () => {
    const home = mkdtempSync(path.join(tmpdir(), 'tsadm-repo-gpg-'));
    const env = { ...process.env, GNUPGHOME: home };
    const cleanup = () => {
      // The agent gpg started for this home would outlive it.
      try {
        run('gpgconf', ['--kill', 'gpg-agent'], { env });
      } catch {
        // no agent was started
      }
      rmSync(home, { recursive: true, force: true });
    };
    return { env, cleanup };
  };
  const secretFingerprints = (env, which = []) => {
    const out = run('gpg', ['--batch', '--with-colons', '--list-secret-keys', ...which], { env });
    // A primary key's fingerprint is the fpr record right after its sec record.
    const recs = out.split('\n').map((l) => l.split(':'));
    const fprs = recs.filter((f, i) => f[0] === 'fpr' && recs[i - 1]?.[0] === 'sec').map((f) => f[9]);
    return fprs;
  };
  if (key === undefined) {
    const t = temporary();
    try {
      run('gpg', ['--batch', '--passphrase', '', '--quick-generate-key', 'tsadm test repository (throwaway key) <tsadm-test-repository@invalid>', 'ed25519', 'sign', '1y'], { env: t.env });
      const [fpr] = secretFingerprints(t.env);
      return { ...t, fpr, batch: true, what: `a throwaway key (${fpr}), for tests only` };
    } catch (e) {
      t.cleanup();
      throw e;
    }
  }
  if (existsSync(key)) {
    const t = temporary();
    try {
      run('gpg', ['--batch', '--import', key], { env: t.env });
      const fprs = secretFingerprints(t.env);
      if (fprs.length !== 1) throw new RepoError(`--key ${key}: holds ${fprs.length} secret keys, expected one`);
      return { ...t, fpr: fprs[0], batch: true, what: `the key of ${key} (${fprs[0]})` };
    } catch (e) {
      t.cleanup();
      throw e;
    }
  }
  // The caller's keyring: no --batch, so gpg-agent may ask for the passphrase.
  const env = process.env;
  let fprs;
  try {
    fprs = secretFingerprints(env, [key]);
  } catch {
    throw new RepoError(`--key ${key}: no such file, and no secret key of that name in ${env.GNUPGHOME ?? '~/.gnupg'}`);
  }
  if (fprs.length !== 1) throw new RepoError(`--key ${key}: names ${fprs.length} secret keys; give a fingerprint`);
  return { env, cleanup: () => undefined, fpr: fprs[0], batch: false, what: `${fprs[0]} from ${env.GNUPGHOME ?? '~/.gnupg'}` };
}

function main() {
  const opts = options(process.argv.slice(2));
  if (opts.help) {
    console.log(readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n'));
    return;
  }
  const { dir, suite } = opts;
  const added = addToPool(dir, packagesToAdd(opts.debs));
  const arches = poolArchitectures(dir);
  const dists = path.join(dir, 'dists', suite);
  // apt-ftparchive writes paths relative to its working directory: DIR, the repository's root.
  for (const arch of arches) {
    const packages = run('apt-ftparchive', ['--arch', arch, 'packages', path.posix.join('pool', COMPONENT)], { cwd: dir });
    const bin = path.join(dists, COMPONENT, `binary-${arch}`);
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'Packages'), packages);
    writeFileSync(path.join(bin, 'Packages.gz'), gzipSync(Buffer.from(packages), { level: 9 }));
  }
  if (!arches.some((a) => readFileSync(path.join(dists, COMPONENT, `binary-${a}`, 'Packages'), 'utf8').trim() !== '')) {
    throw new RepoError('no package to publish: build one (npm run package) or name .deb files after DIR');
  }
  // A stale Release would be listed in the new one's checksums.
  for (const f of ['Release', 'InRelease', 'Release.gpg']) rmSync(path.join(dists, f), { force: true });
  const field = (name, value) => ['-o', `APT::FTPArchive::Release::${name}=${value}`];
  const release = run('apt-ftparchive', [
    ...field('Origin', 'tsadm'), ...field('Label', 'tsadm'), ...field('Suite', suite), ...field('Codename', suite),
    ...field('Architectures', arches.join(' ')), ...field('Components', COMPONENT),
    ...field('Description', 'tsadm, a kubeadm-compatible Kubernetes bootstrapper'),
    'release', path.relative(dir, dists),
  ], { cwd: dir });
  writeFileSync(path.join(dists, 'Release'), release);

  const signer = signingKey(opts.key);
  try {
    const gpg = (args) => run('gpg', [...(signer.batch ? ['--batch'] : []), '--yes', '--local-user', signer.fpr, '--digest-algo', 'SHA512', ...args], { env: signer.env, stdio: ['inherit', 'pipe', 'pipe'] });
    gpg(['--clearsign', '--output', path.join(dists, 'InRelease'), path.join(dists, 'Release')]);
    gpg(['--armor', '--detach-sign', '--output', path.join(dists, 'Release.gpg'), path.join(dists, 'Release')]);
    // Only the signing key, with nothing but its self-signatures.
    const exportKey = (armor) => execFileSync('gpg', ['--batch', '--export-options', 'export-minimal', ...(armor ? ['--armor'] : []), '--export', signer.fpr], { env: signer.env });
    writeFileSync(path.join(dir, `${KEYRING}.gpg`), exportKey(false));
    writeFileSync(path.join(dir, `${KEYRING}.asc`), exportKey(true));
  } finally {
    signer.cleanup();
  }
  console.log(`${dir}: suite ${suite}, ${arches.join(' and ')}; ${added.length} package(s) added (${added.join(', ') || 'all already there'}); signed with ${signer.what}`);
  console.log(`apt source: deb [signed-by=/usr/share/keyrings/${KEYRING}.gpg] <URL of ${dir}> ${suite} ${COMPONENT}`);
}

try {
  main();
} catch (e) {
  if (!(e instanceof RepoError)) throw e;
  console.error(`apt-repo: ${e.message}`);
  process.exitCode = 1;
}
