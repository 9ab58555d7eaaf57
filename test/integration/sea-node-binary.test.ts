/**
 * The Node.js binary inside dist/tsadm is the one the repository pins (scripts/lib/node-binary.mjs):
 * npm's node-linux-<arch> at the `node` devDependency's version, locked with its integrity in
 * package-lock.json, and byte for byte the binary whose sha256 scripts/lib/node-binaries.json
 * records. Checked on the real installed files, then on copies changed in one place each; the last
 * test runs scripts/build-sea.mjs itself on a tampered copy and sees it stop before building.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeWithOracles, fileOracle } from '../helpers/oracle.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NAME = `node-${process.platform}-${process.arch}`;
const PACKAGE = path.join(REPO, 'node_modules', NAME);
const LIB = pathToFileURL(path.join(REPO, 'scripts/lib/node-binary.mjs')).href;
const pinnedNode = fileOracle(`npm's ${NAME} (the pinned Node.js of the single executable)`, () => path.join(PACKAGE, 'bin', 'node'), 'npm ci');

interface Checked { readonly name: string; readonly version: string; readonly sha256: string; readonly size: number }

/** Runs pinnedNodeBinary(opts) in a child Node (the script is plain ESM) and returns its result or its error. */
function check(opts: Record<string, string> = {}): { ok: true; value: Checked } | { ok: false; error: string } {
  const code = `import(${JSON.stringify(LIB)}).then((m) => { const { bytes, ...r } = m.pinnedNodeBinary(JSON.parse(process.argv[1])); process.stdout.write(JSON.stringify({ ...r, size: bytes.length })); })`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code, JSON.stringify(opts)], { encoding: 'utf8', timeout: 60_000 });
  if (r.status === 0) return { ok: true, value: JSON.parse(r.stdout) as Checked };
  const line = /^Error: (.*)$/m.exec(r.stderr);
  return { ok: false, error: line?.[1] ?? r.stderr };
}

interface PackageJson { name?: string; version?: string; optionalDependencies?: Record<string, string> }
interface PackageLock { packages: Record<string, { version?: string; integrity?: string }> }
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const flip = (b: Buffer, at: number, mask: number): void => { b.writeUInt8(b.readUInt8(at) ^ mask, at); };
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describeWithOracles([pinnedNode])('the Node.js binary the single executable embeds', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-sea-node-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A copy of the installed package: package.json (edited by `pkg`) and bin/node (edited by `bin`). */
  function packageCopy(name: string, edit: { pkg?: (p: PackageJson) => void; bin?: (b: Buffer) => void }): string {
    const copy = path.join(dir, name);
    mkdirSync(path.join(copy, 'bin'), { recursive: true });
    const pkg = readJson<PackageJson>(path.join(PACKAGE, 'package.json'));
    edit.pkg?.(pkg);
    writeFileSync(path.join(copy, 'package.json'), JSON.stringify(pkg));
    if (edit.bin) {
      const bytes = readFileSync(path.join(PACKAGE, 'bin', 'node'));
      edit.bin(bytes);
      writeFileSync(path.join(copy, 'bin', 'node'), bytes, { mode: 0o755 });
    } else {
      symlinkSync(path.join(PACKAGE, 'bin', 'node'), path.join(copy, 'bin', 'node'));
    }
    return copy;
  }

  /** A checkout with package.json and package-lock.json, the lock edited by `edit`. */
  function repoCopy(name: string, edit: (lock: PackageLock) => void): string {
    const copy = path.join(dir, name);
    mkdirSync(copy);
    cpSync(path.join(REPO, 'package.json'), path.join(copy, 'package.json'));
    const lock = readJson<PackageLock>(path.join(REPO, 'package-lock.json'));
    edit(lock);
    writeFileSync(path.join(copy, 'package-lock.json'), JSON.stringify(lock));
    return copy;
  }

  test('the installed binary is the locked one: the node devDependency\'s version, its recorded sha256', () => {
    const pkg = readJson<PackageJson>(path.join(REPO, 'package.json'));
    const lock = readJson<PackageLock>(path.join(REPO, 'package-lock.json'));
    const version = lock.packages['node_modules/node']?.version ?? '(not locked)';
    // Pinned exactly, and locked with the integrity npm ci checks.
    expect(pkg.optionalDependencies?.[NAME]).toBe(version);
    expect(lock.packages[`node_modules/${NAME}`]?.version).toBe(version);
    expect(lock.packages[`node_modules/${NAME}`]?.integrity).toMatch(/^sha512-/);
    const r = check();
    if (!r.ok) throw new Error(r.error);
    expect(r.value).toEqual({ name: NAME, version, sha256: sha256(path.join(PACKAGE, 'bin', 'node')), size: readFileSync(path.join(PACKAGE, 'bin', 'node')).length });
    // The binary runs and is the version pinned.
    const v = spawnSync(path.join(PACKAGE, 'bin', 'node'), ['--version'], { encoding: 'utf8' });
    expect(v.stdout.trim()).toBe(`v${version}`);
  });

  test('a binary changed in one byte is refused, naming both hashes', () => {
    const tampered = packageCopy('one-byte', { bin: (b) => { flip(b, b.length - 1024, 0xff); } });
    const got = sha256(path.join(tampered, 'bin', 'node'));
    const r = check({ packageDir: tampered });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(`has sha256 ${got}, not the ${sha256(path.join(PACKAGE, 'bin', 'node'))}`);
    // The same copy untouched passes: the refusal is the byte, not the copy.
    expect(check({ packageDir: packageCopy('untouched', {}) }).ok).toBe(true);
  });

  test('an installed package of another version is refused', () => {
    const other = packageCopy('other-version', { pkg: (p) => { p.version = '24.0.0'; } });
    const r = check({ packageDir: other });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(`holds ${NAME}@24.0.0, not the locked ${NAME}@`);
  });

  test('a lockfile whose tarball is not the one the recorded sha256 came from is refused', () => {
    const repo = repoCopy('other-integrity', (lock) => { lock.packages[`node_modules/${NAME}`] = { ...lock.packages[`node_modules/${NAME}`], integrity: `sha512-${createHash('sha512').update('another tarball').digest('base64')}` }; });
    const r = check({ repo, packageDir: PACKAGE, pinsFile: path.join(REPO, 'scripts/lib/node-binaries.json') });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain('the locked tarball changed');
  });

  test('a node devDependency locked at another version than the pinned binary is refused', () => {
    const repo = repoCopy('node-bumped', (lock) => { lock.packages['node_modules/node'] = { ...lock.packages['node_modules/node'], version: '24.99.0' }; });
    const r = check({ repo, packageDir: PACKAGE, pinsFile: path.join(REPO, 'scripts/lib/node-binaries.json') });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain('the node devDependency is locked at 24.99.0');
  });

  test('scripts/build-sea.mjs stops on a tampered binary before building anything', () => {
    const tampered = packageCopy('for-build', { bin: (b) => { flip(b, 4096, 0x01); } });
    const r = spawnSync(process.execPath, [path.join(REPO, 'scripts/build-sea.mjs')], {
      cwd: REPO, encoding: 'utf8', timeout: 180_000, env: { ...process.env, TSADM_SEA_NODE_PACKAGE: tampered },
    });
    expect(r.stderr).toContain(`build:sea: ${path.join(tampered, 'bin', 'node')} has sha256 `);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('built dist/tsadm');
    // Nothing of this build is left in dist/ (its work dir and partial file are named by its pid).
    expect(existsSync(path.join(REPO, 'dist', `sea-${r.pid}`))).toBe(false);
    expect(existsSync(path.join(REPO, 'dist', `.tsadm-${r.pid}`))).toBe(false);
  }, 180_000);
});
