/**
 * What `snapshot restore` trusts a snapshot file for, on real files in a --rootfs (the tests run as
 * root, so chown and chmod are real): a snapshot anyone could have written — group- or
 * world-writable, another user's, a symbolic link, not a regular file — is refused with its reason
 * before anything changes; and the file is read once, by the descriptor that was judged, into the
 * restore's own 0700 staging directory: replacing FILE after the check (here: while the control
 * plane stops, the step before the tool runs) changes nothing about what is restored. The snapshots
 * are synthetic (bbolt magic, SHA-256 appended, laid out as etcd's; the hash made here with Node's
 * crypto); restore.test.ts restores real ones with the real tool.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { restoreSnapshot, type RestoreDeps, type ToolRun } from '../../../src/etcd-snapshot/restore.js';
import { ASIDE_DIR, RESTORE_STATE_FILE } from '../../../src/etcd-snapshot/restore-plan.js';
import { DryRunHost } from '../../../src/host/dry-run-host.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import type { Logger } from '../../../src/log/events.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { tsadmErrorOf } from '../../helpers/tsadm-error.js';

const quiet: Logger = { info: () => undefined, warn: () => undefined, debug: () => undefined, output: () => undefined, event: () => undefined };
const MANIFESTS = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'];
const SNAP = '/backup/s.db';
const STAGING = '/var/lib/etcd/tsadm-restoring';

/** A whole snapshot as etcd lays it out: bbolt pages (meta magic at 16), then their SHA-256. */
function fakeSnapshot(fill: number, pages = 4): Buffer {
  const db = Buffer.alloc(pages * 4096, fill);
  db.writeUInt32LE(0xed0cdaed, 16);
  db.writeUInt32LE(2, 20);
  return Buffer.concat([db, createHash('sha256').update(db).digest()]);
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

const ETCD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: etcd
  namespace: kube-system
spec:
  containers:
  - command:
    - etcd
    - --name=cp1
    - --data-dir=/var/lib/etcd
    - --initial-advertise-peer-urls=https://10.0.0.1:2380
    image: registry.k8s.io/etcd:3.4.13-0
    name: etcd
  volumes:
  - hostPath:
      path: /var/lib/etcd
      type: DirectoryOrCreate
    name: etcd-data
`;

describe('snapshot restore: what the snapshot file is trusted for', () => {
  let root: TempRoot;
  const good = fakeSnapshot(7);

  beforeEach(() => {
    root = tempRoot({
      '/etc/kubernetes/manifests/etcd.yaml': ETCD_YAML,
      '/etc/kubernetes/manifests/kube-apiserver.yaml': 'apiserver\n',
      '/etc/kubernetes/manifests/kube-controller-manager.yaml': 'cm\n',
      '/etc/kubernetes/manifests/kube-scheduler.yaml': 'sched\n',
      '/var/lib/etcd/member/old-marker': 'old data\n',
    });
    mkdirSync(root.at('/backup'));
    writeFileSync(root.at(SNAP), good, { mode: 0o600 });
  });

  afterEach(() => root.cleanup());

  /**
   * A stand-in for the machine: the tool reads the snapshot it is given (through the rootfs) and
   * makes the member directory etcd's tool would; `swap` runs after the check, before the tool.
   */
  function deps(seen: string[], swap: () => void = () => undefined): RestoreDeps & { toolRead: Buffer[]; runs: ToolRun[] } {
    const toolRead: Buffer[] = [];
    const runs: ToolRun[] = [];
    return {
      toolRead,
      runs,
      runTool: (run: ToolRun) => {
        seen.push('tool');
        runs.push(run);
        const snapshot = run.command[3]!;
        const dataDir = run.command.find((a) => a.startsWith('--data-dir='))!.slice('--data-dir='.length);
        toolRead.push(readFileSync(root.at(snapshot)));
        mkdirSync(root.at(`${dataDir}/member`), { recursive: true });
        writeFileSync(root.at(`${dataDir}/member/restored-from`), sha(readFileSync(root.at(snapshot))));
        return Promise.resolve();
      },
      waitContainersGone: () => {
        seen.push('gone');
        swap();
        return Promise.resolve();
      },
      waitControlPlane: () => {
        seen.push('back');
        return Promise.resolve();
      },
      now: () => new Date('2026-11-27T12:00:00Z'),
    };
  }

  function expectNothingChanged(seen: string[]): void {
    expect(seen).toEqual([]);
    expect(readdirSync(root.at('/etc/kubernetes/manifests')).sort()).toEqual(MANIFESTS);
    expect(readdirSync(root.at('/var/lib/etcd'))).toEqual(['member']);
    expect(readFileSync(root.at('/var/lib/etcd/member/old-marker'), 'utf8')).toBe('old data\n');
    expect(existsSync(root.at(RESTORE_STATE_FILE)) || existsSync(root.at(ASIDE_DIR))).toBe(false);
  }

  test.each([
    ['world-writable (0666)', () => chmodSync(root.at(SNAP), 0o666), 'it is writable by everyone (mode 0666)'],
    ['group-writable (0620)', () => chmodSync(root.at(SNAP), 0o620), 'it is writable by its group (mode 0620)'],
    ['owned by nobody (65534), mode 0600', () => chownSync(root.at(SNAP), 65534, 65534), 'it is owned by uid 65534, not by root'],
    ['a symbolic link to a root-owned 0600 snapshot', () => {
      renameSync(root.at(SNAP), root.at('/backup/real.db'));
      symlinkSync(root.at('/backup/real.db'), root.at(SNAP));
    }, 'it is a symbolic link'],
    ['a symbolic link to /dev/zero', () => {
      renameSync(root.at(SNAP), root.at('/backup/real.db'));
      symlinkSync('/dev/zero', root.at(SNAP));
    }, 'it is a symbolic link'],
    ['a FIFO (opening it does not wait for a writer)', () => {
      renameSync(root.at(SNAP), root.at('/backup/real.db'));
      execFileSync('mkfifo', ['-m', '0600', root.at(SNAP)]);
    }, 'it is not a regular file'],
    ['a directory', () => {
      renameSync(root.at(SNAP), root.at('/backup/real.db'));
      mkdirSync(root.at(SNAP), { mode: 0o700 });
    }, 'it is not a regular file'],
  ])('%s: refused with the reason and how to fix it, nothing changed', async (_name, loosen, reason) => {
    loosen();
    const seen: string[] = [];
    const err = await tsadmErrorOf(restoreSnapshot(new RootedHost(root.dir), quiet, SNAP, deps(seen)));
    expect(err.code).toBe('E_TRUST');
    expect(err.message).toBe(`refusing to restore from ${SNAP}: ${reason}`);
    expect(err.hint).toContain(`chown root:root ${SNAP} && chmod 0600 ${SNAP}`);
    expectNothingChanged(seen);
  });

  test('the same refusals in a dry run (a plan of a restore is never made of a loose snapshot)', async () => {
    chmodSync(root.at(SNAP), 0o646);
    const err = await tsadmErrorOf(restoreSnapshot(new DryRunHost(new RootedHost(root.dir)), quiet, SNAP, deps([])));
    expect(err.message).toBe(`refusing to restore from ${SNAP}: it is writable by everyone (mode 0646)`);
  });

  test('root-owned and writable by root alone passes, whatever the directory (1777, like /tmp): 0600 and 0644', async () => {
    chmodSync(root.at('/backup'), 0o1777);
    for (const mode of [0o600, 0o644]) {
      chmodSync(root.at(SNAP), mode);
      const result = await restoreSnapshot(new DryRunHost(new RootedHost(root.dir)), quiet, SNAP, deps([]));
      expect(result).toMatchObject({ dryRun: true, sha256: sha(good) });
    }
  });

  test('FILE replaced after the check: the tool reads the checked copy in the 0700 staging directory; FILE is never read again', async () => {
    const other = fakeSnapshot(9); // a whole snapshot too, root's and 0600: only which bytes were checked tells them apart
    writeFileSync(root.at('/backup/other.db'), other, { mode: 0o600 });
    const seen: string[] = [];
    let staged: { mode: number; dirMode: number; bytes: Buffer } | undefined;
    const d = deps(seen, () => {
      renameSync(root.at('/backup/other.db'), root.at(SNAP));
      const copy = root.at(`${STAGING}/snapshot.db`);
      staged = { mode: statSync(copy).mode & 0o777, dirMode: statSync(root.at(STAGING)).mode & 0o777, bytes: readFileSync(copy) };
    });
    const result = await restoreSnapshot(new RootedHost(root.dir), quiet, SNAP, d);
    expect(seen).toEqual(['gone', 'tool', 'back']);
    expect(readFileSync(root.at(SNAP))).toEqual(other);
    // The copy was in place before the control plane stopped: 0600 in a 0700 directory, the checked bytes.
    expect(staged).toEqual({ mode: 0o600, dirMode: 0o700, bytes: good });
    // The tool was given the copy, and only the staging directory.
    expect(d.runs[0]!.command.slice(0, 4)).toEqual(['etcdctl', 'snapshot', 'restore', `${STAGING}/snapshot.db`]);
    expect(d.runs[0]!.mounts).toEqual([{ hostPath: STAGING, readOnly: false }]);
    expect(d.toolRead).toEqual([good]);
    expect(result.sha256).toBe(sha(good));
    expect(readFileSync(root.at('/var/lib/etcd/member/restored-from'), 'utf8')).toBe(sha(good));
    // The copy is gone with the staging directory; the old data kept.
    expect(readdirSync(root.at('/var/lib/etcd'))).toEqual(['member']);
    expect(readFileSync(root.at('/var/lib/etcd.tsadm-20261127T120000Z/member/old-marker'), 'utf8')).toBe('old data\n');
  });

  test('a damaged snapshot leaves no copy and no staging directory; a dry run writes no copy', async () => {
    const cut = good.subarray(0, good.length - 100);
    writeFileSync(root.at(SNAP), cut);
    const seen: string[] = [];
    const err = await tsadmErrorOf(restoreSnapshot(new RootedHost(root.dir), quiet, SNAP, deps(seen)));
    expect(err.message).toMatch(new RegExp(`^${SNAP} is not a whole etcd snapshot: it is truncated`));
    expectNothingChanged(seen);

    writeFileSync(root.at(SNAP), good);
    const dry = new DryRunHost(new RootedHost(root.dir));
    await restoreSnapshot(dry, quiet, SNAP, deps(seen));
    expectNothingChanged(seen);
    expect(dry.writes).toEqual([]);
  });

  test('without etcd.yaml the snapshot is still judged first: a damaged one is reported as such', async () => {
    writeFileSync(root.at(SNAP), good.subarray(0, 5000));
    renameSync(root.at('/etc/kubernetes/manifests/etcd.yaml'), root.at('/etcd.yaml'));
    const err = await tsadmErrorOf(restoreSnapshot(new RootedHost(root.dir), quiet, SNAP, deps([])));
    expect(err.message).toMatch(/is not a whole etcd snapshot/);
    writeFileSync(root.at(SNAP), good);
    expect((await tsadmErrorOf(restoreSnapshot(new RootedHost(root.dir), quiet, SNAP, deps([])))).message).toMatch(/^no \/etc\/kubernetes\/manifests\/etcd\.yaml/);
    expect(existsSync(root.at(STAGING))).toBe(false);
  });

  test('a data directory lost with its disk is made 0700 for the copy', async () => {
    execFileSync('rm', ['-rf', root.at('/var/lib/etcd')]);
    const seen: string[] = [];
    let dataDirMode = 0;
    await restoreSnapshot(new RootedHost(root.dir), quiet, SNAP, deps(seen, () => {
      dataDirMode = statSync(root.at('/var/lib/etcd')).mode & 0o777;
    }));
    expect(dataDirMode).toBe(0o700);
    expect(readFileSync(root.at('/var/lib/etcd/member/restored-from'), 'utf8')).toBe(sha(good));
  });
});
