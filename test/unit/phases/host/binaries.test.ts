/**
 * The binaries host leaf (src/phases/host/binaries.ts) with --bundle, on a --rootfs temp tree
 * with a fake running system (test/helpers/host-phase.ts): verified binaries installed, refused
 * before anything is written, nothing of the bundle executed in a dry run (issue 27).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_BUNDLE_BINARY_BYTES, MAX_BUNDLE_SUMS_BYTES } from '../../../../src/phases/host/bundle.js';
import { bare, hostPhaseRootEachTest } from '../../../helpers/host-phase.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';

const h = hostPhaseRootEachTest();
const { run, read } = h;

describe('binaries (--bundle)', () => {
  /** Stand-ins that answer the version commands as the real binaries do (the e2e installs the real ones). */
  const script = (out: string): string => `#!/bin/sh\necho '${out}'\n`;
  const kubelet = (v: string): string => script(`Kubernetes ${v}`);
  const kubectl = (v: string): string => script(`{"clientVersion":{"major":"1","minor":"20","gitVersion":"${v}"}}`);
  const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
  let bundle: TempRoot;
  afterEach(() => bundle.cleanup());

  function makeBundle(files: Record<string, string>, sums: 'file' | 'per-file' | 'none' = 'file'): string {
    bundle = tempRoot({});
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(bundle.at(`/${name}`), text, { mode: 0o755 });
      if (sums === 'per-file') writeFileSync(bundle.at(`/${name}.sha256`), `${sha(text)}  ${name}\n`);
    }
    if (sums === 'file') writeFileSync(bundle.at('/SHA256SUMS'), Object.entries(files).map(([n, t]) => `${sha(t)}  ${n}\n`).join(''));
    return bundle.dir;
  }

  test('verified binaries installed into /usr/bin (0755); a second run writes nothing; without --bundle nothing', async () => {
    const dir = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2'), crictl: script('crictl version v1.20.0') });
    const first = await run(bare(), { only: 'host/binaries', flags: { bundle: dir } });
    expect(first.changed.sort()).toEqual(['/usr/bin/crictl', '/usr/bin/kubectl', '/usr/bin/kubelet']);
    expect(read('/usr/bin/kubelet')).toBe(kubelet('v1.20.2'));
    expect(statSync(h.root.at('/usr/bin/kubectl')).mode & 0o777).toBe(0o755);
    expect((await run(bare(), { only: 'host/binaries', flags: { bundle: dir } })).changed).toEqual([]);
    expect((await run(bare(), { only: 'host/binaries' })).changed).toEqual([]);
  });

  test('per-file .sha256 digests; crictl optional', async () => {
    const dir = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.21.0') }, 'per-file');
    const r = await run(bare(), { only: 'host/binaries', flags: { bundle: dir } });
    expect(r.changed.sort()).toEqual(['/usr/bin/kubectl', '/usr/bin/kubelet']);
  });

  test('refused before anything is written: a damaged binary, a binary without a digest, a kubelet newer than the cluster, no kubectl', async () => {
    const before = read('/usr/bin/kubelet');
    const damaged = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2') });
    writeFileSync(path.join(damaged, 'kubectl'), kubectl('v1.20.3'));
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: damaged } })).rejects.toThrow(/kubectl does not match its listed digest/);
    bundle.cleanup();
    const unlisted = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2') }, 'none');
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: unlisted } })).rejects.toThrow(/lists no SHA-256 digest for kubelet/);
    bundle.cleanup();
    const newer = makeBundle({ kubelet: kubelet('v1.21.0'), kubectl: kubectl('v1.20.2') });
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: newer } })).rejects.toThrow(/kubelet v1.21.0 is newer than the cluster's v1.20.2/);
    bundle.cleanup();
    const noKubectl = makeBundle({ kubelet: kubelet('v1.20.2') });
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: noKubectl } })).rejects.toThrow(/has no kubectl/);
    await expect(run(bare(), { only: 'host/binaries', flags: { bundle: noKubectl } })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID' });
    expect(read('/usr/bin/kubelet')).toBe(before);
    expect(existsSync(h.root.at('/usr/bin/kubectl'))).toBe(false);
  });

  test('issue 27: a dry run executes nothing from the bundle, and says the versions were not checked', async () => {
    const marker = path.join(h.root.dir, '..', `${path.basename(h.root.dir)}-ran`);
    // Binaries that leave a marker when run (and would answer a version check).
    const ran = (out: string): string => `#!/bin/sh
touch '${marker}'
echo '${out}'
`;
    const dir = makeBundle({ kubelet: ran('Kubernetes v1.20.2'), kubectl: ran('{"clientVersion":{"gitVersion":"v1.20.2"}}') });
    const { reporter } = await run(bare(), { only: 'host/binaries', flags: { bundle: dir }, dryRun: true });
    expect(existsSync(marker)).toBe(false);
    expect(reporter.lines().join('\n')).toContain("dry run: the versions of the bundle's binaries (kubelet, kubectl) were not checked: a dry run executes nothing from the bundle");
    expect(reporter.lines().join('\n')).toContain('Installing /usr/bin/kubelet (version not checked: dry run, sha256 verified)');
    expect(read('/usr/bin/kubelet')).toBe('');
  });

  test('issue 27: a real run executes a private copy of exactly the verified bytes, never the bundle\'s path, and removes it', async () => {
    const seen = path.join(h.root.dir, '..', `${path.basename(h.root.dir)}-argv0`);
    // Each binary records the path it was started from: the bundle's own path could be swapped after the digest check.
    const reporting = (out: string): string => `#!/bin/sh
echo "$0" >> '${seen}'
echo '${out}'
`;
    const dir = makeBundle({ kubelet: reporting('Kubernetes v1.20.2'), kubectl: reporting('{"clientVersion":{"gitVersion":"v1.20.2"}}') });
    try {
      await run(bare(), { only: 'host/binaries', flags: { bundle: dir } });
      const started = readFileSync(seen, 'utf8').trim().split('\n');
      expect(started).toHaveLength(2);
      for (const p of started) {
        expect(p.startsWith(dir)).toBe(false);
        expect(path.basename(path.dirname(p))).toMatch(/^tsadm-bundle-/);
        expect(existsSync(path.dirname(p))).toBe(false);
      }
      expect(read('/usr/bin/kubelet')).toBe(reporting('Kubernetes v1.20.2'));
    } finally {
      rmSync(seen, { force: true });
    }
  });

  describe('files of the bundle are read through the safe reader: refused with a clear error, nothing written, nothing hung', () => {
    const cases: Array<[string, (dir: string) => void, (dir: string) => string]> = [
      ['kubelet a symbolic link to /dev/zero (a device: not read at all)', (dir) => {
        unlinkSync(path.join(dir, 'kubelet'));
        symlinkSync('/dev/zero', path.join(dir, 'kubelet'));
      }, (dir) => `refusing to read ${dir}/kubelet from --bundle: it is not a regular file`],
      ['kubelet a FIFO nobody writes (the open does not wait for a writer)', (dir) => {
        unlinkSync(path.join(dir, 'kubelet'));
        execFileSync('mkfifo', [path.join(dir, 'kubelet')]);
      }, (dir) => `refusing to read ${dir}/kubelet from --bundle: it is not a regular file`],
      ['SHA256SUMS a FIFO', (dir) => {
        unlinkSync(path.join(dir, 'SHA256SUMS'));
        execFileSync('mkfifo', [path.join(dir, 'SHA256SUMS')]);
      }, (dir) => `refusing to read ${dir}/SHA256SUMS from --bundle: it is not a regular file`],
      ['kubelet above the limit (sparse: no disk or memory spent)', (dir) => {
        truncateSync(path.join(dir, 'kubelet'), MAX_BUNDLE_BINARY_BYTES + 1);
      }, (dir) => `refusing to read ${dir}/kubelet from --bundle: it is ${MAX_BUNDLE_BINARY_BYTES + 1} bytes, more than the 512 MiB a bundle's kubelet may have`],
      ['kubectl.sha256 above the limit', (dir) => {
        writeFileSync(path.join(dir, 'kubectl.sha256'), '');
        truncateSync(path.join(dir, 'kubectl.sha256'), MAX_BUNDLE_SUMS_BYTES + 1);
      }, (dir) => `refusing to read ${dir}/kubectl.sha256 from --bundle: it is ${MAX_BUNDLE_SUMS_BYTES + 1} bytes, more than the 1 MiB a bundle's kubectl.sha256 may have`],
    ];
    test.each(cases)('%s', async (_name, spoil, message) => {
      const dir = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2') });
      spoil(dir);
      for (const dryRun of [true, false]) {
        const err = await run(bare(), { only: 'host/binaries', flags: { bundle: dir }, dryRun }).then(() => undefined, (e: unknown) => e as { code?: string; message?: string; hint?: string });
        expect([err?.code, err?.message]).toEqual(['E_CONFIG_INVALID', `error execution phase host/binaries: ${message(dir)}`]);
        expect(err?.hint).toContain('give --bundle a directory with kubelet, kubectl');
      }
      expect(read('/usr/bin/kubelet')).toBe('');
      expect(existsSync(h.root.at('/usr/bin/kubectl'))).toBe(false);
    });

    test('a file of exactly the limit is read (the limit is not off by one)', async () => {
      const dir = makeBundle({ kubelet: kubelet('v1.20.2'), kubectl: kubectl('v1.20.2') });
      // The digest, then NUL padding up to the limit: parsed as the digest alone, agreeing with SHA256SUMS.
      writeFileSync(path.join(dir, 'kubectl.sha256'), `${sha(kubectl('v1.20.2'))}\n`);
      truncateSync(path.join(dir, 'kubectl.sha256'), MAX_BUNDLE_SUMS_BYTES);
      const r = await run(bare(), { only: 'host/binaries', flags: { bundle: dir } });
      expect(r.changed.sort()).toEqual(['/usr/bin/kubectl', '/usr/bin/kubelet']);
      expect(read('/usr/bin/kubectl')).toBe(kubectl('v1.20.2'));
    });
  });
});
