import { existsSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { RootedHost } from '../../../../src/host/rooted-host.js';
import { copyTree } from '../../../../src/phases/upgrade/copy-tree.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../../helpers/tsadm-error.js';

/** Oracle: the files on disk (node:fs), compared with what `cp -r` keeps: the tree, the bytes, the permission bits. */
describe('copyTree', () => {
  let root: TempRoot;
  afterEach(() => root.cleanup());

  test('copies the tree with each file\'s bytes and mode, under --rootfs', async () => {
    root = tempRoot({
      '/var/lib/etcd/member/snap/db': { content: 'db-bytes', mode: 0o600 },
      '/var/lib/etcd/member/wal/0.wal': { content: 'wal', mode: 0o640 },
    });
    const host = new RootedHost(root.dir);
    expect(await copyTree(host, '/var/lib/etcd', '/backup/etcd')).toBe(2);
    expect(readFileSync(root.at('/backup/etcd/member/snap/db'), 'utf8')).toBe('db-bytes');
    expect(statSync(root.at('/backup/etcd/member/snap/db')).mode & 0o777).toBe(0o600);
    expect(statSync(root.at('/backup/etcd/member/wal/0.wal')).mode & 0o777).toBe(0o640);
    expect(statSync(root.at('/backup/etcd')).mode & 0o777).toBe(statSync(root.at('/var/lib/etcd')).mode & 0o777);
  });

  test('refuses a symbolic link inside the tree, and a source that is not a directory', async () => {
    root = tempRoot({ '/data/a': 'x', '/outside/secret': 's' });
    symlinkSync(root.at('/outside/secret'), root.at('/data/link'));
    const host = new RootedHost(root.dir);
    expect((await tsadmErrorOf(copyTree(host, '/data', '/copy'))).message).toContain('/data/link: it is a symbolic link');
    expect(existsSync(root.at('/copy/link'))).toBe(false);
    expect((await tsadmErrorOf(copyTree(host, '/data/a', '/copy2'))).message).toContain('/data/a: it is not a directory');
  });
});
