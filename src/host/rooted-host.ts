import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { createHash, type Hash } from 'node:crypto';
import { TsadmError, errorMessage } from '../errors.js';
import { symlinkAtomic, writeFileAtomic, writeStreamAtomic } from './atomic-write.js';
import { checkFault } from './fault.js';
import { MAX_READ_BYTES, assertInsideRoot, readRegularFile } from './safe-fs.js';
import { runService } from './service.js';
import type { ExecOptions, ExecResult, FileRecord, FileStat, Host, ReadOptions, ServiceAction, ServiceResult, StreamWriteOptions, WriteOptions } from './host.js';

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Resolves a host path under root without letting ".." escape it. */
export function resolveUnder(root: string, hostPath: string): string {
  if (!path.isAbsolute(hostPath)) {
    throw new TsadmError('E_INTERNAL', `host path "${hostPath}" is not absolute`);
  }
  const normalized = path.posix.normalize(hostPath);
  return root === '/' ? normalized : path.join(root, normalized);
}

/** The real machine, or a directory standing in for it (--rootfs). */
export class RootedHost implements Host {
  readonly dryRun: boolean = false;
  readonly writes: FileRecord[] = [];
  readonly actions: string[] = [];

  constructor(readonly root: string = '/') {}

  resolve(hostPath: string): string {
    return resolveUnder(this.root, hostPath);
  }

  async readFile(hostPath: string, opts: ReadOptions = {}): Promise<Buffer | undefined> {
    const real = this.resolve(hostPath);
    try {
      await assertInsideRoot(this.root, real, hostPath, { followFinal: true });
      return await readRegularFile(real, hostPath, opts.maxBytes);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (err instanceof TsadmError) throw err;
      throw ioError('read', hostPath, err);
    }
  }

  async stat(hostPath: string): Promise<FileStat | undefined> {
    try {
      const st = await fs.lstat(this.resolve(hostPath));
      let target = st;
      if (st.isSymbolicLink()) target = await fs.stat(this.resolve(hostPath)).catch(() => st);
      return {
        isFile: target.isFile(),
        isDirectory: target.isDirectory(),
        isSymlink: st.isSymbolicLink(),
        isSocket: target.isSocket(),
        mode: target.mode & 0o7777,
        size: target.size,
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw ioError('stat', hostPath, err);
    }
  }

  async readdir(hostPath: string): Promise<string[]> {
    try {
      await assertInsideRoot(this.root, this.resolve(hostPath), hostPath, { followFinal: true });
      return (await fs.readdir(this.resolve(hostPath))).sort();
    } catch (err) {
      if (err instanceof TsadmError) throw err;
      if (isNotFound(err)) return [];
      throw ioError('list', hostPath, err);
    }
  }

  async assertWritable(hostPath: string): Promise<void> {
    await this.writableTarget(hostPath);
  }

  /** The checks before a write; returns what is at the path now (a regular file or nothing). */
  private async writableTarget(hostPath: string): Promise<{ real: string; existing: Stats | undefined }> {
    const real = this.resolve(hostPath);
    await assertInsideRoot(this.root, real, hostPath, { followFinal: false });
    const existing = await fs.lstat(real).catch(() => undefined);
    if (existing?.isSymbolicLink()) {
      throw new TsadmError('E_PRECONDITION', `refusing to write ${hostPath}: it is a symbolic link`, {
        hint: `remove the link (${real}) and run again`,
      });
    }
    if (existing?.isDirectory()) {
      throw new TsadmError('E_PRECONDITION', `cannot write ${hostPath}: a directory is in the way`);
    }
    return { real, existing };
  }

  async writeFile(hostPath: string, data: Uint8Array | string, options: WriteOptions): Promise<FileRecord> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    const { real, existing } = await this.writableTarget(hostPath);
    const sha256 = sha256Hex(bytes);
    const unchanged = existing !== undefined && (existing.mode & 0o7777) === options.mode
      // Same size as what is written, so reading it is bounded by our own data (a binary from a bundle).
      && existing.size === bytes.length && sha256Hex(await readRegularFile(real, hostPath, Math.max(MAX_READ_BYTES, bytes.length))) === sha256;
    if (!unchanged) {
      await this.ensureParent(path.dirname(hostPath));
      try {
        await writeFileAtomic(real, bytes, options.mode, { beforeRename: () => checkFault('write', hostPath, 'before-rename') });
      } catch (err) {
        throw ioError('write', hostPath, err);
      }
      checkFault('write', hostPath);
    }
    const record: FileRecord = { ...options, path: hostPath, size: bytes.length, sha256, unchanged };
    this.writes.push(record);
    return record;
  }

  async writeFileFrom(hostPath: string, source: AsyncIterable<Uint8Array>, options: StreamWriteOptions): Promise<FileRecord> {
    const { real } = await this.writableTarget(hostPath);
    await this.ensureParent(path.dirname(hostPath));
    const { sha256Of, ...writeOptions } = options;
    const hash = sha256Of ? undefined : createHash('sha256');
    const failed: { err?: unknown } = {};
    let size: number;
    try {
      size = await writeStreamAtomic(real, passing(source, hash, failed), options.mode, { beforeRename: () => checkFault('write', hostPath, 'before-rename') });
    } catch (err) {
      // The source's own failure (the transfer, a check at its end) is the caller's to report.
      if (err instanceof TsadmError || ('err' in failed && failed.err === err)) throw err;
      throw ioError('write', hostPath, err);
    }
    checkFault('write', hostPath);
    const record: FileRecord = { ...writeOptions, path: hostPath, size, sha256: sha256Of ? sha256Of() : hash!.digest('hex'), unchanged: false };
    this.writes.push(record);
    return record;
  }

  async rename(from: string, to: string): Promise<void> {
    const realFrom = this.resolve(from);
    const realTo = this.resolve(to);
    await assertInsideRoot(this.root, realFrom, from, { followFinal: false });
    await assertInsideRoot(this.root, realTo, to, { followFinal: false });
    if (await fs.lstat(realTo).catch(() => undefined)) {
      throw new TsadmError('E_CONFLICT', `cannot move ${from} to ${to}: ${to} already exists`, { hint: `move ${to} away and run again` });
    }
    try {
      await fs.rename(realFrom, realTo);
    } catch (err) {
      throw ioError(`move ${from} to`, to, err);
    }
    this.actions.push(`rename ${from} ${to}`);
  }

  async symlink(hostPath: string, target: string): Promise<void> {
    // Under --rootfs an absolute target would name the real machine's file, and ".." could leave the root.
    if (this.root !== '/' && (path.posix.isAbsolute(target) || target.split('/').includes('..'))) {
      throw new TsadmError('E_INTERNAL', `cannot link ${hostPath} to ${target} under --rootfs: the target must be a relative path below the link's directory`);
    }
    const real = this.resolve(hostPath);
    await assertInsideRoot(this.root, real, hostPath, { followFinal: false });
    if ((await fs.lstat(real).catch(() => undefined))?.isDirectory()) {
      throw new TsadmError('E_PRECONDITION', `cannot link ${hostPath}: a directory is in the way`);
    }
    await this.ensureParent(path.dirname(hostPath));
    try {
      await symlinkAtomic(real, target, { beforeRename: () => checkFault('write', hostPath, 'before-rename') });
    } catch (err) {
      throw ioError('link', hostPath, err);
    }
    checkFault('write', hostPath);
    this.actions.push(`symlink ${hostPath} -> ${target}`);
  }

  async mkdir(hostPath: string, mode: number): Promise<void> {
    const real = this.resolve(hostPath);
    await assertInsideRoot(this.root, real, hostPath, { followFinal: false });
    const st = await fs.lstat(real).catch(() => undefined);
    if (st?.isDirectory()) return;
    // A link to a directory (inside the rootfs, checked above) is a relocated directory, e.g.
    // /var/lib/kubelet on a bigger disk: used as it is, as kubeadm's MkdirAll would.
    if (st?.isSymbolicLink() && (await fs.stat(real).catch(() => undefined))?.isDirectory()) return;
    if (st?.isSymbolicLink()) {
      throw new TsadmError('E_PRECONDITION', `refusing to use ${hostPath}: it is a symbolic link`, {
        hint: `remove the link (${real}) and run again`,
      });
    }
    if (st) throw new TsadmError('E_PRECONDITION', `cannot create directory ${hostPath}: a file is in the way`);
    await this.ensureParent(path.dirname(hostPath));
    try {
      await fs.mkdir(real, { mode });
      await fs.chmod(real, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('create directory', hostPath, err);
    }
  }

  async remove(hostPath: string): Promise<void> {
    await assertInsideRoot(this.root, this.resolve(hostPath), hostPath, { followFinal: false });
    try {
      await fs.rm(this.resolve(hostPath), { recursive: true, force: true });
      this.actions.push(`remove ${hostPath}`);
    } catch (err) {
      throw ioError('remove', hostPath, err);
    }
  }

  async exec(command: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const { execa } = await import('execa');
    if (options.mutating) this.actions.push([command, ...args].join(' '));
    const result = await execa(command, [...args], {
      reject: false,
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    });
    return {
      exitCode: result.exitCode ?? (result.failed ? 127 : 0),
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? (result.failed ? result.shortMessage : '')),
    };
  }

  async service(action: ServiceAction, unit: string): Promise<ServiceResult> {
    if (action !== 'is-active') this.actions.push(`${action} ${unit}`);
    return runService(this, action, unit);
  }

  /** Parents of written files are created like kubeadm does (0755) when missing. */
  private async ensureParent(hostDir: string): Promise<void> {
    if (hostDir === '/' ) return;
    const real = this.resolve(hostDir);
    const st = await fs.stat(real).catch(() => undefined);
    if (st?.isDirectory()) return;
    await this.ensureParent(path.dirname(hostDir));
    await this.mkdir(hostDir, 0o755);
  }
}

/** Yields `source`'s chunks, hashing them into `hash` when given, and notes the source's own failure. */
async function* passing(source: AsyncIterable<Uint8Array>, hash: Hash | undefined, failed: { err?: unknown }): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of source) {
      hash?.update(chunk);
      yield chunk;
    }
  } catch (err) {
    failed.err = err;
    throw err;
  }
}

function isNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function ioError(verb: string, hostPath: string, err: unknown): TsadmError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const hint = code === 'EACCES' || code === 'EPERM' ? 'run tsadm as root, or point --rootfs/--cert-dir at a writable directory'
    : code === 'EROFS' ? 'the filesystem is read-only' : undefined;
  return new TsadmError('E_PRECONDITION', `failed to ${verb} ${hostPath}: ${errorMessage(err)}`, {
    cause: err,
    ...(hint ? { hint } : {}),
  });
}
