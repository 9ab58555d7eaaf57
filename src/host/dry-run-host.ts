import path from 'node:path';
import { TsadmError } from '../errors.js';
import { RootedHost, sha256Hex } from './rooted-host.js';
import type { ExecOptions, ExecResult, FileRecord, FileStat, Host, ReadOptions, ServiceAction, ServiceResult, StreamWriteOptions, WriteOptions } from './host.js';
import { MAX_READ_BYTES } from './safe-fs.js';
import { PlanJournal, type FileState } from './journal.js';

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
  /** Every planned change in order, and the machine as first seen: what `--plan` writes. */
  readonly journal = new PlanJournal();
  private readonly files = new Map<string, Pending>();
  private readonly dirs = new Set<string>();
  private readonly removed = new Set<string>();
  /** Links this run would make: host path to the link's text. */
  private readonly links = new Map<string, string>();

  constructor(private readonly inner: RootedHost) {}

  get root(): string {
    return this.inner.root;
  }

  resolve(hostPath: string): string {
    return this.inner.resolve(hostPath);
  }

  async readFile(hostPath: string, opts: ReadOptions = {}): Promise<Buffer | undefined> {
    const key = path.posix.normalize(hostPath);
    const pending = this.files.get(key);
    if (pending) return pending.content;
    const link = this.linkTarget(key);
    if (link !== undefined) return this.readFile(link, opts);
    if (this.isRemoved(key)) return undefined;
    const data = await this.inner.readFile(key, opts);
    if (this.journal.wantsFile(key)) this.journal.noteFile(key, await this.realState(key, data));
    return data;
  }

  /** True when HOSTPATH exists only as this run's planned write: nothing outside the run has it. */
  async plansOnly(hostPath: string): Promise<boolean> {
    const key = path.posix.normalize(hostPath);
    return this.files.has(key) && (await this.inner.stat(key)) === undefined;
  }

  async stat(hostPath: string): Promise<FileStat | undefined> {
    const key = path.posix.normalize(hostPath);
    const pending = this.files.get(key);
    if (pending) return { isFile: true, isDirectory: false, isSymlink: false, isSocket: false, mode: pending.mode, size: pending.content.length };
    if (this.dirs.has(key)) return { isFile: false, isDirectory: true, isSymlink: false, isSocket: false, mode: 0o755, size: 0 };
    const link = this.linkTarget(key);
    if (link !== undefined) {
      const target = await this.stat(link);
      return target ? { ...target, isSymlink: true } : { isFile: false, isDirectory: false, isSymlink: true, isSocket: false, mode: 0o777, size: 0 };
    }
    if (this.isRemoved(key)) return undefined;
    return this.inner.stat(key);
  }

  async readdir(hostPath: string): Promise<string[]> {
    const key = path.posix.normalize(hostPath);
    const names = new Set(this.isRemoved(key) ? [] : await this.inner.readdir(key));
    for (const p of [...this.files.keys(), ...this.dirs, ...this.links.keys()]) {
      if (path.posix.dirname(p) === key) names.add(path.posix.basename(p));
    }
    for (const r of this.removed) if (path.posix.dirname(r) === key) names.delete(path.posix.basename(r));
    return [...names].sort();
  }

  /** As the real run would refuse it; a file already planned or removed here is writable. */
  async assertWritable(hostPath: string): Promise<void> {
    const key = path.posix.normalize(hostPath);
    if (this.files.has(key) || this.links.has(key) || this.isRemoved(key)) return;
    await this.inner.assertWritable(key);
  }

  async writeFile(hostPath: string, data: Uint8Array | string, options: WriteOptions): Promise<FileRecord> {
    const key = path.posix.normalize(hostPath);
    const content = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    // Reading what is there is bounded by what is written (a binary from a bundle may exceed the usual cap).
    const allow = Math.max(MAX_READ_BYTES, content.length);
    await this.noteReal(key, allow);
    const beforeStat = await this.stat(key);
    const before = beforeStat?.isFile === true && beforeStat.size === content.length ? await this.readFile(key, { maxBytes: allow }) : undefined;
    const unchanged = before !== undefined && before.equals(content) && beforeStat?.mode === options.mode;
    this.files.set(key, { content, mode: options.mode });
    this.links.delete(key);
    this.removed.delete(key);
    const record: FileRecord = { ...options, path: key, size: content.length, sha256: sha256Hex(content), unchanged, content };
    this.writes.push(record);
    this.journal.record({ type: 'file', path: key, mode: options.mode, kind: options.kind, description: options.description, sha256: record.sha256, content, unchanged });
    return record;
  }

  async writeFileFrom(hostPath: string, _source: AsyncIterable<Uint8Array>, options: StreamWriteOptions): Promise<FileRecord> {
    const key = path.posix.normalize(hostPath);
    await this.inner.assertWritable(key);
    this.actions.push(`write ${key} (streamed)`);
    const { sha256Of: _drained, ...writeOptions } = options;
    const record: FileRecord = { ...writeOptions, path: key, size: 0, sha256: '', unchanged: false };
    this.writes.push(record);
    return record;
  }

  /** Recorded, not done: later reads in this run still see `from` (a dry run of a restore only lists its steps). */
  rename(from: string, to: string): Promise<void> {
    const a = path.posix.normalize(from);
    const b = path.posix.normalize(to);
    this.actions.push(`rename ${a} ${b}`);
    this.journal.record({ type: 'exec', command: 'mv', args: [a, b] });
    return Promise.resolve();
  }

  /** Later reads in this run follow the link to its target (planned or real). */
  async symlink(hostPath: string, target: string): Promise<void> {
    const key = path.posix.normalize(hostPath);
    if (!this.links.has(key) && (await this.stat(key))?.isDirectory) throw new TsadmError('E_PRECONDITION', `cannot link ${key}: a directory is in the way`);
    await this.noteReal(key);
    this.actions.push(`symlink ${key} -> ${target}`);
    this.journal.record({ type: 'symlink', path: key, target });
    this.files.delete(key);
    this.removed.delete(key);
    this.links.set(key, target);
  }

  mkdir(hostPath: string, mode: number): Promise<void> {
    const key = path.posix.normalize(hostPath);
    this.journal.record({ type: 'mkdir', path: key, mode });
    this.dirs.add(key);
    this.removed.delete(key);
    return Promise.resolve();
  }

  async remove(hostPath: string): Promise<void> {
    const key = path.posix.normalize(hostPath);
    await this.noteReal(key);
    this.actions.push(`remove ${key}`);
    this.journal.record({ type: 'remove', path: key });
    this.removed.add(key);
    for (const p of [...this.files.keys()]) if (p === key || p.startsWith(`${key}/`)) this.files.delete(p);
    for (const d of [...this.dirs]) if (d === key || d.startsWith(`${key}/`)) this.dirs.delete(d);
    for (const l of [...this.links.keys()]) if (l === key || l.startsWith(`${key}/`)) this.links.delete(l);
  }

  /** The host path a link this run made points to (undefined: no such link). */
  private linkTarget(key: string): string | undefined {
    const target = this.links.get(key);
    if (target === undefined) return undefined;
    return path.posix.isAbsolute(target) ? path.posix.normalize(target) : path.posix.join(path.posix.dirname(key), target);
  }

  async exec(command: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    if (options.mutating) {
      this.actions.push([command, ...args].join(' '));
      this.journal.record({ type: 'exec', command, args: [...args] });
      return { exitCode: 0, stdout: '', stderr: '' };
    }
    return this.inner.exec(command, args, options);
  }

  async service(action: ServiceAction, unit: string): Promise<ServiceResult> {
    if (action === 'is-active') return this.inner.service(action, unit);
    this.actions.push(`${action} ${unit}`);
    this.journal.record({ type: 'service', action, unit });
    return { ok: true, via: 'dry-run', message: `would ${action} ${unit}` };
  }

  /** Records how the real machine has a path, the first time the dry run touches it. */
  private async noteReal(key: string, maxBytes = MAX_READ_BYTES): Promise<void> {
    if (this.journal.wantsFile(key) && !this.files.has(key) && !this.isRemoved(key)) {
      this.journal.noteFile(key, await this.realState(key, undefined, maxBytes));
    }
  }

  private async realState(key: string, data: Buffer | undefined, maxBytes = MAX_READ_BYTES): Promise<FileState> {
    const st = await this.inner.stat(key);
    if (!st) return { state: 'absent' };
    if (st.isDirectory) return { state: 'directory' };
    if (!st.isFile) return { state: 'other' };
    const content = data ?? (await this.inner.readFile(key, { maxBytes })) ?? Buffer.alloc(0);
    return { state: 'file', sha256: sha256Hex(content), mode: st.mode };
  }

  private isRemoved(key: string): boolean {
    for (const r of this.removed) if (key === r || key.startsWith(`${r}/`)) return true;
    return false;
  }
}
