/**
 * The rooted host's guards, in process: what a hostile machine state can and cannot make tsadm
 * do (src/host/safe-fs.ts, src/host/atomic-write.ts, src/host/rooted-host.ts). The same holes
 * through the CLI are cases of the hostile corpus.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_READ_BYTES, assertInsideRoot, openRegularFile, readRegularFile, regularFileChunks } from '../../../src/host/safe-fs.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { isTsadmError } from '../../../src/errors.js';
import { scratchRootEachTest } from '../../helpers/scratch-root.js';

const scratch = scratchRootEachTest('tsadm-safefs-');

async function message(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return isTsadmError(err) ? `${err.code}: ${err.message}` : `not a TsadmError: ${String(err)}`;
  }
  return 'no error';
}

const KUBE = '/etc/kubernetes';
const W = { mode: 0o600, kind: 'private-key' as const, description: 'test key' };

describe('containment under --rootfs', () => {
  test('links that stay inside the rootfs are followed (relative, and absolute to the real rootfs path)', async () => {
    mkdirSync(path.join(scratch.root, 'data/pki'), { recursive: true });
    symlinkSync('../../data/pki', path.join(scratch.root, 'etc/kubernetes/pki'));
    const host = new RootedHost(scratch.root);
    await host.writeFile(`${KUBE}/pki/ca.key`, 'k', W);
    expect(readFileSync(path.join(scratch.root, 'data/pki/ca.key'), 'utf8')).toBe('k');
    symlinkSync(path.join(scratch.root, 'data'), path.join(scratch.root, 'etc/kubernetes/data'));
    expect((await host.readFile(`${KUBE}/data/pki/ca.key`))?.toString()).toBe('k');
    // A relocated directory reached through a link is used as it is (kubeadm's MkdirAll).
    await host.mkdir(`${KUBE}/pki`, 0o755);
  });

  test('links leading out are refused for read, readdir, write, mkdir and remove; nothing outside changes', async () => {
    writeFileSync(path.join(scratch.outside, 'victim'), 'precious');
    symlinkSync(scratch.outside, path.join(scratch.root, 'etc/kubernetes/pki'));
    symlinkSync(path.join(scratch.outside, 'victim'), path.join(scratch.root, 'etc/kubernetes/admin.conf'));
    const host = new RootedHost(scratch.root);
    const out = `leads outside the --rootfs (to ${scratch.outside}`;
    expect(await message(host.readFile(`${KUBE}/pki/victim`))).toContain(out);
    expect(await message(host.readdir(`${KUBE}/pki`))).toContain(out);
    expect(await message(host.readFile(`${KUBE}/admin.conf`))).toContain(`leads outside the --rootfs (to ${scratch.outside}/victim)`);
    expect(await message(host.writeFile(`${KUBE}/pki/ca.key`, 'x', W))).toContain(out);
    expect(await message(host.mkdir(`${KUBE}/pki/etcd`, 0o755))).toContain(out);
    expect(await message(host.remove(`${KUBE}/pki/victim`))).toContain(out);
    expect(readdirSync(scratch.outside)).toEqual(['victim']);
    expect(readFileSync(path.join(scratch.outside, 'victim'), 'utf8')).toBe('precious');
  });

  test('a rootfs that is itself reached through a link works; "/" is never judged', async () => {
    const alias = path.join(scratch.dir, 'alias');
    symlinkSync(scratch.root, alias);
    await new RootedHost(alias).writeFile(`${KUBE}/a.conf`, 'x', W);
    expect(existsSync(path.join(scratch.root, 'etc/kubernetes/a.conf'))).toBe(true);
    await expect(assertInsideRoot('/', '/etc/hosts', '/etc/hosts', { followFinal: true })).resolves.toBeUndefined();
  });
});

describe('reads refuse what is not a sane regular file', () => {
  test('a FIFO returns at once with an error instead of blocking', async () => {
    const fifo = path.join(scratch.root, 'etc/kubernetes/fifo');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    expect(await message(readRegularFile(fifo, '/etc/kubernetes/fifo'))).toBe('E_PRECONDITION: refusing to read /etc/kubernetes/fifo: it is not a regular file');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('a file above the limit is refused without reading it (sparse: no memory is spent)', async () => {
    const big = path.join(scratch.root, 'etc/kubernetes/big.crt');
    writeFileSync(big, '');
    truncateSync(big, MAX_READ_BYTES + 1);
    expect(await message(new RootedHost(scratch.root).readFile(`${KUBE}/big.crt`))).toBe(`E_PRECONDITION: refusing to read ${KUBE}/big.crt: it is ${MAX_READ_BYTES + 1} bytes, more than any file tsadm reads`);
  });

  test('a binary above the limit: replacing it with the same bytes (a bundle run again) compares them and writes nothing, real or dry run', async () => {
    const size = MAX_READ_BYTES + 4096;
    const bytes = Buffer.alloc(size, 7);
    const host = new RootedHost(scratch.root);
    const bin = { mode: 0o755, kind: 'binary' as const, description: 'kubelet' };
    expect((await host.writeFile('/usr/bin/kubelet', bytes, bin)).unchanged).toBe(false);
    expect((await host.writeFile('/usr/bin/kubelet', bytes, bin)).unchanged).toBe(true);
    const dry = new DryRunHost(new RootedHost(scratch.root));
    expect((await dry.writeFile('/usr/bin/kubelet', bytes, bin)).unchanged).toBe(true);
    // Other bytes of the same size: written; reads without maxBytes still refuse it, with it they read it.
    const other = Buffer.alloc(size, 8);
    expect((await dry.writeFile('/usr/bin/kubelet', other, bin)).unchanged).toBe(false);
    expect(await message(host.readFile('/usr/bin/kubelet'))).toMatch(/more than any file tsadm reads/);
    expect((await host.readFile('/usr/bin/kubelet', { maxBytes: size }))?.length).toBe(size);
    // Three 64 MiB writes with fsync and four full reads: on a CI disk shared with two e2e files it
    // took more than jest's default 30 s once; the assertions are about content, not speed.
  }, 180_000);

  test('a directory in place of a file; a missing file is simply absent', async () => {
    mkdirSync(path.join(scratch.root, 'etc/kubernetes/ca.key'));
    const host = new RootedHost(scratch.root);
    expect(await message(host.readFile(`${KUBE}/ca.key`))).toContain('it is not a regular file');
    expect(await host.readFile(`${KUBE}/none`)).toBeUndefined();
  });
});

describe('openRegularFile and regularFileChunks: judged and read by one descriptor', () => {
  test('noFollow refuses a symbolic link (even to a regular file) with the caller\'s wording; without it the target is judged', async () => {
    const target = path.join(scratch.root, 'etc/kubernetes/real');
    writeFileSync(target, 'real');
    const link = path.join(scratch.root, 'etc/kubernetes/link');
    symlinkSync(target, link);
    const refuse = (problem: string): Error => new Error(`no: ${problem}`);
    await expect(openRegularFile(link, '/etc/kubernetes/link', { noFollow: true, refuse })).rejects.toThrow('no: it is a symbolic link');
    const opened = await openRegularFile(link, '/etc/kubernetes/link', { refuse });
    try {
      expect(opened.stat.size).toBe(4);
    } finally {
      await opened.handle.close();
    }
    symlinkSync('/dev/zero', path.join(scratch.root, 'etc/kubernetes/zero'));
    await expect(openRegularFile(path.join(scratch.root, 'etc/kubernetes/zero'), '/etc/kubernetes/zero', { refuse })).rejects.toThrow('no: it is not a regular file');
  });

  test('the size limit names the caller\'s limit; the chunks, kept, are the file\'s bytes', async () => {
    const file = path.join(scratch.root, 'etc/kubernetes/f');
    writeFileSync(file, Buffer.from(Array.from({ length: 2500 }, (_, i) => (i * 7) % 251)));
    expect(await message(openRegularFile(file, '/f', { maxBytes: 2499, limitName: 'the 2499 bytes an f may have' }))).toBe('E_PRECONDITION: refusing to read /f: it is 2500 bytes, more than the 2499 bytes an f may have');
    const opened = await openRegularFile(file, '/f', { maxBytes: 2500 });
    try {
      const chunks: Buffer[] = [];
      for await (const c of regularFileChunks(opened, 2500, (p) => new Error(p), 1000)) chunks.push(c);
      expect(chunks.map((c) => c.length)).toEqual([1000, 1000, 500]);
      // Kept chunks are not overwritten by later reads: together they are the file.
      expect(Buffer.concat(chunks)).toEqual(readFileSync(file));
    } finally {
      await opened.handle.close();
    }
  });

  test('a file that grows after its fstat is refused once it passes the limit, not read on', async () => {
    const file = path.join(scratch.root, 'etc/kubernetes/growing');
    writeFileSync(file, Buffer.alloc(100, 1));
    const opened = await openRegularFile(file, '/growing');
    try {
      appendFileSync(file, Buffer.alloc(5000, 2));
      const seen: number[] = [];
      const read = (async () => {
        for await (const c of regularFileChunks(opened, opened.stat.size, (p) => new Error(`refused: ${p}`), 64)) seen.push(c.length);
      })();
      await expect(read).rejects.toThrow('refused: it grew past 100 bytes while it was read');
      expect(seen.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(100);
    } finally {
      await opened.handle.close();
    }
  });
});
