import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RootedHost } from '../../../src/host/rooted-host.js';

const OPTS = { mode: 0o600, kind: 'other', description: 'streamed test file' } as const;

async function* chunks(parts: string[], failAfter?: number): AsyncIterable<Uint8Array> {
  for (const [i, p] of parts.entries()) {
    // A chunk at a time, as a network stream gives them.
    await new Promise((resolve) => setImmediate(resolve));
    if (i === failAfter) throw new Error('source broke');
    yield Buffer.from(p);
  }
}

describe('RootedHost.writeFileFrom', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-rooted-host-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('writes the streamed bytes with the mode, and records their size and SHA-256', async () => {
    const record = await new RootedHost(root).writeFileFrom('/var/lib/x/snap.db', chunks(['abc', 'defg']), OPTS);
    const real = path.join(root, 'var/lib/x/snap.db');
    expect(readFileSync(real, 'utf8')).toBe('abcdefg');
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(record).toEqual({ ...OPTS, path: '/var/lib/x/snap.db', size: 7, sha256: createHash('sha256').update('abcdefg').digest('hex'), unchanged: false });
  });

  test('a caller that hashes the bytes itself hands over its digest, read after the stream ended', async () => {
    const hash = createHash('sha256');
    let ended = false;
    async function* hashed(): AsyncIterable<Uint8Array> {
      for await (const c of chunks(['abc', 'defg'])) {
        hash.update(c);
        yield c;
      }
      ended = true;
    }
    const record = await new RootedHost(root).writeFileFrom('/snap.db', hashed(), { ...OPTS, sha256Of: () => (ended ? hash.digest('hex') : 'read too early') });
    expect(record.sha256).toBe(createHash('sha256').update('abcdefg').digest('hex'));
    // The record is a plain FileRecord: the callback is not kept in it.
    expect(Object.keys(record).sort()).toEqual(['description', 'kind', 'mode', 'path', 'sha256', 'size', 'unchanged']);
  });

  test('a source that fails leaves neither the file nor a temp file, and its own error reaches the caller', async () => {
    await expect(new RootedHost(root).writeFileFrom('/d/snap.db', chunks(['abc', 'defg'], 1), OPTS)).rejects.toThrow('source broke');
    expect(existsSync(path.join(root, 'd/snap.db'))).toBe(false);
    expect(readdirSync(path.join(root, 'd'))).toEqual([]);
  });
});

describe('RootedHost.symlink', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-rooted-host-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('makes the link (parents created), replaces an older link or a file in one rename, and leaves no temp behind', async () => {
    const host = new RootedHost(root);
    const dir = path.join(root, 'var/lib/kubelet/pki');
    await host.writeFile('/var/lib/kubelet/pki/a.pem', 'A', { mode: 0o600, kind: 'other', description: 'a' });
    await host.writeFile('/var/lib/kubelet/pki/b.pem', 'B', { mode: 0o600, kind: 'other', description: 'b' });
    await host.symlink('/var/lib/kubelet/pki/current.pem', 'a.pem');
    expect([readlinkSync(path.join(dir, 'current.pem')), (await host.readFile('/var/lib/kubelet/pki/current.pem'))?.toString()]).toEqual(['a.pem', 'A']);
    const inode = lstatSync(path.join(dir, 'a.pem')).ino;
    await host.symlink('/var/lib/kubelet/pki/current.pem', 'b.pem');
    expect([readlinkSync(path.join(dir, 'current.pem')), (await host.readFile('/var/lib/kubelet/pki/current.pem'))?.toString()]).toEqual(['b.pem', 'B']);
    expect((await host.stat('/var/lib/kubelet/pki/current.pem'))?.isSymlink).toBe(true);
    // The file the old link named is untouched, and a regular file in the way is replaced by the link.
    expect(lstatSync(path.join(dir, 'a.pem')).ino).toBe(inode);
    await host.symlink('/var/lib/kubelet/pki/a.pem', 'b.pem');
    expect(lstatSync(path.join(dir, 'a.pem')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['a.pem', 'b.pem', 'current.pem']);
    await host.symlink('/etc/fresh/dir/link', 'x');
    expect(readlinkSync(path.join(root, 'etc/fresh/dir/link'))).toBe('x');
  });

  test('refuses a directory in the way, and under --rootfs an absolute target or one that climbs out', async () => {
    const host = new RootedHost(root);
    await host.mkdir('/d', 0o755);
    await expect(host.symlink('/d', 'x')).rejects.toThrow('cannot link /d: a directory is in the way');
    await expect(host.symlink('/l', '/etc/passwd')).rejects.toThrow(/must be a relative path below the link's directory/);
    await expect(host.symlink('/l', '../x')).rejects.toThrow(/must be a relative path below the link's directory/);
    expect(existsSync(path.join(root, 'l'))).toBe(false);
  });
});
