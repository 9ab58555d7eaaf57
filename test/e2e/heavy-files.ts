/**
 * Which e2e files may run at the same time (jest runs two at once, `--maxWorkers=2`).
 *
 * A file that runs several control planes is "heavy". Heavy files call `heavyFile(...)` at the top
 * (it adds a beforeAll that takes the lock before the file's own hooks make machines, and an afterAll
 * that releases it; jest runs a file's afterAll hooks in the order they were added, so the release
 * may come a few seconds before the file's machines are down):
 * - `'alone'`: no other heavy file runs while this one does. ha.e2e measures that the API answers
 *   through its load balancer with no gap over 2 s while control planes restart (issue 30); beside
 *   upgrade.e2e on this 2-core machine the gap grew to 2.4 s (load average 19).
 * - `'together'`: a heavy file that may run beside other `'together'` files, never beside an
 *   `'alone'` one.
 * Light files (one or two machines, one control plane) call nothing and run beside anything.
 *
 * The rule is a flock(1) on one lock file: exclusive for `'alone'`, shared for `'together'`. The
 * holder is `flock … cat` reading a pipe from this process, so the lock is released when the file
 * ends or when its jest worker dies. scripts/jest-sequencer.mjs reads these calls to order the
 * files so that a lock is rarely waited for (the `'alone'` file first, beside the light ones).
 */
import { spawn } from 'node:child_process';

const LOCK_FILE = '/run/tsadm-e2e-heavy.lock';

/** Declares this test file heavy, of KIND: it holds the lock from its first hook to its end. */
export function heavyFile(kind: 'alone' | 'together'): void {
  let release: (() => Promise<void>) | undefined;
  // The wait is for at most the longest heavy file (upgrade, ~13 minutes beside another file).
  beforeAll(async () => {
    release = await takeHeavyLock(kind);
  }, 45 * 60_000);
  afterAll(async () => {
    await release?.();
  });
}

/** Takes the lock for a heavy file of KIND (waiting for it); resolves to its release. */
export async function takeHeavyLock(kind: 'alone' | 'together', opts: { timeoutMs?: number; lockFile?: string } = {}): Promise<() => Promise<void>> {
  const timeoutMs = opts.timeoutMs ?? 40 * 60_000;
  const lockFile = opts.lockFile ?? LOCK_FILE;
  const holder = spawn('flock', [kind === 'alone' ? '--exclusive' : '--shared', '--timeout', String(Math.max(1, Math.ceil(timeoutMs / 1000))), lockFile, 'sh', '-c', 'echo held; exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => holder.once('exit', (code) => resolve(code)));
  const held = await new Promise<boolean>((resolve) => {
    holder.stdout.once('data', () => resolve(true));
    void exited.then(() => resolve(false));
  });
  if (!held) throw new Error(`could not take the ${kind} heavy-file lock ${lockFile} within ${timeoutMs / 60_000} min (flock exited ${String(await exited)})`);
  return async () => {
    holder.stdin.end();
    await exited;
  };
}
