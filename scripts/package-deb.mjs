// `npm run package`: builds dist/tsadm_<version>_<arch>.deb with dpkg-deb, offline (`-- --arch arm64`:
// for arm64, from an x64 host too; scripts/lib/target-arch.mjs).
//
// Contents (nothing else; the package owns no file tsadm writes for a cluster):
//   /usr/bin/tsadm                                    the single executable (scripts/build-sea.mjs)
//   /usr/share/bash-completion/completions/tsadm      `tsadm completion bash`
//   /usr/share/zsh/vendor-completions/_tsadm          `tsadm completion zsh`
//   /usr/share/man/man8/tsadm.8.gz, tsadm-<cmd>….8.gz  from the CLI's own --help (scripts/lib/man.mjs)
//   /usr/share/doc/tsadm/copyright                    machine-readable (DEP-5): tsadm's, and the notices
//                                                     of what the executable bundles (scripts/lib/deb-copyright.mjs)
//   /usr/share/doc/tsadm/changelog.gz                 the Debian changelog (a native package)
//   /usr/share/doc/tsadm/{README.md,CHANGELOG.md,docs/*.md}  the repository's, at their repository paths,
//                                                     so their links work and help names them (scripts/lib/deb-docs.mjs)
//   /usr/share/lintian/overrides/tsadm                what lintian reports that is by design
// The version is the executable's gitVersion (`tsadm version -o short`) in Debian's spelling, which
// sorts in history order (scripts/lib/version-scheme.mjs). Maintainer and Homepage are package.json's
// author and homepage. Depends: scripts/lib/deb-depends.mjs.
// Flags: --reuse-sea uses an existing dist/tsadm instead of building it. DEBFULLNAME and DEBEMAIL
// name another maintainer; SOURCE_DATE_EPOCH fixes every date (reproducible builds).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO, buildDefines } from './lib/build-info.mjs';
import { commandEntries, helpToMan, pageName } from './lib/man.mjs';
import { debianVersion } from './lib/version-scheme.mjs';
import { bundledPackageDirs, copyrightFile, readPackageNotice } from './lib/deb-copyright.mjs';
import { glibcOf, withLibc } from './lib/deb-depends.mjs';
import { DOC_DIR, docFiles } from './lib/deb-docs.mjs';
import { assertSameLibraryNeeds, parseTarget } from './lib/target-arch.mjs';

const DIST = path.join(REPO, 'dist');
// SEA ships in the package; RUNNER, the same blob in a Node.js of this machine (SEA itself unless
// it is a cross build), prints the version, completions and man pages.
const TARGET = parseTarget(process.argv.slice(2));
const { exe: SEA, runner: RUNNER, debArch: ARCH } = TARGET;
// Per process: two packagings at once (amd64 and arm64, or a test beside a build) never share a tree.
const STAGE = path.join(DIST, `deb-${process.pid}`, 'root');
const PKG = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const MAINTAINER = process.env.DEBFULLNAME && process.env.DEBEMAIL ? `${process.env.DEBFULLNAME} <${process.env.DEBEMAIL}>` : PKG.author;
/** How deep man pages go: `tsadm init phase certs` gets one, its phases are listed there. */
const MAN_DEPTH = 3;

function run(file, args, opts = {}) {
  return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...opts });
}

function write(rel, content, mode = 0o644) {
  const file = path.join(STAGE, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  chmodSync(file, mode);
}

const gz = (text) => gzipSync(Buffer.from(text), { level: 9 }); // gzip -9n: no name, no time in the header

if (!process.argv.includes('--reuse-sea') || !existsSync(SEA) || !existsSync(RUNNER)) {
  execFileSync(process.execPath, [path.join(REPO, 'scripts', 'build-sea.mjs'), ...TARGET.buildArgs], { cwd: REPO, stdio: 'inherit' });
}
const RUN_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/nonexistent', NO_COLOR: '1' };
const tsadm = (args) => run(RUNNER, args, { env: RUN_ENV });
const info = JSON.parse(tsadm(['version', '-o', 'json'])).clientVersion;
const version = debianVersion(info.gitVersion);
const epoch = process.env.SOURCE_DATE_EPOCH && /^\d+$/.test(process.env.SOURCE_DATE_EPOCH) ? Number(process.env.SOURCE_DATE_EPOCH) : Math.floor(Date.parse(info.buildDate) / 1000);
const when = new Date(epoch * 1000);

rmSync(path.dirname(STAGE), { recursive: true, force: true });
mkdirSync(STAGE, { recursive: true });

// The executable.
mkdirSync(path.join(STAGE, 'usr/bin'), { recursive: true });
copyFileSync(SEA, path.join(STAGE, 'usr/bin/tsadm'));
chmodSync(path.join(STAGE, 'usr/bin/tsadm'), 0o755);

// Completions, from the executable itself (they call `tsadm --get-yargs-completions`).
write('usr/share/bash-completion/completions/tsadm', tsadm(['completion', 'bash']));
write('usr/share/zsh/vendor-completions/_tsadm', tsadm(['completion', 'zsh']));

// Man pages: tsadm(8) and one per command, down to MAN_DEPTH words. NAME is the line the parent's
// Commands section gives the command, SYNOPSIS its usage there (tsadm(8): its own).
// The help texts come from one process: src/help-text.ts bundled as the executable's script is
// (same source, defines and import.meta.url), so ~150 pages cost one start instead of one
// executable start each (~1 s apiece for a cross build's twin, which has no code cache).
const helpBundle = path.join(path.dirname(STAGE), 'help-text.cjs');
await build({
  entryPoints: [path.join(REPO, 'src/help-text.ts')], outfile: helpBundle, bundle: true, format: 'cjs', platform: 'node', target: 'node24',
  legalComments: 'none', logLevel: 'warning',
  define: { ...buildDefines(), 'import.meta.url': '__tsadm_import_meta_url' },
  banner: { js: "const __tsadm_import_meta_url = require('node:url').pathToFileURL(process.execPath).href;" },
});
const { helpText } = createRequire(import.meta.url)(helpBundle);
const manDate = when.toISOString().slice(0, 10);
const pages = [];
const ROOT_PAGE = { summary: 'bootstrap a Kubernetes cluster, kubeadm-compatible', usage: 'tsadm <command>' };
const visit = async (words, entry) => {
  const help = await helpText(words.slice(1), RUN_ENV);
  const children = words.length <= MAN_DEPTH ? commandEntries(help).filter((c) => c.words.length === words.length) : [];
  const childWords = children.map((c) => ['tsadm', ...c.words]);
  const seeAlso = [...(words.length > 1 ? [pageName(words.slice(0, -1))] : []), ...childWords.map(pageName)];
  pages.push({ name: pageName(words), roff: helpToMan({ words, help, version: info.gitVersion, date: manDate, seeAlso, summary: entry.summary, synopsis: `${entry.usage} [flags]` }) });
  for (const [i, c] of children.entries()) await visit(childWords[i], c);
};
await visit(['tsadm'], ROOT_PAGE);
for (const { name, roff } of pages) write(`usr/share/man/man8/${name}.8.gz`, gz(roff));

// copyright (DEP-5): tsadm's, the npm packages esbuild bundles (the inputs of the same bundle
// build-sea.mjs makes) and Node.js's LICENSE. Every arch's node-linux-<arch> package of one version
// carries the same LICENSE, so this machine's copy stands for a cross build's too.
const bundle = await build({
  entryPoints: [path.join(REPO, 'src/entry.ts')], bundle: true, format: 'cjs', platform: 'node', target: 'node24',
  write: false, metafile: true, logLevel: 'error', define: { 'import.meta.url': '__tsadm_import_meta_url' },
});
const nodePackage = path.join(REPO, 'node_modules', `node-linux-${process.arch}`);
// The years of the history (first commit to this build), as the copyright notice wants them.
const firstYear = (() => {
  try {
    return run('git', ['log', '--reverse', '--format=%ad', '--date=format:%Y'], { cwd: REPO, stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0];
  } catch {
    return '';
  }
})();
const buildYear = String(when.getUTCFullYear());
write('usr/share/doc/tsadm/copyright', copyrightFile({
  years: firstYear && firstYear !== buildYear ? `${firstYear}-${buildYear}` : buildYear,
  packages: bundledPackageDirs(bundle.metafile, REPO).map((dir) => ({ path: dir, ...readPackageNotice(path.join(REPO, dir)) })),
  node: { path: 'node_modules/node-linux-*', version: info.nodeVersion, license: readFileSync(path.join(nodePackage, 'LICENSE'), 'utf8') },
}));

// The repository's documentation, at its repository paths under /usr/share/doc/tsadm.
for (const { source, installed } of docFiles(REPO)) write(installed.slice(1), readFileSync(path.join(REPO, source)));

const rfc2822 = when.toUTCString().replace(/GMT$/, '+0000').replace(/^(\w+), (\d) /, '$1, 0$2 ');
write('usr/share/doc/tsadm/changelog.gz', gz([
  `tsadm (${version}) unstable; urgency=medium`,
  '',
  `  * Build of tsadm ${info.gitVersion}`,
  `    (commit ${info.gitCommit || 'unknown'}, tree ${info.gitTreeState || 'unknown'}).`,
  `  * The changes are listed in ${DOC_DIR}/CHANGELOG.md.`,
  '',
  ` -- ${MAINTAINER}  ${rfc2822}`,
  '',
].join('\n')));

// lintian: what it reports that is by design (each with the reason).
write('usr/share/lintian/overrides/tsadm', [
  '# /usr/bin/tsadm is a Node.js single executable: the Node.js binary its project publishes (not',
  '# position independent), with the tsadm bundle injected (scripts/build-sea.mjs).',
  'tsadm: hardening-no-pie [usr/bin/tsadm]',
  "# tsadm reads /var/lib/dpkg/status to tell containerd's config.toml as its package installed it",
  '# from a file the user changed (docs/host.md); it never writes there.',
  'tsadm: uses-dpkg-database-directly [usr/bin/tsadm]',
  '# Node.js links its own zlib (and OpenSSL, ICU, libuv) in statically; it is one binary by design.',
  'tsadm: embedded-library zlib [usr/bin/tsadm]',
  '# Node.js is built with its own compiler flags, not dpkg-buildflags.',
  'tsadm: hardening-no-fortify-functions [usr/bin/tsadm]',
  "# The strings are Node.js's, V8's and bundled npm packages' (comments kept in their code), not tsadm's.",
  'tsadm: spelling-error-in-binary *[usr/bin/tsadm]',
  '',
].join('\n'));

// DEBIAN/: control and md5sums.
const files = [];
const walk = (rel) => {
  for (const name of readdirSync(path.join(STAGE, rel)).sort()) {
    const r = path.posix.join(rel, name);
    if (statSync(path.join(STAGE, r)).isDirectory()) walk(r);
    else files.push(r);
  }
};
walk('');
const installedKiB = Math.ceil(files.reduce((n, f) => n + statSync(path.join(STAGE, f)).size, 0) / 1024);
const md5sums = files.map((f) => `${createHash('md5').update(readFileSync(path.join(STAGE, f))).digest('hex')}  ${f}`).join('\n');
// The shared libraries the embedded Node.js links against, as Debian's own tool words them.
const shlibs = (() => {
  const tmp = path.join(path.dirname(STAGE), 'shlibs');
  mkdirSync(path.join(tmp, 'debian'), { recursive: true });
  writeFileSync(path.join(tmp, 'debian', 'control'), `Source: tsadm\n\nPackage: tsadm\nArchitecture: ${TARGET.host === 'x64' ? 'amd64' : 'arm64'}\n`);
  // A cross build's from its twin: dpkg resolves only this machine's libraries (target-arch.mjs).
  if (TARGET.cross) assertSameLibraryNeeds(SEA, RUNNER);
  const out = run('dpkg-shlibdeps', ['-O', '-e', TARGET.cross ? RUNNER : path.join(STAGE, 'usr/bin/tsadm')], { cwd: tmp, stdio: ['ignore', 'pipe', 'ignore'] });
  rmSync(tmp, { recursive: true, force: true });
  return /shlibs:Depends=(.*)/.exec(out)?.[1]?.trim() ?? 'libc6';
})();
write('DEBIAN/control', [
  'Package: tsadm',
  `Version: ${version}`,
  `Architecture: ${ARCH}`,
  `Maintainer: ${MAINTAINER}`,
  `Installed-Size: ${installedKiB}`,
  `Depends: ${withLibc(shlibs, glibcOf(path.join(STAGE, 'usr/bin/tsadm')))}`,
  'Recommends: containerd',
  'Section: admin',
  `Homepage: ${PKG.homepage}`,
  'Priority: optional',
  'Description: kubeadm-compatible, phased, node-local Kubernetes bootstrapper',
  ' tsadm sets up a Kubernetes control plane or joins a node to a cluster the way',
  ' kubeadm does, with the same configuration files, flags and phases, and adds',
  ' plans for review (--plan, tsadm apply), a machine lock and idempotent phases.',
  ' .',
  ' This package holds one self-contained executable (Node.js inside), its man',
  ' pages, its bash and zsh completions and its documentation.',
  '',
].join('\n'));
write('DEBIAN/md5sums', `${md5sums}\n`);

// Directories 0755; then the package, owned by root, with every mtime at the build's date.
run('find', [STAGE, '-type', 'd', '-exec', 'chmod', '0755', '{}', '+']);
run('find', [STAGE, '-exec', 'touch', '-h', '-d', `@${epoch}`, '{}', '+']);
const deb = path.join(DIST, `tsadm_${version}_${ARCH}.deb`);
for (const old of readdirSync(DIST)) if (old.startsWith('tsadm_') && old.endsWith(`_${ARCH}.deb`)) rmSync(path.join(DIST, old));
// xz at level 1: the executable is ~110 MB and the default level costs a minute more CPU for 5 MB.
run('dpkg-deb', ['--root-owner-group', '-Zxz', '-z1', '--build', STAGE, deb], { env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) }, stdio: ['ignore', 'ignore', 'inherit'] });
console.log(`built ${path.relative(REPO, deb)} (${Math.round(statSync(deb).size / 1e6)} MB, ${pages.length} man pages)`);
rmSync(path.dirname(STAGE), { recursive: true, force: true });
