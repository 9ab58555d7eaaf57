/**
 * The host seam: the only way phases touch the machine. Paths are always the *host* paths a
 * phase means (/etc/kubernetes/pki/ca.crt); the host resolves them under --rootfs. Dry-run is a
 * different Host implementation, not a flag phases look at.
 */

/** What a file is, for the plan and the dry-run listing. */
export type FileKind = 'certificate' | 'private-key' | 'public-key' | 'kubeconfig' | 'manifest' | 'config' | 'csr' | 'binary' | 'other';

export interface WriteOptions {
  /** Octal permission bits, e.g. 0o600. */
  readonly mode: number;
  readonly kind: FileKind;
  /** Human description, e.g. `"apiserver" certificate`. */
  readonly description: string;
}

/** writeFileFrom's options: a caller that hashes the streamed bytes itself can hand over that digest. */
export interface StreamWriteOptions extends WriteOptions {
  /**
   * The SHA-256 (hex) of exactly the bytes `source` yielded, read once it has ended: given by a
   * caller that already hashes them as they go by (an etcd snapshot's integrity check), so the
   * seam does not hash them a second time.
   */
  readonly sha256Of?: () => string;
}

/** A file write that happened (or, in dry-run, would have happened). */
export interface FileRecord extends WriteOptions {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  /** True when the target existed with identical bytes and mode, so nothing was written. */
  readonly unchanged: boolean;
  /** Content; kept only in dry-run (for printing manifests and for plans). */
  readonly content?: Buffer;
}

export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ExecOptions {
  readonly input?: string;
  readonly timeoutMs?: number;
  /** A mutating command: dry-run records it instead of running it. */
  readonly mutating?: boolean;
}

/** `enable` and `daemon-reload` (the unit is then ignored by systemctl) are used by the host phases. */
export type ServiceAction = 'start' | 'stop' | 'restart' | 'enable' | 'disable' | 'daemon-reload' | 'is-active';

export interface ServiceResult {
  readonly ok: boolean;
  /** How the action was carried out ("systemctl", "$TSADM_SERVICE_MANAGER", "none"). */
  readonly via: string;
  readonly message?: string;
}

export interface ReadOptions {
  /** The largest file to read; more is refused (default: safe-fs MAX_READ_BYTES). */
  readonly maxBytes?: number;
}

export interface FileStat {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  readonly isSocket: boolean;
  readonly mode: number;
  readonly size: number;
}

export interface Host {
  /** "/" for the real machine, or the --rootfs directory. */
  readonly root: string;
  readonly dryRun: boolean;
  /** The real path of a host path (under root). */
  resolve(hostPath: string): string;
  /**
   * A regular file's bytes, or undefined when absent. Larger files than any configuration
   * (safe-fs MAX_READ_BYTES) are refused unless `maxBytes` allows them (a binary being replaced).
   */
  readFile(hostPath: string, opts?: ReadOptions): Promise<Buffer | undefined>;
  stat(hostPath: string): Promise<FileStat | undefined>;
  readdir(hostPath: string): Promise<string[]>;
  /** Atomic write with the given mode; parents created 0755 unless created before. */
  writeFile(hostPath: string, data: Uint8Array | string, options: WriteOptions): Promise<FileRecord>;
  /**
   * Throws the error writeFile would for reasons found on disk (a symbolic link or directory in
   * the way, a link leading out of the rootfs), without writing: a phase that writes several
   * files checks them all first, so a refusal leaves none of them changed.
   */
  assertWritable(hostPath: string): Promise<void>;
  /**
   * writeFile for content streamed in chunks (too large to hold: an etcd snapshot). Written to a
   * temp file beside the target, fsynced, renamed; when `source` throws, nothing is left behind.
   * Never "unchanged": the content is only known once written. Dry-run drains nothing and
   * records the write with size 0.
   */
  writeFileFrom(hostPath: string, source: AsyncIterable<Uint8Array>, options: StreamWriteOptions): Promise<FileRecord>;
  /**
   * Renames a file or directory within the host (moving a static Pod manifest aside, keeping an
   * old data directory); refuses when `to` exists. The directory of `to` must exist.
   */
  rename(from: string, to: string): Promise<void>;
  /**
   * Makes HOSTPATH a symbolic link to TARGET (the link's text: a name relative to HOSTPATH's
   * directory, or, on the real machine only, an absolute path), replacing a file or link there
   * atomically: made under a temp name beside it, then renamed over (the kubelet keeps its current
   * certificate as such a link). Refuses a directory in the way. Parents created 0755.
   */
  symlink(hostPath: string, target: string): Promise<void>;
  mkdir(hostPath: string, mode: number): Promise<void>;
  /** Removes a file or directory tree. */
  remove(hostPath: string): Promise<void>;
  exec(command: string, args: readonly string[], options?: ExecOptions): Promise<ExecResult>;
  service(action: ServiceAction, unit: string): Promise<ServiceResult>;
  /** Every write so far (dry-run: every write that would have happened), in order. */
  readonly writes: readonly FileRecord[];
  /** Mutating commands and service actions recorded (dry-run) or run. */
  readonly actions: readonly string[];
}
