// Builds dist/tsadm: one executable file that runs on a machine without Node.js (Node's
// single-executable applications). Steps: bundle the CLI into one CommonJS file (SEA runs a
// CommonJS script and its require() sees only built-in modules, so every dependency and every
// dynamic import is inlined); turn it into a SEA blob with `node --experimental-sea-config`;
// copy the pinned node binary and inject the blob with postject (the sentinel fuse tells node to
// run it). The binary is npm's node-linux-<arch> that package-lock.json locks, checked against the
// sha256 the repository records (scripts/lib/node-binary.mjs), never the Node that runs this script.
// `--arch arm64` on an x64 host (or x64 on arm64) is a cross build: dist/tsadm-<arch> and its host
// twin dist/tsadm-<arch>.<host> (scripts/lib/target-arch.mjs), the blob without a code cache.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDefines } from './lib/build-info.mjs';
import { pinnedNodeBinary } from './lib/node-binary.mjs';
import { assertElfFor, nodePackageDir, parseTarget, stripFor } from './lib/target-arch.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Per-process work dir and temp output, renamed onto dist/tsadm at the end: `npm test` runs the
// unit and e2e projects at once, and both sea tests build the executable; a copy another process
// is making or running must never be overwritten in place.
const work = path.join(repo, 'dist', `sea-${process.pid}`);
let target;
try {
  target = parseTarget(process.argv.slice(2));
} catch (err) {
  console.error(`build:sea: ${err.message}`);
  process.exit(2);
}
const out = target.exe;
const partial = path.join(repo, 'dist', `.tsadm-${process.pid}`);
// Cross build: the host's pinned Node.js, which makes the blob and gets it too (the twin).
const partialTwin = path.join(repo, 'dist', `.tsadm-twin-${process.pid}`);
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

// Checked first, before anything is built: a binary that is not the locked one stops the build.
// TSADM_SEA_NODE_PACKAGE names another directory holding the package (the tests' tampered copy);
// it passes the same checks or nothing is built.
let node;
let hostNode;
try {
  const packageDir = process.env.TSADM_SEA_NODE_PACKAGE || (target.cross ? nodePackageDir(target.arch) : undefined);
  node = pinnedNodeBinary({ arch: target.arch, packageDir });
  assertElfFor(node.bytes, target.arch, `${node.name}'s bin/node`);
  if (target.cross) hostNode = pinnedNodeBinary();
} catch (err) {
  console.error(`build:sea: ${err.message}`);
  process.exit(1);
}

let inject;
try {
  ({ inject } = await import('postject'));
} catch {
  console.error('build:sea needs the postject package (a devDependency): run `npm ci` first');
  process.exit(1);
}

// A failed build leaves neither its work dir nor its partial executable (126 MB) behind.
process.on('exit', () => {
  rmSync(work, { recursive: true, force: true });
  rmSync(partial, { force: true });
  rmSync(partialTwin, { force: true });
});
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
// The checked bytes, written once into this build's own file: the blob is made by them and they
// are what the blob goes into, so the file the check read can change afterwards without reaching
// the build.
rmSync(partial, { force: true });
writeFileSync(partial, node.bytes, { mode: 0o755, flag: 'wx' });
if (hostNode) {
  rmSync(partialTwin, { force: true });
  writeFileSync(partialTwin, hostNode.bytes, { mode: 0o755, flag: 'wx' });
}
const main = path.join(work, 'tsadm.cjs');
await build({
  entryPoints: [path.join(repo, 'src/entry.ts')],
  outfile: main,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node24',
  legalComments: 'none',
  logLevel: 'warning',
  // Start-up (issue 17): node reads and hashes the whole script on every start, code cache or
  // not; minified it is half the size, and with the code cache below the executable starts as
  // fast as bin/tsadm (~60 ms for `version`, against ~120 ms unminified without a cache).
  // keepNames keeps function and class names in stack traces and error output.
  minify: true,
  keepNames: true,
  define: {
    ...buildDefines(),
    // ESM dependencies read import.meta.url; in the executable it is the executable itself.
    'import.meta.url': '__tsadm_import_meta_url',
  },
  banner: { js: "const __tsadm_import_meta_url = require('node:url').pathToFileURL(process.execPath).href;" },
});

const blob = path.join(work, 'tsadm.blob');
const config = path.join(work, 'sea-config.json');
// useCodeCache: V8's compiled code goes into the blob, so start-up skips compiling the bundle.
// execArgv: V8's optimising tiers off, as bin/tsadm's LEAN_V8_FLAGS (a short run never repays
// them), and a 1 MB young generation, which only a start-up flag can set: `init --dry-run` peaks
// at ~95 MB RSS instead of ~112 (BENCHMARKS.md, issue 28).
// execArgvExtension 'none': the executable ignores NODE_OPTIONS (Node's default, 'env', applies
// it), so `NODE_OPTIONS=--require x.js tsadm …` or `--inspect` run as root cannot load code or
// open a debugger in it (docs/safety.md, "The executable").
const execArgv = ['--no-opt', '--no-maglev', '--no-sparkplug', '--max-semi-space-size=1'];
// A cross build has no code cache: V8's cache is made for the CPU of the Node.js that writes it, and
// the target's cannot run here (Node's SEA docs: a cross-platform blob sets useCodeCache and
// useSnapshot false). Its blob is the script alone, which either Node.js runs; the cost is start-up
// (~120 ms instead of ~60 for `version` on x64, the figures above).
writeFileSync(config, JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache: !target.cross, execArgv, execArgvExtension: 'none' }));
// The code cache is made by the Node.js that runs it (the embedded one) under the same V8 flags,
// or V8 rejects it at start-up (its version or flag hash differs). NODE_OPTIONS is not passed on.
const env = { ...process.env };
delete env.NODE_OPTIONS;
execFileSync(target.cross ? partialTwin : partial, [...execArgv, '--experimental-sea-config', config], { stdio: 'inherit', env });

// npm's node-linux-<arch> binary carries its debug symbols (~18 MB of 126): drop them before the
// blob goes in (binutils' strip; skipped where it is missing). Stack traces are V8's, not native.
// The host's strip reads only the host's arch: a cross target needs binutils-aarch64-linux-gnu's.
const stripped = [[partial, target.arch], ...(hostNode ? [[partialTwin, target.host]] : [])].map(([file, arch]) => {
  try {
    execFileSync(stripFor(arch), ['--strip-unneeded', '--remove-section=.comment', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false; // no strip here: the executable keeps the symbols
  }
});
if (!stripped[0]) console.error(`build:sea: ${stripFor(target.arch)} did not run: ${path.relative(repo, out)} keeps its debug symbols`);
if (hostNode) {
  await inject(partialTwin, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: FUSE });
  renameSync(partialTwin, target.runner);
}
await inject(partial, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: FUSE });
renameSync(partial, out);
if (hostNode) console.log(`built ${path.relative(repo, target.runner)} (the same blob in ${hostNode.name}, to run here)`);
console.log(`built ${path.relative(repo, out)} (${Math.round(readFileSync(out).length / 1e6)} MB, Node.js v${node.version} inside: ${node.name}, sha256 ${node.sha256})`);
