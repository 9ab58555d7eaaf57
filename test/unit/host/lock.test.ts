/**
 * The machine lock (src/host/lock.ts): exclusive, names its holder, survives crashes (a dead,
 * rebooted-away or PID-reused holder is stale and taken over), never follows a planted symlink,
 * and releases only its own lock. The CLI half (two real concurrent runs) is in lock-cli.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, lutimesSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  LOCK_FILE, acquireMachineLock, formatLockFile, parseLockFile, staleReason, systemProbe, type LockOwner, type ProcessProbe,
} from '../../../src/host/lock.js';
import { isTsadmError } from '../../../src/errors.js';
import { scratchDir, type Scratch } from '../../helpers/built-cli.js';

let s: Scratch;
beforeEach(() => {
  s = scratchDir('tsadm-lock-');
});
afterEach(() => s.cleanup());

const lockAt = (root: string): string => path.join(root, LOCK_FILE);

/** A probe where only the listed PIDs exist, with fixed boot id and start times. */
function probe(alive: Record<number, string>, bootId = 'boot-1'): ProcessProbe {
  return {
    exists: (pid) => pid in alive,
    bootId: () => bootId,
    startTicks: (pid) => alive[pid],
  };
}

function owner(over: Partial<LockOwner> = {}): LockOwner {
  return { pid: 4242, command: 'init', startedAt: '2024-01-01T00:00:00.000Z', host: 'n1', nonce: 'abcd', bootId: 'boot-1', startTicks: '100', ...over };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('lock file format', () => {
  test('round-trips and rejects anything that is not a tsadm lock', () => {
    const o = owner();
    expect(parseLockFile(formatLockFile(o))).toEqual(o);
    for (const bad of ['', '{', 'null', '{"pid":"12","nonce":"x"}', '{"pid":-1,"nonce":"x"}', '{"pid":1.5,"nonce":"x"}', '{"pid":12}', '12\n']) {
      expect(parseLockFile(bad)).toBeUndefined();
    }
  });

  test('staleness: gone process, reboot, PID reuse; a live holder is not stale', () => {
    expect(staleReason(owner(), probe({ 4242: '100' }))).toBeUndefined();
    expect(staleReason(owner(), probe({}))).toBe('process 4242 is gone');
    expect(staleReason(owner(), probe({ 4242: '100' }, 'boot-2'))).toBe('the machine rebooted since');
    expect(staleReason(owner(), probe({ 4242: '999' }))).toBe('PID 4242 now belongs to another process');
    // Without /proc facts only existence can be judged.
    const bare = owner({ bootId: undefined, startTicks: undefined });
    expect(staleReason(parseLockFile(formatLockFile(bare)) as LockOwner, probe({ 4242: '1' }))).toBeUndefined();
  });

  test('the system probe sees this process and its real start time', () => {
    expect(systemProbe.exists(process.pid)).toBe(true);
    expect(systemProbe.exists(2 ** 22 + 1)).toBe(false); // above pid_max: never a process
    expect(systemProbe.startTicks(process.pid)).toMatch(/^\d+$/);
    expect(systemProbe.bootId()).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('acquire and release', () => {
  test('creates the lock (and /etc/kubernetes) and removes both on release', () => {
    const lock = acquireMachineLock(s.dir, 'init', { probe: probe({ 1000: '5' }), pid: 1000 });
    expect(lock.path).toBe(lockAt(s.dir));
    const recorded = parseLockFile(readFileSync(lock.path, 'utf8'));
    expect(recorded).toMatchObject({ pid: 1000, command: 'init', bootId: 'boot-1', startTicks: '5' });
    expect(statSync(path.join(s.dir, 'etc/kubernetes')).mode & 0o777).toBe(0o755);
    lock.release();
    lock.release(); // twice is harmless
    expect(existsSync(path.join(s.dir, 'etc'))).toBe(false); // created for the lock only: removed
  });

  test('an existing kubernetes dir is kept; only the lock file goes', () => {
    mkdirSync(path.join(s.dir, 'etc/kubernetes/pki'), { recursive: true });
    const lock = acquireMachineLock(s.dir, 'reset', { probe: probe({}), pid: 1 });
    lock.release();
    expect(readdirSync(path.join(s.dir, 'etc/kubernetes'))).toEqual(['pki']);
  });

  test('a second acquisition while the holder lives fails with E_LOCKED naming it', () => {
    const p = probe({ 1000: '5', 2000: '6' });
    const first = acquireMachineLock(s.dir, 'init', { probe: p, pid: 1000 });
    const err = thrown(() => acquireMachineLock(s.dir, 'join', { probe: p, pid: 2000 }));
    expect(isTsadmError(err) && err.code).toBe('E_LOCKED');
    expect(isTsadmError(err) && err.exitCode).toBe(1);
    expect((err as Error).message).toMatch(/^another tsadm is running on this machine \("init", pid 1000, since \S+\); refusing to run concurrently$/);
    expect((err as { hint?: string }).hint).toContain(lockAt(s.dir));
    // The holder's lock is untouched.
    expect(parseLockFile(readFileSync(first.path, 'utf8'))?.nonce).toBe(first.owner.nonce);
    first.release();
    acquireMachineLock(s.dir, 'join', { probe: p, pid: 2000 }).release();
  });

  test('a stale lock (holder gone) is taken over and reported', () => {
    mkdirSync(path.dirname(lockAt(s.dir)), { recursive: true });
    writeFileSync(lockAt(s.dir), formatLockFile(owner({ pid: 31337 })));
    const stale: string[] = [];
    const lock = acquireMachineLock(s.dir, 'init', { probe: probe({ 1000: '5' }), pid: 1000, onStale: (o, why) => stale.push(`${o.pid}: ${why}`) });
    expect(stale).toEqual(['31337: process 31337 is gone']);
    expect(parseLockFile(readFileSync(lock.path, 'utf8'))?.pid).toBe(1000);
    lock.release();
  });

  test('a lock from before a reboot, or whose PID was reused, is stale, and says which', () => {
    mkdirSync(path.dirname(lockAt(s.dir)), { recursive: true });
    // PID 77 is alive in both cases: only the boot id, then only the start time, makes it stale.
    const takeOver = (probed: ProcessProbe): string[] => {
      const stale: string[] = [];
      const lock = acquireMachineLock(s.dir, 'init', { probe: probed, pid: 1, onStale: (o, why) => stale.push(`${o.pid}: ${why}`) });
      expect(parseLockFile(readFileSync(lock.path, 'utf8'))?.pid).toBe(1);
      lock.release();
      return stale;
    };
    writeFileSync(lockAt(s.dir), formatLockFile(owner({ pid: 77, bootId: 'old-boot', startTicks: '100' })));
    expect(takeOver(probe({ 77: '100', 1: '1' }))).toEqual(['77: the machine rebooted since']);
    writeFileSync(lockAt(s.dir), formatLockFile(owner({ pid: 77, startTicks: '100' })));
    expect(takeOver(probe({ 77: '555', 1: '1' }))).toEqual(['77: PID 77 now belongs to another process']);
  });

  test('a foreign file at the lock path: refused while fresh, replaced when old', () => {
    mkdirSync(path.dirname(lockAt(s.dir)), { recursive: true });
    writeFileSync(lockAt(s.dir), 'not a lock\n');
    const err = thrown(() => acquireMachineLock(s.dir, 'init', { probe: probe({}), pid: 1 }));
    expect((err as Error).message).toBe(`${LOCK_FILE} exists but is not a tsadm lock`);
    const old = (Date.now() - 3600_000) / 1000;
    utimesSync(lockAt(s.dir), old, old);
    acquireMachineLock(s.dir, 'init', { probe: probe({}), pid: 1 }).release();
  });

  test('a symlink planted at the lock path is never followed or written through', () => {
    const outside = path.join(s.dir, 'outside');
    writeFileSync(outside, 'precious\n');
    mkdirSync(path.dirname(lockAt(s.dir)), { recursive: true });
    symlinkSync(outside, lockAt(s.dir));
    const old = (Date.now() - 3600_000) / 1000;
    lutimesSync(lockAt(s.dir), old, old);
    const lock = acquireMachineLock(s.dir, 'init', { probe: probe({}), pid: 1 });
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    lock.release();
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
  });

  test('release removes only our own lock (not one that replaced it)', () => {
    const lock = acquireMachineLock(s.dir, 'init', { probe: probe({ 1: '1' }), pid: 1 });
    writeFileSync(lock.path, formatLockFile(owner({ pid: 2, nonce: 'other' })));
    lock.release();
    expect(parseLockFile(readFileSync(lock.path, 'utf8'))?.nonce).toBe('other');
  });

  test('temp and aside files of killed acquisitions are cleaned up', () => {
    const dir = path.dirname(lockAt(s.dir));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, '.tsadm.lock.31337.0badc0de'), '{}');
    writeFileSync(path.join(dir, '.tsadm.lock.stale.31338.0badc0de'), '{}');
    writeFileSync(path.join(dir, '.tsadm.lock.5.0badc0de'), '{}'); // PID 5 lives: its file stays
    const lock = acquireMachineLock(s.dir, 'init', { probe: probe({ 1: '1', 5: '1' }), pid: 1 });
    expect(readdirSync(dir).sort()).toEqual(['.tsadm.lock', '.tsadm.lock.5.0badc0de']);
    lock.release();
  });
});

describe('with real processes', () => {
  test('a live process holds the lock; once it is killed the lock is stale', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      mkdirSync(path.dirname(lockAt(s.dir)), { recursive: true });
      const ticks = systemProbe.startTicks(pid);
      const boot = systemProbe.bootId();
      writeFileSync(lockAt(s.dir), formatLockFile(owner({ pid, ...(ticks ? { startTicks: ticks } : {}), ...(boot ? { bootId: boot } : {}) })));
      expect((thrown(() => acquireMachineLock(s.dir, 'init')) as Error).message).toContain(`pid ${pid}`);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const lock = acquireMachineLock(s.dir, 'init');
      expect(lock.owner.pid).toBe(process.pid);
      lock.release();
      expect(existsSync(lockAt(s.dir))).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
