/**
 * The snapshot check on synthetic files laid out as etcd's snapshot is (bbolt pages, then the
 * SHA-256 of them; the hash computed here with Node's crypto, not by the code under test), fed
 * in chunks of every awkward size. Real etcd snapshots: test/unit/etcd-snapshot/save.test.ts.
 */
import { createHash } from 'node:crypto';
import { checkSnapshot, SnapshotVerifier } from '../../../src/etcd-snapshot/integrity.js';

function fakeSnapshot(pages: number): Buffer {
  const db = Buffer.alloc(pages * 4096, 7);
  db.writeUInt32LE(0xed0cdaed, 16); // bbolt meta magic
  db.writeUInt32LE(2, 20);
  return Buffer.concat([db, createHash('sha256').update(db).digest()]);
}

describe('snapshot integrity', () => {
  test('a whole snapshot passes, whatever the chunk sizes', () => {
    const snap = fakeSnapshot(5);
    expect(checkSnapshot(snap)).toEqual({ ok: true, size: snap.length, fileSha256: createHash('sha256').update(snap).digest('hex') });
    for (const step of [1, 7, 31, 32, 33, 4096, 5000]) {
      const v = new SnapshotVerifier();
      for (let i = 0; i < snap.length; i += step) v.update(snap.subarray(i, i + step));
      expect(v.finish().ok).toBe(true);
    }
  });

  test('truncated, flipped, hashless and foreign files are refused with the reason', () => {
    const snap = fakeSnapshot(3);
    expect(checkSnapshot(snap.subarray(0, snap.length - 1)).problem).toMatch(/truncated/);
    expect(checkSnapshot(snap.subarray(0, 3 * 4096)).problem).toMatch(/truncated or has no checksum/);
    const flipped = Buffer.from(snap);
    flipped[5000]! ^= 4;
    expect(checkSnapshot(flipped).problem).toMatch(/SHA-256 checksum does not match/);
    const foreign = Buffer.from(snap);
    foreign.writeUInt32LE(0x12345678, 16);
    expect(checkSnapshot(foreign).problem).toMatch(/not an etcd \(bbolt\) database/);
    expect(checkSnapshot(Buffer.alloc(0)).problem).toMatch(/empty/);
  });
});
