/**
 * E2E harness: TypeScript wrappers around scripts/e2e (provision.sh, machine.sh, kubeadm-config.sh).
 *
 * A "machine" is a set of namespaces with its own containerd and kubelet supervisor; commands run
 * inside it with machineExec (PATH has the provisioned kubelet/kubeadm/kubectl first, and
 * TSADM_SERVICE_MANAGER points at scripts/e2e/service-manager.sh). The repository and the cache are
 * visible at the same paths inside machines, so `node <repo>/bin/tsadm …` works there.
 */
import { execa } from 'execa';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, requireComponents } from '../helpers/components.js';

export { cacheDir, requireComponents } from '../helpers/components.js';

/** The repository root (found upwards from the working directory, where jest runs). */
export function repoRoot(): string {
  let dir = process.cwd();
  for (;;) {
    if (existsSync(path.join(dir, 'scripts', 'e2e', 'machine.sh'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`scripts/e2e/machine.sh not found above ${process.cwd()}`);
    dir = up;
  }
}

const script = (name: string): string => path.join(repoRoot(), 'scripts', 'e2e', name);

/** Per-machine state (pidfiles, logs, real-disk dirs): $TSADM_E2E_STATE_DIR or /var/lib/tsadm-e2e. */
function stateDir(): string {
  return process.env.TSADM_E2E_STATE_DIR || '/var/lib/tsadm-e2e';
}

/** The tsadm CLI entry, to be run with node inside a machine. */
export function tsadmBin(): string {
  return path.join(repoRoot(), 'bin', 'tsadm');
}

/**
 * The Node.js that runs tsadm inside a machine: the project's own Node 24 (the `node`
 * devDependency; machines see the repository at the same path), else the machine's `node`
 * (bin/tsadm refuses one older than 24).
 */
export function nodeBin(): string {
  const own = path.join(repoRoot(), 'node_modules', 'node', 'bin', 'node');
  return existsSync(own) ? own : 'node';
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved. */
  all: string;
}

export interface ExecOptions {
  /** Throw when the command exits non-zero (default true). */
  reject?: boolean;
  /** Kill the command after this many milliseconds (default 10 minutes). */
  timeoutMs?: number;
  /** Text for stdin. */
  input?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

class CommandError extends Error {
  constructor(
    what: string,
    readonly result: ExecResult,
  ) {
    super(`${what} failed (exit ${result.exitCode}):\n${tail(result.all, 60)}`);
  }
}

function tail(text: string, lines: number): string {
  return text.split('\n').slice(-lines).join('\n');
}

async function run(file: string, args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const r = await execa(file, args, {
    reject: false,
    all: true,
    timeout: opts.timeoutMs ?? 10 * 60_000,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
    env: opts.env ?? {},
  });
  const result: ExecResult = {
    exitCode: r.exitCode ?? (r.timedOut ? 124 : 1),
    stdout: String(r.stdout ?? ''),
    stderr: String(r.stderr ?? ''),
    all: String(r.all ?? ''),
  };
  if (r.timedOut) result.all += `\n[harness] timed out after ${opts.timeoutMs ?? 600_000} ms`;
  if (opts.reject !== false && result.exitCode !== 0) throw new CommandError([file, ...args].join(' '), result);
  return result;
}

/** Provision binaries and images (cheap when cached). Returns the script's progress output. */
export async function provision(): Promise<string> {
  return (await run('bash', [script('provision.sh')], { timeoutMs: 20 * 60_000 })).all;
}

export interface Machine {
  name: string;
  ip: string;
}

/**
 * Start machine NAME at IP (10.250.0.2–254); idempotent for the same name and IP. `bare`: an OS
 * state nothing has prepared (scripts/e2e/README.md): no sysctls set, containerd on its packaged
 * config.toml, no kubelet binary or unit.
 */
export async function createMachine(name: string, ip: string, opts: { bare?: boolean } = {}): Promise<Machine> {
  await run(script('machine.sh'), ['up', name, ip, ...(opts.bare ? ['--bare'] : [])], { timeoutMs: 3 * 60_000 });
  return { name, ip };
}

/** Run CMD inside machine NAME. Rejects on a non-zero exit unless opts.reject is false. */
export async function machineExec(name: string, cmd: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  return run(script('machine.sh'), ['exec', name, '--', ...cmd], opts);
}

/**
 * Boot a real systemd inside running machine NAME (PID 1 of its own PID namespace; what it can see:
 * scripts/e2e/lib/systemd-init.sh). Commands run with `systemdExec` then have no
 * TSADM_SERVICE_MANAGER, so tsadm drives that systemd through the real systemctl.
 */
export async function bootSystemd(name: string): Promise<void> {
  await run(script('machine.sh'), ['systemd', name], { timeoutMs: 2 * 60_000 });
}

/** Run CMD in machine NAME where its systemd (bootSystemd) is PID 1. */
export async function systemdExec(name: string, cmd: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  return run(script('machine.sh'), ['sd-exec', name, '--', ...cmd], opts);
}

let installed: string | undefined;

/**
 * A root-owned copy of the built tsadm (its Node 24, bin/tsadm, dist/*.mjs, package.json) in a
 * directory of its own under the provisioning cache, made once per test process: tsadm installs a
 * systemd unit only when every file it runs, and every directory above them, is root's and not
 * group- or world-writable (src/host/unit-program.ts), and a clone of this repository may sit below
 * a directory that is not (/tmp, a group-writable home). Machines see the host's files at the same
 * paths. removeInstalledTsadm takes it away.
 */
function installedTsadm(): { node: string; tsadm: string } {
  if (installed === undefined) {
    const dir = path.join(cacheDir(), `e2e-installed-tsadm-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    for (const sub of ['', 'bin', 'dist']) mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o755 });
    const copy = (from: string, to: string, mode: number): void => {
      copyFileSync(from, path.join(dir, to));
      chmodSync(path.join(dir, to), mode);
    };
    copy(nodeBin() === 'node' ? process.execPath : nodeBin(), 'node', 0o755);
    copy(tsadmBin(), 'bin/tsadm', 0o755);
    copy(path.join(repoRoot(), 'package.json'), 'package.json', 0o644);
    for (const f of readdirSync(path.join(repoRoot(), 'dist')).filter((n) => n.endsWith('.mjs'))) copy(path.join(repoRoot(), 'dist', f), `dist/${f}`, 0o644);
    for (const sub of ['', 'bin', 'dist']) chmodSync(path.join(dir, sub), 0o755);
    installed = dir;
  }
  return { node: path.join(installed, 'node'), tsadm: path.join(installed, 'bin', 'tsadm') };
}

/** Removes the copy installedTsadm made in this process, if any. */
export function removeInstalledTsadm(): void {
  if (installed !== undefined) rmSync(installed, { recursive: true, force: true });
  installed = undefined;
}

/** tsadm under machine NAME's real systemd (systemdExec), run from its root-owned installed copy. */
export async function systemdTsadm(name: string, args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const { node, tsadm } = installedTsadm();
  return systemdExec(name, [node, tsadm, ...args], opts);
}

/** SIGKILL machine NAME's systemd and everything it started; remove its cgroups. */
export async function stopSystemd(name: string): Promise<void> {
  await run(script('machine.sh'), ['systemd-stop', name], { timeoutMs: 60_000 });
}

/** Stop machine NAME and remove every trace of it. */
export async function destroyMachine(name: string): Promise<void> {
  await run(script('machine.sh'), ['down', name], { timeoutMs: 3 * 60_000 });
}

/**
 * Power machine NAME off (every process killed, network gone); its disk stays for startMachine.
 * Resolves the moment of the cut (epoch ms, written by machine.sh just before it kills every
 * process), which is when a failover starts; the stop itself goes on tidying up for seconds.
 */
export async function stopMachine(name: string): Promise<number> {
  await run(script('machine.sh'), ['stop', name], { timeoutMs: 2 * 60_000 });
  const cut = powerCutAt(name);
  if (cut === undefined) throw new Error(`machine.sh stop ${name} left no power-cut time`);
  return cut;
}

/**
 * When `machine.sh stop` last cut machine NAME's power (epoch ms; written just before it kills
 * every process, before its clean-up), or undefined: a test can start timing a failover while the
 * stop is still tidying up.
 */
export function powerCutAt(name: string): number | undefined {
  const file = path.join(stateDir(), 'machines', name, 'power-cut');
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8').trim();
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Boot a stopped machine again from its disk: containerd and the kubelet start from what is there. */
export async function startMachine(name: string): Promise<void> {
  await run(script('machine.sh'), ['start', name], { timeoutMs: 3 * 60_000 });
}

/** Run CMD in the background inside machine NAME (output in its logs/LABEL.log); it dies with the machine. */
export async function machineDaemon(name: string, label: string, cmd: string[]): Promise<void> {
  await run(script('machine.sh'), ['daemon', name, label, '--', ...cmd], { timeoutMs: 60_000 });
}

/** kubectl (v1.20.2) inside MACHINE with its /etc/kubernetes/admin.conf; resolves stdout. */
export async function kubectl(machine: string, args: string[], opts: ExecOptions = {}): Promise<string> {
  const r = await machineExec(machine, ['kubectl', '--kubeconfig', '/etc/kubernetes/admin.conf', ...args], opts);
  return r.stdout;
}

/**
 * Poll FN until it returns a truthy value (which is returned) or TIMEOUTMS pass. Errors thrown by
 * FN count as "not yet"; the last one is reported on timeout together with WHAT. Every second by
 * default: a wait loses half the interval on average, and the e2e suite waits a few hundred times.
 */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs: number,
  what: string,
  intervalMs = 1000,
): Promise<T> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() - start >= timeoutMs) {
      const why = last instanceof Error ? `: ${last.message}` : last !== undefined ? `: ${typeof last === 'string' ? last : JSON.stringify(last)}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Write a file that machines can read at the returned path (a scratch dir in the cache, which is
 * bind-mounted into every machine at the same path).
 */
export function writeSharedFile(name: string, content: string): string {
  const dir = path.join(cacheDir(), 'e2e-scratch');
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
}

/**
 * The kubeadm v1beta2 config this environment needs (scripts/e2e/kubeadm-config.sh); the
 * control-plane endpoint is the control plane's own address unless given (a load balancer).
 */
export async function kubeadmConfig(controlPlaneIp: string, nodeName: string, controlPlaneEndpoint?: string): Promise<string> {
  return (await run(script('kubeadm-config.sh'), [controlPlaneIp, nodeName, ...(controlPlaneEndpoint ? [controlPlaneEndpoint] : [])])).stdout + '\n';
}

/** POST to etcd's JSON gateway at ENDPOINT from machine M, with the healthcheck-client identity of its /etc/kubernetes/pki/etcd. */
export async function etcdGateway(m: Machine, endpoint: string, api: string): Promise<Record<string, unknown>> {
  const r = await machineExec(m.name, ['sh', '-c',
    `cd /etc/kubernetes/pki/etcd && curl -sS --max-time 10 --cacert ca.crt --cert healthcheck-client.crt --key healthcheck-client.key -X POST ${endpoint}${api} -d '{}'`]);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** The worker `kubeadm join …` arguments printed by init (continuation lines joined). */
function parseJoinCommand(initOutput: string): string[] {
  const joined = initOutput.replace(/\\\r?\n/g, ' ');
  const lines = joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('kubeadm join ') && !l.includes('--control-plane'));
  const last = lines[lines.length - 1];
  if (!last) throw new Error('no worker join command in the init output');
  return last.split(/\s+/).slice(2);
}

/** Run tsadm (node <repo>/bin/tsadm ARGS) inside MACHINE; TSADM_SERVICE_MANAGER is set there. */
export async function tsadm(machine: string, args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  return machineExec(machine, [nodeBin(), tsadmBin(), ...args], opts);
}

const CRI_SOCKET = '/run/containerd/containerd.sock';

/**
 * `kubeadm init` with the reference kubeadm on CP (config from kubeadmConfig, preflight skipped:
 * it needs crictl). Resolves the output and the worker join arguments it printed.
 */
export async function referenceInit(cp: Machine, extraArgs: string[] = []): Promise<{ output: string; joinArgs: string[] }> {
  const config = writeSharedFile(`kubeadm-${cp.name}.yaml`, await kubeadmConfig(cp.ip, cp.name));
  const r = await machineExec(cp.name, ['kubeadm', 'init', '--config', config, '--skip-phases=preflight', ...extraArgs], {
    timeoutMs: 6 * 60_000,
  });
  return { output: r.stdout, joinArgs: parseJoinCommand(r.stdout) };
}

/** `kubeadm join` of WORKER with the reference kubeadm and the arguments init printed. */
export async function referenceJoin(worker: Machine, joinArgs: string[]): Promise<string> {
  const r = await machineExec(
    worker.name,
    ['kubeadm', 'join', ...joinArgs, '--cri-socket', CRI_SOCKET, '--skip-phases=preflight'],
    { timeoutMs: 6 * 60_000 },
  );
  return r.stdout;
}

/**
 * Wait until NODES are Ready and the control plane of CP (etcd, apiserver, controller-manager,
 * scheduler mirror pods) plus one kube-proxy per node run. Mirror pods appear only at the kubelet's
 * next sync, ~60 s after init. On timeout the error carries the pods and kubelet logs.
 */
export async function waitClusterReady(cp: Machine, nodes: Machine[], timeoutMs = 5 * 60_000): Promise<void> {
  try {
    await waitFor(
      async () => {
        const r = await nodeReadiness(cp.name);
        return nodes.every((n) => r[n.name] === 'True');
      },
      timeoutMs,
      `nodes ${nodes.map((n) => n.name).join(', ')} Ready`,
    );
    await waitFor(
      async () => {
        const p = await podPhases(cp.name, 'kube-system');
        const controlPlane = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every(
          (c) => p[`${c}-${cp.name}`] === 'Running',
        );
        const proxies = Object.entries(p).filter(([n, ph]) => n.startsWith('kube-proxy-') && ph === 'Running');
        return controlPlane && proxies.length === nodes.length;
      },
      timeoutMs,
      `control-plane pods of ${cp.name} and ${nodes.length} kube-proxy pods Running`,
    );
  } catch (e) {
    const pods = await kubectl(cp.name, ['get', 'pods', '-A', '-o', 'wide'], { reject: false }).catch(() => '');
    const logs = nodes.map((n) => `--- ${n.name} kubelet\n${machineLog(n.name)}`).join('\n');
    throw new Error(`${(e as Error).message}\n--- pods\n${pods}\n${logs}`, { cause: e });
  }
}

/** Node name → Ready condition status ("True"/"False"/"Unknown"). */
export async function nodeReadiness(machine: string): Promise<Record<string, string>> {
  const items = (JSON.parse(await kubectl(machine, ['get', 'nodes', '-o', 'json'])) as { items: unknown }).items as {
    metadata: { name: string };
    status: { conditions?: { type: string; status: string }[] };
  }[];
  return Object.fromEntries(
    items.map((n) => [n.metadata.name, n.status.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown']),
  );
}

/** Pod name → phase in NAMESPACE. */
export async function podPhases(machine: string, namespace: string): Promise<Record<string, string>> {
  const items = (JSON.parse(await kubectl(machine, ['-n', namespace, 'get', 'pods', '-o', 'json'])) as { items: unknown }).items as {
    metadata: { name: string };
    status: { phase: string };
  }[];
  return Object.fromEntries(items.map((p) => [p.metadata.name, p.status.phase]));
}

/** A machine's log (kubelet, containerd, supervisor, holder, images) — for failure messages. */
/**
 * The error of a command that failed: its last lines first (and, when given, the last lines of its
 * --log-file, which carry timestamps), then its whole output and the machine's kubelet log (when
 * MACHINE is given). CI shows only the start and the end of a long failure, so the lines that say
 * what went wrong (tsadm's error is its last line) must not sit in the middle.
 */
export function commandFailure(what: string, r: Pick<ExecResult, 'exitCode' | 'all'>, machine?: string, logFileTail?: string): Error {
  const output = r.all.trimEnd();
  return new Error(`${what} exited ${r.exitCode}; its last lines:\n${tail(output, 6)}\n`
    + `${logFileTail ? `--- the end of its log file\n${logFileTail.trimEnd()}\n` : ''}`
    + `--- its whole output\n${output}${machine ? `\n--- kubelet of ${machine}\n${machineLog(machine)}` : ''}`);
}

export function machineLog(name: string, what = 'kubelet', lines = 80): string {
  const p = path.join(stateDir(), 'machines', name, 'logs', `${what}.log`);
  return existsSync(p) ? tail(readFileSync(p, 'utf8'), lines) : `(no ${p})`;
}

/**
 * What the harness can leave on the host: processes of the node components, tsadm-* network
 * namespaces and links, mounts mentioning the harness, per-machine cgroup roots (recognised by their
 * tsadm-system child), the host's iptables rules, and the state dir. Compare two snapshots.
 *
 * With MACHINES, only what belongs to those machines (processes in their cgroups, their netns and
 * its bind mount, their cgroup roots and state dirs): e2e files run two at a time, so a file that
 * checks its own teardown must not see another file's machines. The host's iptables rules are
 * always whole (no machine writes them: each machine's rules live in its own netns). The
 * whole-host check, switch included, is the e2e project's globalTeardown (harness-lifecycle.mjs).
 */
export interface HostTraces {
  processes: string[];
  netns: string[];
  links: string[];
  mounts: string[];
  cgroupRoots: string[];
  iptables: string;
  stateDirEntries: string[];
}

const ORACLE_DIR = /\/tsadm-(apiserver|etcd)-[A-Za-z0-9]{6}\//;
const COMPONENTS = /^(kubelet|containerd|containerd-shim.*|kube-apiserver|kube-controller|kube-scheduler|kube-proxy|etcd|pause|kubelet-supervi.*)$/;

/** The top cgroup directory names of PID in every hierarchy (a machine's are its name), or [] if it is gone. */
function topCgroups(pid: string): string[] {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').map((l) => l.split(':')[2]?.split('/')[1] ?? '').filter(Boolean);
  } catch {
    return [];
  }
}

export async function hostTraces(machines?: readonly string[]): Promise<HostTraces> {
  const mine = (text: string): boolean => !machines || machines.some((m) => new RegExp(`(tsadm-|/machines/)${m}(?![\\w-])`).test(text));
  const ps = await run('ps', ['-eo', 'pid=,comm=,args=']);
  const processes = ps.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm, ...args]) => (comm && COMPONENTS.test(comm)) || args.join(' ').includes('kubelet-supervisor.sh') || args.join(' ').includes('machine-init.sh') || args.join(' ').includes('tsadm-holder-'))
    // The unit project's loopback oracles (test/helpers/apiserver.ts, etcd-process.ts: data in a
    // mkdtemp dir tsadm-apiserver-XXXXXX or tsadm-etcd-XXXXXX) are not the harness's; another test run on a
    // shared host starts and stops them at any moment.
    .filter(([, , ...args]) => !ORACLE_DIR.test(args.join(' ')))
    .filter(([pid, , ...args]) => !machines || topCgroups(pid ?? '').some((c) => machines.includes(c)) || mine(args.join(' ')))
    .map((p) => p.join(' '));
  const netns = (existsSync('/run/netns') ? readdirSync('/run/netns') : []).filter((n) => !machines || machines.some((m) => n === `tsadm-${m}`));
  const links = (await run('ip', ['-o', 'link', 'show'])).stdout
    .split('\n')
    .filter((l) => /tsadm/.test(l) && mine(l));
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => /tsadm|\/run\/netns/.test(l) && mine(l));
  const cgroupRoots: string[] = [];
  for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
    const [, mnt, type] = line.split(' ');
    if (!mnt || (type !== 'cgroup' && type !== 'cgroup2')) continue;
    for (const d of readdirSync(mnt, { withFileTypes: true })) {
      if (machines && !machines.includes(d.name)) continue;
      if (d.isDirectory() && existsSync(path.join(mnt, d.name, 'tsadm-system'))) cgroupRoots.push(path.join(mnt, d.name));
    }
  }
  const ipt = await run('iptables-save', [], { reject: false });
  const iptables = ipt.stdout
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => (l.startsWith(':') ? l.replace(/\[\d+:\d+\]$/, '') : l))
    .join('\n');
  const machinesDir = path.join(stateDir(), 'machines');
  const stateDirEntries = (existsSync(machinesDir) ? readdirSync(machinesDir) : []).filter((e) => !machines || machines.includes(e));
  return { processes, netns, links, mounts, cgroupRoots, iptables, stateDirEntries };
}

/**
 * Provision (cheap when cached), remove what an interrupted run may have left of MACHINES, and
 * return their traces as they are now: the baseline their teardown must return to.
 */
export async function cleanHostBaseline(machines: readonly string[]): Promise<HostTraces> {
  await provision();
  requireComponents();
  for (const m of machines) await destroyMachine(m);
  return hostTraces(machines);
}

/** Asserts that teardown left the host as BASELINE found it, and no machine cgroup root or state behind. */
export function expectHostAsBefore(after: HostTraces, baseline: HostTraces): void {
  expect(after.processes).toEqual(baseline.processes);
  expect(after.netns).toEqual(baseline.netns);
  expect(after.links).toEqual(baseline.links);
  expect(after.mounts).toEqual(baseline.mounts);
  expect(after.cgroupRoots).toEqual([]);
  expect(after.iptables).toEqual(baseline.iptables);
  expect(after.stateDirEntries).toEqual([]);
}

// --- upgrades: a second Kubernetes version on a machine ------------------------------------------
//
// The cache holds two versions: v1.20.2, and "v1.20.3", which is NOT Kubernetes v1.20.3 but the
// very same v1.20.2 source rebuilt under the version label v1.20.3 (scripts/e2e/README.md,
// "v1.20.3: the same code, relabelled"): every step of an upgrade runs for real (versions read
// from the cluster, manifests, certificates, ConfigMaps, addons, the kubelet swap), while the code
// on both sides is the same.

/** The provisioned binaries (kubeadm, kubelet, kubectl, kube-*) of VERSION, e.g. "v1.20.3". */
function binDirAt(version: string): string {
  return path.join(cacheDir(), `kubernetes-${version}`, 'bin');
}

/** The provisioned OCI image archives of VERSION. */
function imagesDirAt(version: string): string {
  return path.join(cacheDir(), `images-${version}`);
}

/**
 * The reference kubeadm of VERSION (full path; visible inside machines at the same path), for
 * running e.g. the v1.20.3 kubeadm in a machine whose PATH still has v1.20.2's.
 */
export function kubeadmAt(version: string): string {
  const p = path.join(binDirAt(version), 'kubeadm');
  if (!existsSync(p)) throw new Error(`${p} is not provisioned: run bash scripts/e2e/provision.sh`);
  return p;
}

/** The image references an OCI archive of the cache carries (its index.json annotations). */
async function archiveImageNames(tar: string): Promise<string[]> {
  const index = JSON.parse((await run('tar', ['-xOf', tar, './index.json'])).stdout) as {
    manifests: { annotations?: Record<string, string> }[];
  };
  const names = index.manifests.map((m) => m.annotations?.['io.containerd.image.name']).filter((n): n is string => !!n);
  if (names.length === 0) throw new Error(`${tar} names no image (no io.containerd.image.name annotation)`);
  return names;
}

/** Image references in MACHINE's containerd, namespace k8s.io (the one the CRI plugin serves). */
export async function machineImages(machine: string): Promise<string[]> {
  const r = await machineExec(machine, ['ctr', '-n', 'k8s.io', 'images', 'ls', '-q']);
  return r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
}

/** Import every OCI archive in DIR into MACHINE's containerd unless its images are all there; resolves their references. */
async function importArchives(machine: string, dir: string): Promise<string[]> {
  const tars = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.tar')).sort() : [];
  if (tars.length === 0) throw new Error(`no image archives in ${dir}: run bash scripts/e2e/provision.sh`);
  const wanted: string[] = [];
  let present = new Set(await machineImages(machine));
  for (const t of tars) {
    const tar = path.join(dir, t);
    const names = await archiveImageNames(tar);
    wanted.push(...names);
    if (names.every((n) => present.has(n))) continue;
    await machineExec(machine, ['ctr', '-n', 'k8s.io', 'images', 'import', tar], { timeoutMs: 5 * 60_000 });
  }
  present = new Set(await machineImages(machine));
  const missing = wanted.filter((n) => !present.has(n));
  if (missing.length > 0) throw new Error(`after importing ${dir} into ${machine}, still missing: ${missing.join(', ')}`);
  return wanted;
}

/**
 * Pre-load the images of VERSION into MACHINE's containerd (`ctr -n k8s.io images import` of each
 * archive in the cache), as a node operator would before an upgrade on a host that cannot pull.
 * Idempotent: an archive whose images are all present already is not imported again. Resolves the
 * image references of VERSION's archives, each verified to be present afterwards.
 */
export async function importImages(machine: string, version: string): Promise<string[]> {
  return importArchives(machine, imagesDirAt(version));
}

/**
 * Import the CoreDNS stand-in (registry.local/k8s/coredns:1.7.0, scripts/e2e/images/coredns-standin.c:
 * answers CoreDNS's liveness and readiness probes, serves no DNS) into MACHINE, so the CoreDNS pods
 * of a cluster there become Ready. Needed before `upgrade apply`: kubeadm 1.20 waits (with a backoff
 * of about 85 minutes) for a ready replica of the CoreDNS Deployment after updating it
 * (phases/upgrade/postupgrade.go, removeOldDNSDeploymentIfAnotherDNSIsUsed), and this environment
 * has no CoreDNS image. Import it before init so the cluster is as a real one would be.
 */
export async function importCoreDNSStandIn(machine: string): Promise<string[]> {
  return importArchives(machine, path.join(cacheDir(), 'images-standins'));
}

/**
 * Make the harness's crictl stand-in (scripts/e2e/crictl-shim.sh) MACHINE's /usr/local/bin/crictl:
 * the reference kubeadm 1.20's `upgrade apply` needs a crictl on PATH for its image prepull (the
 * script's header says why and what it supports). Only this machine's private /usr changes.
 */
export async function installCrictlShim(machine: string): Promise<void> {
  await machineExec(machine, ['ln', '-sfn', script('crictl-shim.sh'), '/usr/local/bin/crictl']);
}

/** The PID of MACHINE's running kubelet (from its supervisor's pidfile), or '' when none runs. */
async function kubeletPid(machine: string): Promise<string> {
  // The PID namespace is shared by all machines: ask the supervisor's pidfile, not pgrep.
  const r = await machineExec(
    machine,
    ['sh', '-c', '. /run/tsadm-machine/env; p=$(cat "$MDIR/kubelet.pid" 2>/dev/null) && kill -0 "$p" 2>/dev/null && echo "$p"'],
    { reject: false },
  );
  return r.stdout.trim();
}

/**
 * The "swap each machine's kubelet binary" step of an upgrade: point MACHINE's /usr/local/bin/
 * {kubelet,kubeadm,kubectl} at VERSION's binaries (what a package upgrade does), restart the
 * kubelet through the machine's service manager (`"$TSADM_SERVICE_MANAGER" restart kubelet`, what
 * `systemctl restart kubelet` does), and wait until a new kubelet process runs VERSION's binary.
 * Verified with `kubelet --version` inside the machine and the running process's executable.
 */
export async function useNodeBinaries(machine: string, version: string, timeoutMs = 2 * 60_000): Promise<void> {
  const dir = binDirAt(version);
  for (const b of ['kubelet', 'kubeadm', 'kubectl']) {
    if (!existsSync(path.join(dir, b))) throw new Error(`${path.join(dir, b)} is not provisioned: run bash scripts/e2e/provision.sh`);
  }
  const before = await kubeletPid(machine);
  await machineExec(machine, ['sh', '-c', `for b in kubelet kubeadm kubectl; do ln -sfn "${dir}/$b" "/usr/local/bin/$b"; done`]);
  const reported = (await machineExec(machine, ['kubelet', '--version'])).stdout.trim();
  if (reported !== `Kubernetes ${version}`) throw new Error(`kubelet --version in ${machine} says "${reported}", not "Kubernetes ${version}"`);
  await machineExec(machine, ['sh', '-c', '"$TSADM_SERVICE_MANAGER" restart kubelet']);
  const pid = await waitFor(async () => {
    const p = await kubeletPid(machine);
    return /^\d+$/.test(p) && p !== before ? p : undefined;
  }, timeoutMs, `a new kubelet process in ${machine} after the restart`, 500);
  const exe = (await machineExec(machine, ['readlink', `/proc/${pid}/exe`])).stdout.trim();
  if (exe !== path.join(dir, 'kubelet')) throw new Error(`the kubelet of ${machine} (PID ${pid}) runs ${exe}, not ${path.join(dir, 'kubelet')}`);
}

/** The version tag of an image reference ("registry.local/k8s/kube-proxy:v1.20.3" → "v1.20.3"). */
function imageTag(image: string | undefined): string {
  if (!image) return '(none)';
  const at = image.indexOf('@');
  const ref = at >= 0 ? image.slice(0, at) : image;
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : '(no tag)';
}

const CONTROL_PLANE = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

/**
 * The Kubernetes version each part of the control plane on CP is at, as the cluster shows it:
 * image tags of the static pod manifests in /etc/kubernetes/manifests, of the mirror pods (spec)
 * and of their running containers (status), the API server's `kubectl version` gitVersion, the
 * kube-proxy DaemonSet's image tag, and kubernetesVersion in the kubeadm-config ConfigMap.
 * Keys name the source; a value that cannot be read is reported as "(…)".
 */
async function clusterVersions(cp: Machine): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const c of CONTROL_PLANE) {
    const manifest = (await machineExec(cp.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`], { reject: false })).stdout;
    out[`manifest ${c}`] = imageTag(/^\s*image:\s*(\S+)\s*$/m.exec(manifest)?.[1]);
    const pod = await kubectl(cp.name, ['-n', 'kube-system', 'get', 'pod', `${c}-${cp.name}`, '-o', 'json'], { reject: false });
    let spec = '(no mirror pod)';
    let running = '(no mirror pod)';
    if (pod) {
      const p = JSON.parse(pod) as {
        spec: { containers: { image: string }[] };
        status: { containerStatuses?: { image: string; state?: { running?: unknown } }[] };
      };
      spec = imageTag(p.spec.containers[0]?.image);
      const st = p.status.containerStatuses?.[0];
      running = st?.state?.running ? imageTag(st.image) : '(not running)';
    }
    out[`mirror pod ${c}`] = spec;
    out[`running container ${c}`] = running;
  }
  const v = await kubectl(cp.name, ['version', '-o', 'json'], { reject: false });
  out['kubectl version serverVersion'] = v ? ((JSON.parse(v) as { serverVersion?: { gitVersion?: string } }).serverVersion?.gitVersion ?? '(none)') : '(unreachable)';
  out['kube-proxy DaemonSet'] = imageTag(
    await kubectl(cp.name, ['-n', 'kube-system', 'get', 'daemonset', 'kube-proxy', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'], { reject: false }),
  );
  const cc = await kubectl(cp.name, ['-n', 'kube-system', 'get', 'configmap', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}'], { reject: false });
  out['kubeadm-config kubernetesVersion'] = /^kubernetesVersion:\s*(\S+)\s*$/m.exec(cc)?.[1] ?? '(none)';
  return out;
}

/**
 * Wait (bounded) until every entry of clusterVersions(CP) is VERSION — mirror pods and their
 * containers follow the manifests at the kubelet's next sync — then assert it, so a failure shows
 * every source with what it reports.
 */
export async function expectClusterAt(cp: Machine, version: string, timeoutMs = 3 * 60_000): Promise<void> {
  let last: Record<string, string> = {};
  await waitFor(async () => {
    last = await clusterVersions(cp);
    return Object.values(last).every((v) => v === version);
  }, timeoutMs, `every part of ${cp.name}'s control plane at ${version}`).catch(() => undefined);
  expect(last).toEqual(Object.fromEntries(Object.keys(last).map((k) => [k, version])));
}

/** Node NAME's status.nodeInfo.kubeletVersion as the API server has it. */
export async function nodeKubeletVersion(cp: Machine, name: string): Promise<string> {
  return (await kubectl(cp.name, ['get', 'node', name, '-o', 'jsonpath={.status.nodeInfo.kubeletVersion}'])).trim();
}

/** The certificates an upgrade of the control plane renews (kubeadm: renewCertsByComponent). */
export const UPGRADE_RENEWED_CERTIFICATES = [
  'apiserver.crt', 'apiserver-kubelet-client.crt', 'front-proxy-client.crt',
  'controller-manager.conf', 'scheduler.conf', 'admin.conf',
] as const;

/**
 * NotAfter (ms since the epoch) of each certificate in UPGRADE_RENEWED_CERTIFICATES on MACHINE,
 * read with openssl inside the machine: /etc/kubernetes/pki/*.crt, and the embedded client
 * certificate (client-certificate-data only; no key is read) of /etc/kubernetes/*.conf.
 */
export async function certificateNotAfter(machine: string): Promise<Record<string, number>> {
  const sh = [
    'set -e',
    'for f in "$@"; do',
    '  case $f in',
    '    *.crt) d=$(openssl x509 -in "/etc/kubernetes/pki/$f" -noout -enddate) ;;',
    "    *.conf) d=$(sed -n 's/^ *client-certificate-data: *//p' \"/etc/kubernetes/$f\" | base64 -d | openssl x509 -noout -enddate) ;;",
    '  esac',
    '  echo "$f ${d#notAfter=}"',
    'done',
  ].join('\n');
  const r = await machineExec(machine, ['sh', '-c', sh, 'sh', ...UPGRADE_RENEWED_CERTIFICATES]);
  const out: Record<string, number> = {};
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const sp = line.indexOf(' ');
    const when = Date.parse(line.slice(sp + 1));
    if (!Number.isFinite(when)) throw new Error(`unparsable notAfter in "${line}"`);
    out[line.slice(0, sp)] = when;
  }
  return out;
}
