import path from 'node:path';
import { RootedHost, sha256Hex } from './rooted-host.js';
import type { ExecOptions, ExecResult, FileRecord, FileStat, Host, ServiceAction, ServiceResult, WriteOptions } from './host.js';

interface Pending {
  readonly content: Buffer;
  readonly mode: number;
}

/**
 * Dry-run: reads go through an in-memory overlay of what would have been written, so later
 * phases see earlier phases' output (certs before kubeconfigs) exactly as in a real run; nothing
 * reaches the disk, no mutating command runs, and every write is recorded with its content.
 */
export class DryRunHost implements Host {
  readonly dryRun = true;
  readonly writes: FileRecord[] = [];
  readonly actions: string[] = [];
  private readonly files = new Map<string, Pending>();
  private readonly dirs = new Set<string>();
  private readonly removed = new Set<string>();

  constructor(private readonly inner: RootedHost) {}

  get root(): string {
    return this.inner.root;
  }

  resolve(hostPath: string): string {
    return this.inner.resolve(hostPath);
  }

  async readFile(hostPath: string): Promise<Buffer | undefined> {
    const key = path.posix.normalize(hostPath);
    const pending = this.files.get(key);
    if (pending) return pending.content;
    if (this.isRemoved(key)) return undefined;
    return this.inner.readFile(key);
  }

  async stat(hostPath: string): Promise<FileStat | undefined> {
    const key = path.posix.normalize(hostPath);
    const pending = this.files.get(key);
    if (pending) return { isFile: true, isDirectory: false, isSymlink: false, isSocket: false, mode: pending.mode, size: pending.content.length };
    if (this.dirs.has(key)) return { isFile: false, isDirectory: true, isSymlink: false, isSocket: false, mode: 0o755, size: 0 };
    if (this.isRemoved(key)) return undefined;
    return this.inner.stat(key);
  }

  async readdir(hostPath: string): Promise<string[]> {
    const key = path.posix.normalize(hostPath);
    const names = new Set(this.isRemoved(key) ? [] : await this.inner.readdir(key));
    for (const p of [...this.files.keys(), ...this.dirs]) {
      if (path.posix.dirname(p) === key) names.add(path.posix.basename(p));
    }
    for (const r of this.removed) if (path.posix.dirname(r) === key) names.delete(path.posix.basename(r));
    return [...names].sort();
  }

  async writeFile(hostPath: string, data: Uint8Array | string, options: WriteOptions): Promise<FileRecord> {
    const key = path.posix.normalize(hostPath);
    const content = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    const before = await this.readFile(key);
    const beforeStat = await this.stat(key);
    const unchanged = before !== undefined && before.equals(content) && beforeStat?.mode === options.mode;
    this.files.set(key, { content, mode: options.mode });
    this.removed.delete(key);
    const record: FileRecord = { ...options, path: key, size: content.length, sha256: sha256Hex(content), unchanged, content };
    this.writes.push(record);
    return record;
  }

  async mkdir(hostPath: string, _mode: number): Promise<void> {
    const key = path.posix.normalize(hostPath);
    this.dirs.add(key);
    this.removed.delete(key);
  }

  async remove(hostPath: string): Promise<void> {
    const key = path.posix.normalize(hostPath);
    this.actions.push(`remove ${key}`);
    this.removed.add(key);
    for (const p of [...this.files.keys()]) if (p === key || p.startsWith(`${key}/`)) this.files.delete(p);
    for (const d of [...this.dirs]) if (d === key || d.startsWith(`${key}/`)) this.dirs.delete(d);
  }

  async exec(command: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    if (options.mutating) {
      this.actions.push([command, ...args].join(' '));
      return { exitCode: 0, stdout: '', stderr: '' };
    }
    return this.inner.exec(command, args, options);
  }

  async service(action: ServiceAction, unit: string): Promise<ServiceResult> {
    if (action === 'is-active') return this.inner.service(action, unit);
    this.actions.push(`${action} ${unit}`);
    return { ok: true, via: 'dry-run', message: `would ${action} ${unit}` };
  }

  private isRemoved(key: string): boolean {
    for (const r of this.removed) if (key === r || key.startsWith(`${r}/`)) return true;
    return false;
  }
}
