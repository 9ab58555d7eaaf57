/**
 * list and prune on a --rootfs: only tsadm's snapshot names count; prune deletes the oldest beyond
 * --keep and never another file (a look-alike name, a link, a directory); a dry run deletes nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { checkSnapshotFile, listSnapshots, pruneSnapshots } from '../../../src/etcd-snapshot/files.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';

const DIR = '/var/lib/tsadm/etcd-snapshots';

describe('snapshot files', () => {
  let root: TempRoot;

  beforeEach(() => {
    root = tempRoot({
      [`${DIR}/etcd-snapshot-20261125T000000.000Z.db`]: 'a',
      [`${DIR}/etcd-snapshot-20261126T000000.000Z.db`]: 'bb',
      [`${DIR}/etcd-snapshot-20261127T000000.000Z.db`]: 'ccc',
      [`${DIR}/etcd-snapshot-20261120T000000.000Z.db.keep`]: 'mine',
      [`${DIR}/notes.txt`]: 'x',
      '/elsewhere/precious': 'p',
    });
    symlinkSync(root.at('/elsewhere/precious'), root.at(`${DIR}/etcd-snapshot-20261101T000000.000Z.db`));
    mkdirSync(root.at(`${DIR}/etcd-snapshot-20261001T000000.000Z.db`));
  });

  afterEach(() => root.cleanup());

  test('list shows tsadm\'s regular snapshot files, newest first, with sizes', async () => {
    const list = await listSnapshots(new RootedHost(root.dir), DIR);
    expect(list.map((s) => [s.takenAt, s.size])).toEqual([
      ['2026-11-27T00:00:00.000Z', 3], ['2026-11-26T00:00:00.000Z', 2], ['2026-11-25T00:00:00.000Z', 1],
    ]);
  });

  test('prune --keep 1 deletes the two older snapshots and nothing else; again: nothing', async () => {
    const deleted = await pruneSnapshots(new RootedHost(root.dir), DIR, 1);
    expect(deleted).toEqual([`${DIR}/etcd-snapshot-20261126T000000.000Z.db`, `${DIR}/etcd-snapshot-20261125T000000.000Z.db`]);
    expect(readdirSync(root.at(DIR)).sort()).toEqual([
      'etcd-snapshot-20261001T000000.000Z.db', 'etcd-snapshot-20261101T000000.000Z.db', 'etcd-snapshot-20261120T000000.000Z.db.keep',
      'etcd-snapshot-20261127T000000.000Z.db', 'notes.txt',
    ]);
    expect(existsSync(root.at('/elsewhere/precious'))).toBe(true);
    expect(await pruneSnapshots(new RootedHost(root.dir), DIR, 1)).toEqual([]);
  });

  test('a dry run names what it would delete and deletes nothing; --keep 0 is refused', async () => {
    const host = new DryRunHost(new RootedHost(root.dir));
    expect(await pruneSnapshots(host, DIR, 2)).toEqual([`${DIR}/etcd-snapshot-20261125T000000.000Z.db`]);
    expect(existsSync(root.at(`${DIR}/etcd-snapshot-20261125T000000.000Z.db`))).toBe(true);
    expect((await tsadmErrorOf(pruneSnapshots(new RootedHost(root.dir), DIR, 0))).message).toBe('--keep must be a whole number of at least 1 (got 0)');
  });

  test('verify reads by one descriptor: a FIFO is refused at once (no writer waited for), a link or a device is not read, a missing file is named', async () => {
    const host = new RootedHost(root.dir);
    execFileSync('mkfifo', [root.at(`${DIR}/fifo.db`)]);
    symlinkSync('/dev/zero', root.at(`${DIR}/zero.db`));
    expect((await tsadmErrorOf(checkSnapshotFile(host, `${DIR}/fifo.db`))).message).toBe(`${DIR}/fifo.db is not a regular file`);
    expect((await tsadmErrorOf(checkSnapshotFile(host, `${DIR}/zero.db`))).message).toBe(`${DIR}/zero.db is not a regular file`);
    expect((await tsadmErrorOf(checkSnapshotFile(host, `${DIR}/none.db`))).message).toBe(`snapshot file ${DIR}/none.db does not exist`);
    expect(await checkSnapshotFile(host, `${DIR}/notes.txt`)).toMatchObject({ ok: false, size: 1, problem: 'it is not an etcd (bbolt) database' });
  });
});
