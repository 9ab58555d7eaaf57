// The architecture a single executable and its .deb are built for (`npm run package -- --arch
// arm64`, `node scripts/build-sea.mjs --arch arm64`), and what a cross build needs that a native one
// does not: the target's pinned Node.js when npm did not install it, a host-runnable twin of the
// executable, and a check that the host's Depends also holds for the target (docs/decisions.md,
// "The arm64 package is cross-built").
//
// Native (the target is the machine's own arch): dist/tsadm, as before. Cross: dist/tsadm-<arch>
// (the target's Node.js with the blob) and dist/tsadm-<arch>.<host arch> (the host's Node.js with
// the same blob): package-deb runs the twin for the version, completions and man pages, which then
// come from the very bundle the package ships, in milliseconds instead of seconds per run under qemu.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './build-info.mjs';

/** Node's arch names (process.arch, npm's `cpu`) by the names a user may give. */
const ALIASES = { x64: 'x64', amd64: 'x64', arm64: 'arm64', aarch64: 'arm64' };
/** Debian's architecture by Node's. */
const DEB_ARCH = { x64: 'amd64', arm64: 'arm64' };
/** ELF e_machine by Node's arch name (the ELF specification's EM_X86_64 and EM_AARCH64). */
const ELF_MACHINE = { x64: 62, arm64: 183 };
/** binutils' cross strip of Debian's binutils-<triplet> packages: the host's strip reads only its own arch. */
const CROSS_STRIP = { x64: 'x86_64-linux-gnu-strip', arm64: 'aarch64-linux-gnu-strip' };

/**
 * The target named by `--arch X` or `--arch=X` in ARGV (Node's or Debian's name), else the host's.
 * Throws on an unknown name or a missing value.
 *
 * @param {readonly string[]} argv
 * @param {string} [host] Node's name of the host's arch (process.arch)
 */
export function parseTarget(argv, host = process.arch) {
  let given;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--arch') {
      given = argv[i + 1];
      if (given === undefined || given.startsWith('-')) throw new Error('--arch needs a value: amd64 or arm64');
    } else if (argv[i].startsWith('--arch=')) given = argv[i].slice('--arch='.length);
  }
  const arch = given === undefined ? host : ALIASES[given];
  if (arch === undefined) throw new Error(`--arch ${given}: not a target; tsadm builds for amd64 (x64) and arm64 (aarch64)`);
  if (DEB_ARCH[host] === undefined) throw new Error(`cannot build on ${host}: build hosts are x64 and arm64`);
  const cross = arch !== host;
  const dist = path.join(REPO, 'dist');
  return {
    /** Node's name (node-linux-<arch>). */
    arch,
    /** Debian's name (the control file's Architecture). */
    debArch: DEB_ARCH[arch],
    host,
    cross,
    /** The executable for the target. */
    exe: path.join(dist, cross ? `tsadm-${arch}` : 'tsadm'),
    /** An executable with the same blob that runs here (the exe itself when native). */
    runner: path.join(dist, cross ? `tsadm-${arch}.${host}` : 'tsadm'),
    /** The arguments build-sea.mjs takes for it. */
    buildArgs: cross ? ['--arch', arch] : [],
  };
}

/** ELF e_machine of BYTES (an ELF file's first 20 bytes at least), or undefined for a non-ELF. */
function elfMachine(bytes) {
  if (bytes.length < 20 || bytes.readUInt32BE(0) !== 0x7f454c46) return undefined;
  return bytes[5] === 2 ? bytes.readUInt16BE(18) : bytes.readUInt16LE(18);
}

/** Throws unless BYTES (a file's start) are an ELF executable for ARCH (Node's name); WHAT names the file. */
export function assertElfFor(bytes, arch, what) {
  const m = elfMachine(bytes);
  if (m !== ELF_MACHINE[arch]) throw new Error(`${what} is ${m === undefined ? 'not an ELF file' : `ELF machine ${m}`}, not ${arch} (${ELF_MACHINE[arch]})`);
}

/** The strip program for ARCH's binaries on HOST (undefined: none known). */
export function stripFor(arch, host = process.arch) {
  return arch === host ? 'strip' : CROSS_STRIP[arch];
}

/**
 * The directory of npm's node-linux-<ARCH> package at the locked version: node_modules' when npm
 * installed it (the host's arch; npm ci skips a package whose `cpu` is another), else a copy
 * fetched with `npm pack` into node_modules/.cache/tsadm/, accepted only when the tarball's sha512
 * is package-lock.json's integrity (pinnedNodeBinary then checks the binary's sha256 as for the
 * host's). npm's own cache keeps the tarball, so a second fetch after `npm ci` is offline.
 *
 * @returns {string}
 */
export function nodePackageDir(arch, repo = REPO) {
  const name = `node-linux-${arch}`;
  const installed = path.join(repo, 'node_modules', name);
  if (existsSync(path.join(installed, 'bin', 'node'))) return installed;
  const lock = JSON.parse(readFileSync(path.join(repo, 'package-lock.json'), 'utf8'));
  const locked = lock.packages?.[`node_modules/${name}`];
  if (typeof locked?.version !== 'string' || typeof locked.integrity !== 'string') {
    throw new Error(`package-lock.json does not lock ${name}: it is an optionalDependency at the node version (docs/decisions.md, decision 67)`);
  }
  const cache = path.join(repo, 'node_modules', '.cache', 'tsadm', `${name}-${locked.version}`);
  if (existsSync(path.join(cache, 'package', 'bin', 'node'))) return path.join(cache, 'package');
  const work = `${cache}.${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const packed = JSON.parse(execFileSync('npm', ['pack', `${name}@${locked.version}`, '--json', '--pack-destination', work], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    const tgz = path.join(work, packed[0].filename);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
    if (integrity !== locked.integrity) {
      throw new Error(`npm pack ${name}@${locked.version} gave a tarball with ${integrity}, not package-lock.json's ${locked.integrity}`);
    }
    execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/package.json', 'package/bin/node', 'package/LICENSE'], { stdio: 'inherit' });
    rmSync(tgz);
    rmSync(cache, { recursive: true, force: true });
    renameSync(work, cache); // whole or not at all: a concurrent build sees a complete copy
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return path.join(cache, 'package');
}

/** The shared libraries FILE needs (readelf reads any arch's ELF) and its highest GLIBC_ version. */
function libraryNeeds(file) {
  const dyn = execFileSync('readelf', ['-d', '-W', file], { encoding: 'utf8' });
  const needed = [...dyn.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]).filter((l) => !l.startsWith('ld-linux'));
  const versions = execFileSync('readelf', ['-V', '-W', file], { encoding: 'utf8' });
  const glibc = [...versions.matchAll(/Name: GLIBC_(\d+(?:\.\d+)*)/g)].map((m) => m[1].split('.').map(Number));
  const cmp = (a, b) => { for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0); return 0; };
  const max = glibc.reduce((m, v) => (cmp(v, m) > 0 ? v : m), [0]);
  return { needed: needed.sort(), glibc: max, cmp };
}

/**
 * A cross build's Depends comes from dpkg-shlibdeps on the host twin (dpkg has no arm64 libraries to
 * resolve the target's against here). That holds for the target only if it needs the same libraries
 * and no newer glibc: checked here, or the build stops.
 */
export function assertSameLibraryNeeds(target, twin) {
  const t = libraryNeeds(target);
  const h = libraryNeeds(twin);
  if (t.needed.join(' ') !== h.needed.join(' ')) throw new Error(`${target} needs ${t.needed.join(', ')} but ${twin} needs ${h.needed.join(', ')}: the twin's Depends would be wrong`);
  if (t.cmp(t.glibc, h.glibc) > 0) throw new Error(`${target} needs GLIBC_${t.glibc.join('.')}, newer than ${twin}'s GLIBC_${h.glibc.join('.')}: the twin's Depends would be too low`);
}
