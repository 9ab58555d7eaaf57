/**
 * The dry-run host's symbolic links: nothing reaches the disk, later reads in the run follow the
 * link to its (planned or real) target, and the plan journal holds one symlink step.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../src/host/rooted-host.js';

describe('DryRunHost.symlink', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tsadm-dry-run-host-'));
    mkdirSync(path.join(root, 'pki'));
    writeFileSync(path.join(root, 'pki/old.pem'), 'OLD');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('recorded, not made; reads follow the planned link to a planned or a real file', async () => {
    const host = new DryRunHost(new RootedHost(root));
    await host.writeFile('/pki/new.pem', 'NEW', { mode: 0o600, kind: 'other', description: 'new' });
    await host.symlink('/pki/current.pem', 'new.pem');
    expect([(await host.readFile('/pki/current.pem'))?.toString(), (await host.stat('/pki/current.pem'))?.isSymlink]).toEqual(['NEW', true]);
    await host.symlink('/pki/other.pem', '/pki/old.pem');
    expect((await host.readFile('/pki/other.pem'))?.toString()).toBe('OLD');
    expect(await host.readdir('/pki')).toEqual(['current.pem', 'new.pem', 'old.pem', 'other.pem']);
    expect(existsSync(path.join(root, 'pki/current.pem'))).toBe(false);
    expect(host.journal.steps.filter((s) => s.type === 'symlink')).toEqual([
      { type: 'symlink', path: '/pki/current.pem', target: 'new.pem' },
      { type: 'symlink', path: '/pki/other.pem', target: '/pki/old.pem' },
    ]);
    expect(host.journal.files.get('/pki/current.pem')).toEqual({ state: 'absent' });
    // A file written over the link replaces it.
    await host.writeFile('/pki/current.pem', 'FILE', { mode: 0o600, kind: 'other', description: 'x' });
    expect([(await host.readFile('/pki/current.pem'))?.toString(), (await host.stat('/pki/current.pem'))?.isSymlink]).toEqual(['FILE', false]);
  });

  test('a directory in the way is refused as the real run refuses it', async () => {
    const host = new DryRunHost(new RootedHost(root));
    await expect(host.symlink('/pki', 'x')).rejects.toThrow('cannot link /pki: a directory is in the way');
  });
});
