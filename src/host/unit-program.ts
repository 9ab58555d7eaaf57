/**
 * The program a systemd unit of tsadm's runs as root, unattended (the renewal and snapshot timers,
 * the kubelet-serving approver): which one, and whether only root controls it.
 *
 * Which one: --tsadm-path when given, else the tsadm that is running — the single executable alone
 * (the Debian package's /usr/bin/tsadm), or the Node.js binary running it and the script it runs
 * (bin/tsadm of a checkout), named explicitly so systemd finds no interpreter on its PATH. A
 * --tsadm-path that is a script ("#!") is run with the running Node.js in the same way.
 *
 * Whether only root controls it: every file that gets executed and every directory above each, up
 * to "/", must be owned by uid 0 and writable by neither group nor others (a sticky 1777 directory
 * such as /tmp is refused too: its users can still create the name), and each symbolic link met on
 * the way is followed and its target's chain checked the same way. Otherwise a user who can write
 * any of them chooses what root runs every day. For a script that is the Node.js binary, the
 * script, the module files it imports from its own directory and from ../dist (bin/tsadm imports
 * dist/fast.mjs, dist/tsadm.mjs and its chunks; the build bundles every dependency into them, so
 * node_modules is not read), and the package.json Node.js reads to decide how to load the script.
 *
 * The check walks the path one component at a time as the target machine will resolve it: under
 * --rootfs the root is the rootfs directory (an absolute link leads to the rootfs's own file, as
 * it will on that machine), so what is judged is the machine the unit will run on.
 */
import { promises as fs, type Stats } from 'node:fs';
import { isSea } from 'node:sea';
import path from 'node:path';
import { TsadmError, errorMessage } from '../errors.js';
import type { Host } from './host.js';

/** How this tsadm runs. */
export interface RunningTsadm {
  /** process.execPath: the Node.js binary, or tsadm itself when it is the single executable. */
  readonly execPath: string;
  /** The script Node.js runs (process.argv[1], absolute); absent for the single executable. */
  readonly script?: string;
}

/** This process: the single executable, or Node.js running a script. */
function runningTsadm(): RunningTsadm {
  const script = process.argv[1];
  if (isSea() || script === undefined || script === '' || path.resolve(script) === process.execPath) return { execPath: process.execPath };
  return { execPath: process.execPath, script: path.resolve(script) };
}

export interface UnitProgramOptions {
  /** --tsadm-path as given: the tsadm executable (or script) the unit runs. */
  readonly tsadmPath?: string;
  /** How this tsadm runs (default: this process). */
  readonly running?: RunningTsadm;
  /** Names the unit in the refusal ("tsadm-certs-renew.service"). */
  readonly unit: string;
}

export interface UnitProgram {
  /** ExecStart='s program and its leading arguments: [tsadm], or [node, script]. */
  readonly argv: readonly string[];
  /** Every path that was checked (as the target machine names them), in order. */
  readonly checked: readonly string[];
}

export const UNIT_PROGRAM_HINT = 'install the package (/usr/bin/tsadm) or pass --tsadm-path with a root-owned copy';

/**
 * The program the unit runs, checked; throws E_PRECONDITION naming the first path root does not
 * control (E_USAGE for a --tsadm-path that is no absolute path systemd can take as it is).
 */
export async function unitProgram(host: Pick<Host, 'root'>, o: UnitProgramOptions): Promise<UnitProgram> {
  const running = o.running ?? runningTsadm();
  const root = host.root === '/' ? '/' : await fs.realpath(host.root).catch(() => host.root);
  const walker = new TrustWalk(root, o.unit);
  let argv: string[];
  if (o.tsadmPath !== undefined) {
    const named = o.tsadmPath;
    assertExecStartPath(named, '--tsadm-path');
    const real = await walker.file(named, named);
    if (await isScript(walker.real(real))) {
      if (running.script === undefined) {
        throw new TsadmError('E_USAGE', `--tsadm-path ${named} is a script, and this tsadm is the single executable: there is no Node.js to run it with`, {
          hint: 'name a single executable (/usr/bin/tsadm of the package, or dist/tsadm of `npm run build:sea`) instead',
        });
      }
      argv = [running.execPath, named];
      assertExecStartPath(running.execPath, 'the Node.js binary for the unit');
      await walker.file(running.execPath, running.execPath);
      await walker.modulesOf(real, named);
    } else {
      argv = [named];
    }
  } else if (running.script === undefined) {
    argv = [running.execPath];
    assertExecStartPath(running.execPath, 'the tsadm executable for the unit');
    await walker.file(running.execPath, running.execPath);
  } else {
    argv = [running.execPath, running.script];
    assertExecStartPath(running.execPath, 'the Node.js binary for the unit');
    assertExecStartPath(running.script, 'the tsadm script for the unit');
    await walker.file(running.execPath, running.execPath);
    await walker.modulesOf(await walker.file(running.script, running.script), running.script);
  }
  return { argv, checked: walker.checked };
}

/** systemd splits ExecStart= on whitespace and expands "%" and "$": such a path cannot be written as it is. */
function assertExecStartPath(p: string, what: string): void {
  if (!path.posix.isAbsolute(p) || /[\s"'\\%$;]/.test(p)) {
    throw new TsadmError('E_USAGE', `${what} must be an absolute path without spaces, quotes, "%", "$" or ";" (got "${p}")`, { hint: UNIT_PROGRAM_HINT });
  }
}

/** Whether the file starts with "#!" (an interpreter script rather than an executable). */
async function isScript(real: string): Promise<boolean> {
  const handle = await fs.open(real, 'r');
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await handle.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf.toString('latin1') === '#!';
  } finally {
    await handle.close();
  }
}

const MAX_LINKS = 40; // Linux's MAXSYMLINKS
const MODULE_FILE = /\.(?:mjs|cjs|js)$/;

/** Walks host paths component by component under a root, checking every directory and file met. */
class TrustWalk {
  readonly checked: string[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly root: string, private readonly unit: string) {}

  real(hostPath: string): string {
    return this.root === '/' ? hostPath : path.join(this.root, hostPath);
  }

  /** Checks a regular file's path; returns its real host path. `program` is what the unit runs, for the message. */
  async file(hostPath: string, program: string): Promise<string> {
    return this.walk(hostPath, program, 'file');
  }

  /**
   * The files a script loads besides itself: the module files in its own directory and in ../dist
   * (the launcher's bundles), those directories themselves, and the package.json files Node.js
   * reads to learn the script's module type.
   */
  async modulesOf(realScript: string, program: string): Promise<void> {
    const own = path.posix.dirname(realScript);
    const pkg = path.posix.dirname(own);
    for (const dir of [own, path.posix.join(pkg, 'dist')]) {
      const st = await fs.lstat(this.real(dir)).catch(() => undefined);
      if (st === undefined) continue;
      const realDir = await this.walk(dir, program, 'dir');
      for (const name of (await fs.readdir(this.real(realDir))).sort()) {
        if (MODULE_FILE.test(name)) await this.walk(path.posix.join(realDir, name), program, 'file');
      }
    }
    for (const file of [path.posix.join(own, 'package.json'), path.posix.join(pkg, 'package.json')]) {
      if (await fs.lstat(this.real(file)).catch(() => undefined)) await this.walk(file, program, 'file');
    }
  }

  private async walk(hostPath: string, program: string, want: 'file' | 'dir'): Promise<string> {
    const refuse = (at: string, reason: string): never => {
      const where = this.root === '/' ? '' : ` (under --rootfs ${this.root})`;
      const via = at === hostPath || hostPath === program ? '' : ` (checking ${hostPath})`;
      throw new TsadmError('E_PRECONDITION', `refusing to write ${this.unit}: it would run ${program} as root, and ${at} ${reason}${via}${where}`, { hint: UNIT_PROGRAM_HINT });
    };
    const pending = hostPath.split('/').filter((c) => c !== '' && c !== '.');
    let cur = '/';
    await this.judge(cur, refuse, 'dir');
    let links = 0;
    while (pending.length > 0) {
      const c = pending.shift()!;
      if (c === '..') {
        cur = path.posix.dirname(cur);
        continue;
      }
      const next = path.posix.join(cur, c);
      let st: Stats;
      try {
        st = await fs.lstat(this.real(next));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        return refuse(next, code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a directory' : `cannot be read: ${errorMessage(err)}`);
      }
      if (st.isSymbolicLink()) {
        if (++links > MAX_LINKS) return refuse(hostPath, 'has too many levels of symbolic links');
        // The link itself needs no check: only the owner of the directory it sits in (checked as
        // `cur`) can replace it. Its target is walked from "/" (absolute) or from `cur`.
        const target = await fs.readlink(this.real(next));
        if (target.startsWith('/')) cur = '/';
        pending.unshift(...target.split('/').filter((t) => t !== '' && t !== '.'));
        continue;
      }
      const last = pending.length === 0;
      await this.judge(next, refuse, last ? want : 'dir', st);
      cur = next;
    }
    return cur;
  }

  /** Root-owned, not writable by group or others, and of the kind expected. */
  private async judge(hostPath: string, refuse: (at: string, reason: string) => never, want: 'file' | 'dir', known?: Stats): Promise<void> {
    const st = known ?? await fs.lstat(this.real(hostPath)).catch((err: unknown) => refuse(hostPath, `cannot be read: ${errorMessage(err)}`));
    if (want === 'dir' && !st.isDirectory()) refuse(hostPath, 'is not a directory');
    if (want === 'file' && !st.isFile()) refuse(hostPath, 'is not a regular file');
    if (st.uid !== 0) refuse(hostPath, `is owned by uid ${st.uid}, not root`);
    const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
    if (st.mode & 0o002) refuse(hostPath, `is writable by others (mode ${mode})`);
    if (st.mode & 0o020) refuse(hostPath, `is writable by its group (mode ${mode})`);
    if (!this.seen.has(hostPath)) {
      this.seen.add(hostPath);
      this.checked.push(hostPath);
    }
  }
}
