/**
 * One tsadm at a time on a machine: a lock file under the kubernetes directory, so two
 * concurrent init/join/reset runs (or phases) cannot interleave their writes.
 *
 * The lock is a file created whole with link(2), which fails if the name exists, so a reader
 * never sees a half-written owner. It records the holder's PID plus the boot id and the process
 * start time, so a lock left by a killed run (or a PID reused after a reboot) is recognised as
 * stale and taken over instead of blocking the machine forever. Released when the command ends
 * (and, as a last resort, when the process exits); a SIGKILL leaves it stale, not held.
 */
import { type Stats, closeSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, realpathSync, renameSync, rmdirSync, unlinkSync, writeSync, constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { TsadmError, errorMessage } from '../errors.js';
import { formatLockFile, parseLockFile, staleReason, systemProbe, type LockOwner, type ProcessProbe } from './lock-owner.js';
import { resolveUnder } from './rooted-host.js';

export { formatLockFile, parseLockFile, staleReason, systemProbe, type LockOwner, type ProcessProbe } from './lock-owner.js';

/** Host path of the lock. A dot-file: kubeadm and the kubelet ignore it, reset leaves it alone. */
export const LOCK_FILE = '/etc/kubernetes/.tsadm.lock';

export interface AcquireOptions {
  readonly probe?: ProcessProbe;
  readonly pid?: number;
  /** Called when a stale lock is taken over (for a log line). */
  readonly onStale?: (owner: LockOwner, reason: string) => void;
}

export interface MachineLock {
  /** Real path of the lock file. */
  readonly path: string;
  readonly owner: LockOwner;
  /** Removes the lock if it is still ours; safe to call twice. Synchronous so it can run at exit. */
  release(): void;
}

const held = new Set<MachineLock>();
let exitHookInstalled = false;

/** Takes the machine lock under `root` for `command`, or throws E_LOCKED naming the holder. */
export function acquireMachineLock(root: string, command: string, opts: AcquireOptions = {}): MachineLock {
  const probe = opts.probe ?? systemProbe;
  const pid = opts.pid ?? process.pid;
  const lockPath = resolveUnder(root, LOCK_FILE);
  assertLockInsideRoot(root, path.dirname(lockPath));
  const createdDirs = ensureDir(path.dirname(lockPath));
  const owner: LockOwner = {
    pid,
    command,
    startedAt: new Date().toISOString(),
    host: hostname(),
    nonce: randomBytes(8).toString('hex'),
    ...optional('bootId', probe.bootId()),
    ...optional('startTicks', probe.startTicks(pid)),
  };
  // A stale lock is taken over at most a few times; more means others are racing for it too.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (tryCreate(lockPath, formatLockFile(owner))) {
      const lock: MachineLock = {
        path: lockPath,
        owner,
        release: () => {
          if (!held.delete(lock)) return;
          removeIfOurs(lockPath, owner.nonce);
          for (const dir of createdDirs.reverse()) {
            try {
              rmdirSync(dir); // only if still empty: the run may have filled it
            } catch {
              break;
            }
          }
        },
      };
      held.add(lock);
      installExitHook();
      removeLeftovers(path.dirname(lockPath), probe);
      return lock;
    }
    const text = readOrUndefined(lockPath);
    if (text === undefined) continue; // released in between: try again
    const holder = parseLockFile(text);
    const reason = holder ? staleReason(holder, probe) : 'it is not a tsadm lock file';
    if (holder && reason === undefined) throw lockedError(holder, lockPath);
    if (holder === undefined && isFresh(lockPath)) {
      // Not ours to judge yet: a lock is written whole, so this is something else; refuse.
      throw new TsadmError('E_LOCKED', `${LOCK_FILE} exists but is not a tsadm lock`, { hint: `remove ${lockPath} if no tsadm is running` });
    }
    takeOver(lockPath, text);
    if (holder) opts.onStale?.(holder, reason ?? '');
  }
  throw new TsadmError('E_LOCKED', `could not take the tsadm lock ${LOCK_FILE}: other tsadm processes keep taking it`, {
    hint: 'wait for the other tsadm to finish and run again',
  });
}

function lockedError(holder: LockOwner, lockPath: string): TsadmError {
  return new TsadmError(
    'E_LOCKED',
    `another tsadm is running on this machine ("${holder.command}", pid ${holder.pid}, since ${holder.startedAt}); refusing to run concurrently`,
    { hint: `wait for it to finish; if no tsadm is running, remove ${lockPath}` },
  );
}

/** Writes the owner to a private temp file, then links it into place: all or nothing. */
function tryCreate(lockPath: string, content: string): boolean {
  const tmp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  let fd: number;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TsadmError('E_PRECONDITION', `failed to create the tsadm lock ${LOCK_FILE}: ${errorMessage(err)}`, {
      cause: err,
      hint: code === 'EROFS' ? 'the filesystem is read-only' : 'run tsadm as root, or point --rootfs at a writable directory',
    });
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, lockPath);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new TsadmError('E_PRECONDITION', `failed to create the tsadm lock ${lockPath}: ${errorMessage(err)}`, { cause: err });
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * Moves a stale lock aside, then checks it really was the stale one; if another process had
 * replaced it in between, its fresh lock is put back (link fails rather than overwrite).
 */
function takeOver(lockPath: string, staleText: string): void {
  const aside = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // someone else moved it first
  }
  if (readOrUndefined(aside) !== staleText) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // A third process holds the name now; it is the holder.
    }
  }
  unlinkSync(aside);
}

/** Temp and aside files of runs killed mid-acquisition (their PID is in the name). */
function removeLeftovers(dir: string, probe: ProcessProbe): void {
  const base = path.basename(LOCK_FILE).replace(/\./g, '\\.');
  const pattern = new RegExp(`^${base}\\.(?:stale\\.)?(\\d+)\\.[0-9a-f]{8}$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1] ?? 0);
    if (pid > 0 && pid !== process.pid && !probe.exists(pid)) {
      try {
        unlinkSync(path.join(dir, name));
      } catch {
        // Raced with another cleaner: fine.
      }
    }
  }
}

function removeIfOurs(lockPath: string, nonce: string): void {
  const text = readOrUndefined(lockPath);
  if (text === undefined || parseLockFile(text)?.nonce !== nonce) return;
  try {
    unlinkSync(lockPath);
  } catch {
    // Already gone (e.g. the directory was removed): nothing to release.
  }
}

/** Creates missing directories (0755, like kubeadm) and returns those it created, outermost first. */
function ensureDir(dir: string): string[] {
  const st = lstatOrUndefined(dir);
  if (st?.isDirectory() || st?.isSymbolicLink()) return [];
  const created = ensureDir(path.dirname(dir));
  try {
    mkdirSync(dir, { mode: 0o755 });
    created.push(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new TsadmError('E_PRECONDITION', `failed to create ${dir} for the tsadm lock: ${errorMessage(err)}`, {
        cause: err,
        hint: 'run tsadm as root, or point --rootfs at a writable directory',
      });
    }
  }
  return created;
}

/** Under --rootfs, the lock must not be created through a link leading out of the rootfs. */
function assertLockInsideRoot(root: string, dir: string): void {
  if (root === '/') return;
  const rootReal = realpathSync(root);
  for (let probe = dir; ; probe = path.dirname(probe)) {
    let resolved: string;
    try {
      resolved = realpathSync(probe);
    } catch {
      if (probe === path.dirname(probe)) return;
      continue;
    }
    if (resolved !== rootReal && !resolved.startsWith(`${rootReal}${path.sep}`)) {
      throw new TsadmError('E_PRECONDITION', `refusing to use ${LOCK_FILE}: a symbolic link in its path leads outside the --rootfs (to ${resolved})`, {
        hint: `replace the link with a directory inside ${root}`,
      });
    }
    return;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort for paths that exit without closing the command (process.exit on SIGINT).
  process.on('exit', () => {
    for (const lock of [...held]) lock.release();
  });
}

/** A foreign file younger than a minute is left alone: it may be something being set up by hand. */
function isFresh(p: string): boolean {
  const st = lstatOrUndefined(p);
  return st !== undefined && Date.now() - st.mtimeMs < 60_000;
}

function readOrUndefined(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
