// The Node.js binary scripts/build-sea.mjs embeds in dist/tsadm, and the checks that it is the one
// the repository pins. It comes from npm's node-linux-<arch> package, declared in package.json
// (optionalDependencies, so that an arm64 machine skips the x64 one and vice versa) at exactly the
// version of the `node` devDependency: package-lock.json then records the sha512 of its tarball,
// which `npm ci` checks. The lock covers the tarball as downloaded, not the file on disk when the
// build runs, so scripts/lib/node-binaries.json records, per version and platform, the tarball's
// integrity and the sha256 of the bin/node inside it; the build reads the binary once, hashes those
// bytes and uses only them (docs/decisions.md, decision 67, says why and how to add a version).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './build-info.mjs';

const PLATFORMS = new Set(['linux-x64', 'linux-arm64']);

function readJson(file, hint) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file} (${err.code ?? err.message}): ${hint}`, { cause: err });
  }
  return JSON.parse(text);
}

/**
 * Checks the pinned Node.js binary for a platform and returns its bytes; throws an Error whose one-line
 * message says what did not match and how to fix it. Every path can be given, so a test can point it
 * at real files and at tampered copies; the build uses the defaults.
 *
 * @param {{ repo?: string, platform?: string, arch?: string, packageDir?: string, pinsFile?: string }} [opts]
 * @returns {{ name: string, version: string, sha256: string, bytes: Buffer }}
 */
export function pinnedNodeBinary(opts = {}) {
  const repo = opts.repo ?? REPO;
  const key = `${opts.platform ?? process.platform}-${opts.arch ?? process.arch}`;
  if (!PLATFORMS.has(key)) throw new Error(`build:sea has no pinned Node.js for ${key}: it builds on ${[...PLATFORMS].join(' and ')}`);
  const name = `node-${key}`;
  const pkg = readJson(path.join(repo, 'package.json'), 'run it in a checkout of tsadm');
  const version = pkg.optionalDependencies?.[name];
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`package.json pins no exact version of ${name} (optionalDependencies has ${JSON.stringify(version)}): set it to the version of the node devDependency`);
  }
  const lock = readJson(path.join(repo, 'package-lock.json'), 'run `npm install --package-lock-only` to write it');
  const locked = lock.packages?.[`node_modules/${name}`];
  if (lock.packages?.['']?.optionalDependencies?.[name] !== version || locked?.version !== version || typeof locked.integrity !== 'string') {
    throw new Error(`package-lock.json does not lock ${name}@${version} with an integrity: run \`npm install --package-lock-only\` and commit package-lock.json`);
  }
  const lockedNode = lock.packages['node_modules/node']?.version;
  if (lockedNode !== version) {
    throw new Error(`the node devDependency is locked at ${lockedNode} but ${name} at ${version}: pin ${name} (package.json optionalDependencies) at the node version, so the executable embeds the Node.js the tests ran with`);
  }
  const pin = readJson(opts.pinsFile ?? path.join(repo, 'scripts/lib/node-binaries.json'), 'it is part of the repository')[version]?.[key];
  if (pin === undefined) {
    throw new Error(`scripts/lib/node-binaries.json has no sha256 of ${name}@${version}'s binary: add it as docs/decisions.md (decision 67) describes`);
  }
  if (pin.integrity !== locked.integrity) {
    throw new Error(`package-lock.json's integrity of ${name}@${version} is not the one scripts/lib/node-binaries.json hashed the binary of: the locked tarball changed; check it as docs/decisions.md (decision 67) describes`);
  }
  const packageDir = opts.packageDir ?? path.join(repo, 'node_modules', name);
  const installed = readJson(path.join(packageDir, 'package.json'), 'run `npm ci`, which installs it from package-lock.json');
  if (installed.name !== name || installed.version !== version) {
    throw new Error(`${packageDir} holds ${installed.name}@${installed.version}, not the locked ${name}@${version}: run \`npm ci\``);
  }
  const bytes = readFileSync(path.join(packageDir, 'bin', 'node'));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== pin.sha256) {
    throw new Error(`${path.join(packageDir, 'bin', 'node')} has sha256 ${sha256}, not the ${pin.sha256} of ${name}@${version}'s locked tarball: the file changed after npm installed it; run \`npm ci\``);
  }
  return { name, version, sha256, bytes };
}
