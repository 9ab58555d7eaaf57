/**
 * Which command lines the launcher runs as a plain `etcd snapshot save` (no yargs), and that every
 * other one goes to the full parser. What the direct path prints is checked against main()'s in
 * test/unit/commands/etcd-snapshot-save.test.ts and, built, in test/unit/etcd-snapshot/save.test.ts.
 */
import { plainSnapshotSave } from '../../../src/cli/plain-snapshot-save.js';

describe('plainSnapshotSave', () => {
  test.each<[string[], object]>([
    [['etcd', 'snapshot', 'save'], {}],
    [['etcd', 'snapshot', 'save', '/b/a.db'], { file: '/b/a.db' }],
    [['etcd', 'snapshot', 'save', 'a.db', '--endpoint', 'https://10.0.0.1:2379', '--cert-dir=/pki', '--dir', '/b', '--rootfs=/r', '-o', 'json'],
      { file: 'a.db', endpoint: 'https://10.0.0.1:2379', certDir: '/pki', dir: '/b', rootfs: '/r', output: 'json' }],
    [['etcd', 'snapshot', 'save', '--output=text', 'x.db'], { file: 'x.db', output: 'text' }],
  ])('%j is plain', (argv, want) => {
    expect(plainSnapshotSave(argv)).toEqual(want);
  });

  test.each<[string[]]>([
    [['etcd', 'snapshot', 'verify', 'a.db']],
    [['etcd', 'snapshot']],
    [['--v=2', 'etcd', 'snapshot', 'save']],
    [['etcd', 'snapshot', 'save', '--help']],
    [['etcd', 'snapshot', 'save', '-h']],
    [['etcd', 'snapshot', 'save', '--plan', 'p.json']],
    [['etcd', 'snapshot', 'save', '--dry-run']],
    [['etcd', 'snapshot', 'save', '-v', '2']],
    [['etcd', 'snapshot', 'save', '--log-file', '/tmp/x.log']],
    [['etcd', 'snapshot', 'save', 'a.db', 'b.db']],
    [['etcd', 'snapshot', 'save', '--dir', '/a', '--dir', '/b']],
    [['etcd', 'snapshot', 'save', '--endpoint']],
    [['etcd', 'snapshot', 'save', '--endpoint', '--dir']],
    [['etcd', 'snapshot', 'save', '--endpoint=']],
    [['etcd', 'snapshot', 'save', '-o', 'yaml']],
    [['etcd', 'snapshot', 'save', '-ojson']],
    [['etcd', 'snapshot', 'save', '--certDir', '/pki']],
    [['etcd', 'snapshot', 'save', '--', 'a.db']],
    [['etcd', 'snapshot', 'save', '--constructor', 'x']],
  ])('%j goes to the full parser', (argv) => {
    expect(plainSnapshotSave(argv)).toBeUndefined();
  });
});
