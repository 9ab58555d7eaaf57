/**
 * The one probe of the machine tsadm runs on: what preflight's checks (src/phases/preflight) and
 * the host phases' live state and exit checks (src/host/running-system.ts, src/phases/host) read
 * from it. Not --rootfs: ports, CPUs, /proc, PATH and the init system are the running machine's.
 * createRuntime (src/run/runtime.ts) chooses it once, `realSystem`, and every context carries it as
 * `ctx.system`; tests put their own SystemProbe there.
 */
import { execFile } from 'node:child_process';
import { promises as fs, constants as fsc } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import dns from 'node:dns/promises';
import { gunzipSync } from 'node:zlib';
import { NO_INIT_SYSTEM, detectInitSystem } from './init-system.js';

/** What tsadm reads from the running machine (preflight's checks and the host phases' live state). */
export interface SystemProbe {
  uid(): number;
  cpus(): number;
  memoryMB(): number;
  /** Resolves true when the TCP port can be bound on the address (all addresses when omitted). */
  portFree(port: number, address?: string): Promise<boolean>;
  /** A file of /proc or /sys as read, or undefined when it does not exist. */
  readProc(path: string): Promise<string | undefined>;
  /** Absolute path of an executable program on PATH, or undefined (Go's exec.LookPath, as kubeadm's InPathCheck). */
  which(program: string): Promise<string | undefined>;
  /** Resolves true when a unix socket accepts a connection. */
  socketReachable(path: string): Promise<boolean>;
  resolveHost(name: string): Promise<boolean>;
  env(name: string): string | undefined;
  /** The running kernel's release (uname -r), e.g. "6.1.0-13-amd64". */
  kernelRelease(): string;
  /** The filesystem type of /sys/fs/cgroup: "cgroup2fs" is cgroup v2, anything else v1 (kubeadm statfs's it). */
  cgroupFsType(): Promise<string | undefined>;
  /** True when the kernel module is loaded or built in (moduleEvidence). */
  moduleLoaded(name: string): Promise<boolean>;
  /** The kernel's build configuration (from /proc/config.gz or /boot/config-<release>, …), or why it could not be read. */
  kernelConfig(): Promise<{ text: string } | { error: string }>;
  /** The init system's view of a unit (kubeadm's initsystem), or the reason none was found. */
  service(unit: string): Promise<ServiceFacts | { error: string }>;
  /** GET an HTTPS/HTTP URL with optional TLS material (external etcd's /version); rejects on a connection error. */
  httpGet(url: string, tls: HttpTls, timeoutMs: number): Promise<{ status: number; body: string }>;
}

/** What kubeadm's initsystem tells about a unit. */
export interface ServiceFacts {
  readonly exists: boolean;
  readonly enabled: boolean;
  readonly active: boolean;
  /** How to enable the unit ("systemctl enable kubelet.service"). */
  readonly enableCommand: string;
}

/** PEM texts (read through the host seam, so --rootfs applies to the files). */
interface HttpTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** Where /proc/swaps is; its swap devices are activeSwaps of its text. */
export const PROC_SWAPS = '/proc/swaps';

/**
 * The active swap areas of /proc/swaps (its first column, the header line skipped): the one
 * reading of swap, for preflight's Swap check and the host swap phase alike. kubeadm's SwapCheck
 * counts the lines of the file and fails on more than one (the header).
 */
export function activeSwaps(procSwaps: string): string[] {
  return procSwaps.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0] ?? '').filter((s) => s !== '');
}

/** True when a unix socket accepts a connection within 2 s (a runtime's CRI socket: preflight's CRI check, the host phases). */
/** How long a CRI socket may take to accept (kubeadm's runtime client waits far longer). */
const SOCKET_TIMEOUT_MS = 10_000;

/** Whether a program accepts connections on unix socket SOCKET within TIMEOUT_MS. */
export function unixSocketAnswers(socket: string, timeoutMs = SOCKET_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.createConnection({ path: socket });
    const done = (v: boolean): void => {
      sock.destroy();
      resolve(v);
    };
    // A refused or missing socket errors at once; the timeout only covers a runtime that accepts
    // nothing. Its expiry is judged after the poll phase (setImmediate): timers run before I/O
    // callbacks, so when this process was busy or starved past the timeout (a loaded machine; the
    // other preflight checks run beside this one), a connection that had completed meanwhile would
    // otherwise be reported as "not running" (seen in the HA e2e under load).
    sock.setTimeout(timeoutMs, () => setImmediate(() => done(false)));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** statfs(2) magic numbers of /sys/fs/cgroup (linux/magic.h). */
const CGROUP2_SUPER_MAGIC = 0x63677270;
const TMPFS_MAGIC = 0x01021994;

/** Where system-validators' kernel validator looks for the kernel configuration, in its order. */
function kernelConfigPaths(release: string): string[] {
  return [
    '/proc/config.gz',
    `/boot/config-${release}`,
    `/usr/src/linux-${release}/.config`,
    '/usr/src/linux/.config',
    `/usr/lib/modules/${release}/config`,
    `/usr/lib/ostree-boot/config-${release}`,
    `/usr/lib/kernel/config-${release}`,
    `/usr/src/linux-headers-${release}/.config`,
    `/lib/modules/${release}/build/.config`,
  ];
}

function run(command: string, args: readonly string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(command, [...args], { timeout: 10_000 }, (err, stdout) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 127) : 0;
      resolve({ code, stdout: String(stdout) });
    });
  });
}

/**
 * kubeadm's initsystem, on the one init system of src/host/init-system.ts:
 * $TSADM_SERVICE_MANAGER when set (a unit it does not know exits 5 on is-active; is-enabled exits
 * 0 when enabled, and a manager without is-enabled answers non-zero, so tsadm enables, which is
 * idempotent), systemd when it runs, else no init system (kubeadm's warning). Every "is it
 * enabled" in tsadm (preflight's Service-Kubelet, the host phase's kubelet-service) asks here.
 */
async function serviceFacts(unit: string): Promise<ServiceFacts | { error: string }> {
  const enableCommand = `systemctl enable ${unit}.service`;
  const init = detectInitSystem();
  if (init.kind === 'manager') {
    const active = await run(init.program, ['is-active', unit]);
    const enabled = await run(init.program, ['is-enabled', unit]);
    return { exists: active.code !== 5, enabled: enabled.code === 0, active: active.code === 0, enableCommand };
  }
  if (init.kind === 'none') return { error: NO_INIT_SYSTEM };
  const status = await run('systemctl', ['status', unit]);
  const enabled = await run('systemctl', ['is-enabled', unit]);
  const active = await run('systemctl', ['is-active', unit]);
  return { exists: !status.stdout.includes('Loaded: not-found'), enabled: enabled.code === 0, active: active.stdout.trim() === 'active', enableCommand };
}

function httpGet(url: string, tls: HttpTls, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const options = { timeout: timeoutMs, ...(tls.ca !== undefined ? { ca: tls.ca } : {}), ...(tls.cert !== undefined ? { cert: tls.cert } : {}), ...(tls.key !== undefined ? { key: tls.key } : {}) };
    const req = (u.protocol === 'https:' ? https : http).get(u, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on('error', reject);
  });
}

/**
 * Where a module shows itself: /sys/module/<name> for a loaded module (and a built-in one with
 * parameters), modules.builtin of the running kernel, and for a built-in module with no sysfs entry
 * and no modules.builtin (a minimal kernel: CONFIG_BR_NETFILTER=y) what it provides: overlay's
 * file-system type, br_netfilter's net.bridge sysctls.
 */
export function moduleEvidence(name: string, release: string): { paths: string[]; filesystem?: string; builtinList: string } {
  const provides: Record<string, { paths: string[]; filesystem?: string }> = {
    overlay: { paths: [], filesystem: 'overlay' },
    br_netfilter: { paths: ['/proc/sys/net/bridge/bridge-nf-call-iptables'] },
  };
  const own = provides[name] ?? { paths: [] };
  return { paths: [`/sys/module/${name}`, ...own.paths], ...(own.filesystem ? { filesystem: own.filesystem } : {}), builtinList: `/lib/modules/${release}/modules.builtin` };
}

/** Whether the evidence of moduleEvidence is there, read through READ (undefined: no such file) and EXISTS. */
export async function moduleShows(
  name: string,
  evidence: ReturnType<typeof moduleEvidence>,
  exists: (p: string) => Promise<boolean>,
  read: (p: string) => Promise<string | undefined>,
): Promise<boolean> {
  for (const p of evidence.paths) if (await exists(p)) return true;
  if (evidence.filesystem !== undefined) {
    const filesystems = (await read('/proc/filesystems')) ?? '';
    if (filesystems.split('\n').some((l) => l.split('\t').pop() === evidence.filesystem)) return true;
  }
  const builtin = (await read(evidence.builtinList)) ?? '';
  return builtin.split('\n').some((l) => l.endsWith(`/${name}.ko`));
}

const readText = async (p: string): Promise<string | undefined> => fs.readFile(p, 'utf8').catch(() => undefined);
const pathExists = async (p: string): Promise<boolean> => fs.access(p).then(() => true, () => false);

/** The real machine. */
export const realSystem: SystemProbe = {
  uid: () => (typeof process.getuid === 'function' ? process.getuid() : 0),
  cpus: () => os.cpus().length,
  memoryMB: () => Math.floor(os.totalmem() / (1024 * 1024)),
  portFree: (port, address) =>
    new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, exclusive: true, ...(address !== undefined ? { host: address } : {}) }, () => server.close(() => resolve(true)));
    }),
  readProc: async (p) => fs.readFile(p, 'utf8').catch(() => undefined),
  which: async (program) => {
    for (const dir of (process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin').split(':')) {
      const candidate = path.join(dir, program);
      try {
        await fs.access(candidate, fsc.X_OK);
        return candidate;
      } catch {
        // keep looking
      }
    }
    return undefined;
  },
  socketReachable: unixSocketAnswers,
  resolveHost: async (name) => dns.lookup(name).then(() => true, () => false),
  env: (name) => process.env[name] ?? process.env[name.toLowerCase()],
  kernelRelease: () => os.release(),
  cgroupFsType: async () => {
    const st = await fs.statfs('/sys/fs/cgroup').catch(() => undefined);
    if (st === undefined) return undefined;
    if (st.type === CGROUP2_SUPER_MAGIC) return 'cgroup2fs';
    return st.type === TMPFS_MAGIC ? 'tmpfs' : `0x${st.type.toString(16)}`;
  },
  kernelConfig: async () => {
    const paths = kernelConfigPaths(os.release());
    for (const p of paths) {
      const data = await fs.readFile(p).catch(() => undefined);
      if (data === undefined) continue;
      try {
        return { text: (p.endsWith('.gz') ? gunzipSync(data) : data).toString('utf8') };
      } catch (e) {
        return { error: (e as Error).message };
      }
    }
    // system-validators then loads the "configs" module and looks again; tsadm does not load
    // kernel modules during preflight (docs/decisions.md).
    return { error: `no config path in [${paths.join(' ')}] is available` };
  },
  moduleLoaded: (name) => moduleShows(name, moduleEvidence(name, os.release()), pathExists, readText),
  service: serviceFacts,
  httpGet,
};
