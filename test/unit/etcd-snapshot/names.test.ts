/** Snapshot names: the format, what counts as tsadm's, and which files prune deletes (never others). */
import { parseSnapshotFileName, snapshotEntries, snapshotFileName, snapshotsToPrune } from '../../../src/etcd-snapshot/names.js';

describe('snapshot names', () => {
  test('a UTC timestamp with milliseconds, and back', () => {
    const at = new Date('2026-11-27T11:55:00.123Z');
    expect(snapshotFileName(at)).toBe('etcd-snapshot-20261127T115500.123Z.db');
    expect(parseSnapshotFileName('etcd-snapshot-20261127T115500.123Z.db')?.toISOString()).toBe('2026-11-27T11:55:00.123Z');
  });

  test.each([
    'etcd-snapshot-20261327T115500.123Z.db', // month 13
    'etcd-snapshot-20261127T115500Z.db',
    'etcd-snapshot-20261127T115500.123Z.db.bak',
    '.etcd-snapshot-20261127T115500.123Z.db.tsadm-123-abcdefabcdef',
    'important.db',
  ])('%s is not a tsadm snapshot name', (name) => {
    expect(parseSnapshotFileName(name)).toBeUndefined();
  });

  test('prune keeps the newest N of tsadm\'s snapshots and never names another file', () => {
    const names = [
      'etcd-snapshot-20261125T000000.000Z.db',
      'notes.txt',
      'etcd-snapshot-20261127T000000.000Z.db',
      'etcd-snapshot-20261126T120000.000Z.db',
      'etcd-snapshot-20261126T000000.000Z.db',
      'my-etcd-backup.db',
    ];
    expect(snapshotEntries('/d', names).map((e) => e.name)).toEqual([
      'etcd-snapshot-20261127T000000.000Z.db',
      'etcd-snapshot-20261126T120000.000Z.db',
      'etcd-snapshot-20261126T000000.000Z.db',
      'etcd-snapshot-20261125T000000.000Z.db',
    ]);
    expect(snapshotsToPrune('/d', names, 2).map((e) => e.path)).toEqual([
      '/d/etcd-snapshot-20261126T000000.000Z.db',
      '/d/etcd-snapshot-20261125T000000.000Z.db',
    ]);
    expect(snapshotsToPrune('/d', names, 10)).toEqual([]);
  });
});
