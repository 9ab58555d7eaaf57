/**
 * Shared by the safety tests: run the built CLI as a separate process (so exit codes, stderr and
 * a SIGKILL are real), and snapshot a --rootfs tree to prove what changed and what did not.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeWithOracles, oracles } from './oracle.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The CLI under test: bin/tsadm (the built bundle), or $TSADM_TEST_BIN for a private build. */
export const TSADM = process.env.TSADM_TEST_BIN ?? path.join(REPO, 'bin', 'tsadm');

/** `describe` that needs the built CLI (npm run build), gated by test/helpers/oracle.ts. */
export function describeBuilt(name: string, fn: () => void): void {
  describeWithOracles([oracles.built])(name, fn);
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  readonly timeoutMs?: number;
  readonly input?: string;
}

/**
 * The environment of every CLI run: no service manager of the host (kubelet restarts are
 * answered by /bin/true), no CI colour or TTY tricks, no inherited fault injection.
 */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TSADM_')) env[k] = v;
  return { ...env, TSADM_SERVICE_MANAGER: '/bin/true', NO_COLOR: '1', ...extra };
}

/** Runs `node bin/tsadm ARGS` and waits for it. */
export function tsadm(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSADM, ...args], {
      cwd: opts.cwd ?? REPO,
      env: cliEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Synchronous variant for table tests that run many short commands. */
export function tsadmSync(args: readonly string[], opts: CliOptions = {}): CliResult {
  const r = spawnSync(process.execPath, [TSADM, ...args], {
    cwd: opts.cwd ?? REPO,
    env: cliEnv(opts.env),
    input: opts.input ?? '',
    timeout: opts.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

interface Entry {
  readonly type: 'file' | 'dir' | 'symlink' | 'other';
  readonly mode: number;
  /** sha256 of a file's content (an unread one's inode and ctime: see HASHED_MAX), or a symlink's target. */
  readonly content?: string;
  readonly size?: number;
  readonly mtimeMs?: number;
}

export type Snapshot = Map<string, Entry>;

/**
 * Files above this size are not read: their content stands as inode number and ctime, which any
 * write, truncation, chmod or rename onto the path changes, and no file call sets back (utimes sets
 * only atime and mtime). Hashing the hostile corpus's 1 GiB sparse ca.crt took 13 s of CPU per
 * snapshot, two per case (test/integration/safety/hostile.test.ts).
 */
const HASHED_MAX = 64 * 1024 * 1024;

/** Every entry under DIR (paths relative to it, "/"-rooted), with type, mode and content hash. */
export function snapshot(dir: string): Snapshot {
  const out: Snapshot = new Map();
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const r = `${rel}/${name}`;
      const real = path.join(dir, r);
      const st = lstatSync(real);
      const mode = st.mode & 0o7777;
      if (st.isSymbolicLink()) out.set(r, { type: 'symlink', mode, content: readlinkSync(real) });
      else if (st.isDirectory()) {
        out.set(r, { type: 'dir', mode });
        walk(r);
      } else if (st.isFile()) {
        const content = st.size > HASHED_MAX
          ? `not read: inode ${st.ino}, ctime ${lstatSync(real, { bigint: true }).ctimeNs}`
          : createHash('sha256').update(readFileSync(real)).digest('hex');
        out.set(r, { type: 'file', mode, size: st.size, mtimeMs: st.mtimeMs, content });
      } else out.set(r, { type: 'other', mode });
    }
  };
  walk('');
  return out;
}

/** Human-readable differences between two snapshots ("+ /a", "- /b", "~ /c mode 644->600"). */
export function diffSnapshots(before: Snapshot, after: Snapshot, opts: { ignoreMtime?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const [p, a] of before) {
    const b = after.get(p);
    if (!b) out.push(`- ${p}`);
    else if (a.type !== b.type) out.push(`~ ${p} type ${a.type}->${b.type}`);
    else if (a.mode !== b.mode) out.push(`~ ${p} mode ${a.mode.toString(8)}->${b.mode.toString(8)}`);
    else if (a.content !== b.content) out.push(`~ ${p} content`);
    else if (!opts.ignoreMtime && a.mtimeMs !== b.mtimeMs) out.push(`~ ${p} mtime (rewritten)`);
  }
  for (const p of after.keys()) if (!before.has(p)) out.push(`+ ${p}`);
  return out;
}

/** Files (not dirs) with their modes, for "same files, same modes" comparisons. */
export function fileModes(s: Snapshot): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, e] of s) out[p] = `${e.type} ${e.mode.toString(8)}`;
  return out;
}

/** Names of temp/aside files tsadm may create while writing (atomic-write, lock). */
export const TEMP_NAME = /(^|\/)\.[^/]+\.tsadm-(\d+-)?[0-9a-f]{12}$|\.tsadm\.lock\.(stale\.)?\d+\.[0-9a-f]{8}$/;

export interface Scratch {
  readonly dir: string;
  cleanup(): void;
}

export function scratchDir(prefix = 'tsadm-safety-'): Scratch {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Flags for the node-local part of init on a --rootfs: a fixed node, version, address and CRI
 * socket, so two runs render the same manifests and kubelet files.
 */
export const LOCAL_INIT_FLAGS = [
  '--kubernetes-version', 'v1.20.2',
  '--apiserver-advertise-address', '10.1.2.3',
  '--node-name', 'n1',
  '--cri-socket', '/run/containerd/containerd.sock',
] as const;

/** init's phases that need a running cluster or kubelet, skipped on a bare --rootfs. */
export const CLUSTER_PHASES = [
  'preflight', 'wait-for-kubelet', 'wait-control-plane', 'upload-config', 'upload-certs', 'mark-control-plane',
  'bootstrap-token', 'kubelet-finalize', 'addon', 'show-join-command',
] as const;

/** `init` limited to the on-disk phases: certs, kubeconfig, kubelet-start, control-plane, etcd. */
export function localInitArgs(root: string, extra: readonly string[] = []): string[] {
  return ['init', '--rootfs', root, ...LOCAL_INIT_FLAGS, '--skip-phases', CLUSTER_PHASES.join(','), ...extra];
}
