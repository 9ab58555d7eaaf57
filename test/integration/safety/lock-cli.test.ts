/**
 * One tsadm at a time, through the built CLI: while an `init` runs on a --rootfs, a second init
 * (or phase) exits 1 with one line naming the holder and changes nothing; a dry run is not
 * blocked; SIGTERM releases the lock; after a SIGKILL the stale lock is taken over; a burst of
 * concurrent runs never interleaves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LOCK_FILE, formatLockFile, parseLockFile } from '../../../src/host/lock.js';
import {
  TSADM, cliEnv, describeBuilt, diffSnapshots, localInitArgs, scratchDir, snapshot, tsadm, LOCAL_INIT_FLAGS, CLUSTER_PHASES, type Scratch,
} from '../../helpers/built-cli.js';
import { verifyPki } from '../../helpers/pki-check.js';

import { expect, jest } from '@jest/globals';

jest.setTimeout(120_000);

let s: Scratch;
beforeEach(() => {
  s = scratchDir('tsadm-lockcli-');
});
afterEach(() => s.cleanup());

/**
 * An init that keeps running: the on-disk phases, then wait-for-kubelet, which polls a kubelet
 * that never comes (nothing listens on this loopback port), so it holds the lock until killed.
 */
function startHolder(root: string): { child: ChildProcess; output: () => string } {
  const skip = CLUSTER_PHASES.filter((p) => p !== 'wait-for-kubelet').join(',');
  const child = spawn(process.execPath, [TSADM, 'init', '--rootfs', root, ...LOCAL_INIT_FLAGS, '--skip-phases', skip], {
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  return { child, output: () => out };
}

async function until(what: string, fn: () => boolean, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!fn()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
}

const lockPath = (root: string): string => path.join(root, LOCK_FILE);

describeBuilt('the machine lock through the CLI', () => {
  test('a second run exits 1 with one line naming the holder and changes nothing; dry-run is not blocked; SIGTERM releases', async () => {
    const holder = startHolder(s.dir);
    try {
      await until('the holder to reach wait-for-kubelet', () => holder.output().includes('[kubelet-check] Waiting') || holder.child.exitCode !== null);
      expect(holder.child.exitCode).toBeNull();
      const owner = parseLockFile(readFileSync(lockPath(s.dir), 'utf8'));
      expect(owner).toMatchObject({ pid: holder.child.pid, command: 'init' });

      const before = snapshot(s.dir);
      for (const args of [localInitArgs(s.dir), ['init', 'phase', 'certs', 'all', '--rootfs', s.dir], ['init', 'phase', 'kubeconfig', 'admin', '--rootfs', s.dir, '--kubernetes-version', 'v1.20.2']]) {
        const r = await tsadm(args);
        expect(r.code).toBe(1);
        const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
        expect(errors).toEqual([`error: another tsadm is running on this machine ("init", pid ${holder.child.pid}, since ${owner?.startedAt}); refusing to run concurrently`]);
        expect(r.stderr).toContain(`To fix: wait for it to finish; if no tsadm is running, remove ${lockPath(s.dir)}`);
        expect(r.stdout).toBe('');
      }
      expect(diffSnapshots(before, snapshot(s.dir))).toEqual([]);

      // A dry run changes nothing, so it does not need (or take) the lock.
      const dry = await tsadm([...localInitArgs(s.dir), '--dry-run']);
      expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      expect(diffSnapshots(before, snapshot(s.dir))).toEqual([]);

      holder.child.kill('SIGTERM');
      expect(await exited(holder.child)).toEqual({ code: 130, signal: null });
      expect(existsSync(lockPath(s.dir))).toBe(false);
    } finally {
      holder.child.kill('SIGKILL');
    }
  });

  test('after a SIGKILL the lock is stale: the next run takes it over, succeeds and releases it', async () => {
    const holder = startHolder(s.dir);
    try {
      await until('the holder to reach wait-for-kubelet', () => holder.output().includes('[kubelet-check] Waiting') || holder.child.exitCode !== null);
      holder.child.kill('SIGKILL');
      await exited(holder.child);
      expect(parseLockFile(readFileSync(lockPath(s.dir), 'utf8'))?.pid).toBe(holder.child.pid);
      const r = await tsadm(localInitArgs(s.dir));
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.not.stringContaining('error:') });
      expect(existsSync(lockPath(s.dir))).toBe(false);
    } finally {
      holder.child.kill('SIGKILL');
    }
  });

  test('a burst of concurrent runs (over a stale lock) never interleaves: each either runs or is refused', async () => {
    mkdirSync(path.dirname(lockPath(s.dir)), { recursive: true });
    writeFileSync(lockPath(s.dir), formatLockFile({ pid: 2 ** 22 + 1, command: 'init', startedAt: 'x', host: 'h', nonce: 'dead' }));
    const runs = await Promise.all(Array.from({ length: 6 }, () => tsadm(localInitArgs(s.dir))));
    const refused = runs.filter((r) => r.code === 1);
    const ok = runs.filter((r) => r.code === 0);
    expect(ok.length + refused.length).toBe(runs.length);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) expect(r.stderr).toMatch(/^error: another tsadm is running on this machine \("init", pid \d+, since /m);
    expect(existsSync(lockPath(s.dir))).toBe(false);
    // Whatever the interleaving of starts, the result is one consistent PKI.
    expect(verifyPki(s.dir)).toEqual([]);
  });
});
