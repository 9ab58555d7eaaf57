import { mkdtempSync, mkdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TempRoot {
  readonly dir: string;
  /** Absolute path of a host path under this root. */
  at(hostPath: string): string;
  cleanup(): void;
}

/** A temp directory standing in for a machine's root (--rootfs), pre-filled with files. */
export function tempRoot(files: Record<string, string | { content: string; mode: number }> = {}): TempRoot {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsadm-test-'));
  const at = (hostPath: string): string => path.join(dir, hostPath);
  for (const [p, v] of Object.entries(files)) {
    const target = at(p);
    mkdirSync(path.dirname(target), { recursive: true });
    const content = typeof v === 'string' ? v : v.content;
    writeFileSync(target, content);
    if (typeof v !== 'string') chmodSync(target, v.mode);
  }
  return { dir, at, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
