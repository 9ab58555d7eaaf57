/**
 * The machine lock's record of its holder (src/host/lock.ts): what the lock file says, and how
 * to tell a live holder from a stale one — a PID that is gone, reused by another process, or
 * from before a reboot. Pure except the system probe, which reads /proc.
 */
import { readFileSync } from 'node:fs';

/** What the lock file says about its holder. */
export interface LockOwner {
  readonly pid: number;
  readonly command: string;
  readonly startedAt: string;
  readonly host: string;
  /** /proc/sys/kernel/random/boot_id when known: a lock from before a reboot is stale. */
  readonly bootId?: string;
  /** Start time of the holder (clock ticks since boot, /proc/<pid>/stat): catches PID reuse. */
  readonly startTicks?: string;
  /** Distinguishes this acquisition from any other by the same PID. */
  readonly nonce: string;
}

/** How the liveness of a holder is probed; a seam so tests can play dead and live processes. */
export interface ProcessProbe {
  /** True if a process with this PID exists (EPERM counts as existing). */
  exists(pid: number): boolean;
  bootId(): string | undefined;
  startTicks(pid: number): string | undefined;
}

export const systemProbe: ProcessProbe = {
  exists(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
  bootId: () => readTrimmed('/proc/sys/kernel/random/boot_id'),
  startTicks(pid) {
    // Field 22 of /proc/<pid>/stat; the command name (field 2) may contain spaces, so split
    // after its closing parenthesis.
    const stat = readTrimmed(`/proc/${pid}/stat`);
    const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields?.[19];
  },
};

export function formatLockFile(owner: LockOwner): string {
  return `${JSON.stringify(owner)}\n`;
}

/** The owner recorded in a lock file, or undefined when it is not one tsadm wrote. */
export function parseLockFile(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || !Number.isInteger(o.pid) || o.pid <= 0 || typeof o.nonce !== 'string') return undefined;
    return {
      pid: o.pid,
      command: String(o.command ?? 'unknown'),
      startedAt: String(o.startedAt ?? ''),
      host: String(o.host ?? ''),
      nonce: o.nonce,
      ...(typeof o.bootId === 'string' ? { bootId: o.bootId } : {}),
      ...(typeof o.startTicks === 'string' ? { startTicks: o.startTicks } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Why a recorded holder is no longer running, or undefined if it may still be. */
export function staleReason(owner: LockOwner, probe: ProcessProbe): string | undefined {
  const boot = probe.bootId();
  if (owner.bootId && boot && owner.bootId !== boot) return 'the machine rebooted since';
  if (!probe.exists(owner.pid)) return `process ${owner.pid} is gone`;
  const ticks = probe.startTicks(owner.pid);
  if (owner.startTicks && ticks && owner.startTicks !== ticks) return `PID ${owner.pid} now belongs to another process`;
  return undefined;
}

function readTrimmed(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
