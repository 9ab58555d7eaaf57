/**
 * The `host` phase group: from a bare OS to "ready for the kubelet" (docs/host.md). Each leaf
 * writes drop-in files through the host seam (atomic, --rootfs, --dry-run, --plan) and applies
 * them to the running system (src/host/running-system.ts: modprobe, sysctl -w, swapoff, service
 * actions). What the files say is src/phases/host/render.ts and containerd.ts (pure).
 *
 * Rules every leaf keeps:
 * - idempotent: identical files are not rewritten, and nothing is loaded, set or restarted when
 *   the running system already is as wanted;
 * - a user's own files are never edited: a file of the user's at one of tsadm's paths that already
 *   does the job is kept; one that does not is reported (E_CONFLICT) and the leaf writes nothing,
 *   unless --override-host-settings;
 * - nothing destructive without a flag: swap is turned off only with --swap-off, a running
 *   containerd is restarted only with --restart-container-runtime;
 * - under --rootfs only files are written: the running kernel and services are not that root's.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CheckFinding, Phase, PhaseAt } from '../../engine/phase.js';
import type { FlagName } from '../../flags.js';
import { TsadmError } from '../../errors.js';
import type { FileRecord, Host } from '../../host/host.js';
import { runningSystem, sysctlPath, type RunningSystem } from '../../host/running-system.js';
import { socketPath } from '../../host/cri.js';
import type { BaseCtx } from '../../run/context.js';
import { wouldChange } from '../../verify/would-change.js';
import { pathCheckName } from '../preflight/check.js';
import { BUNDLE_BINARIES, SHA256SUMS, expectedDigest, reportedVersion, versionArgs, versionFit } from './bundle.js';
import { CONTAINERD_CONFIG, CONTAINERD_CONFIG_BACKUP, CONTAINERD_DROPIN, planContainerd } from './containerd.js';
import type { HostPrepInput } from './input.js';
import {
  CRICTL_FILE, DPKG_STATUS, HOST_MODULES, HOST_SYSCTLS, KUBEADM_DROPIN_FILE, KUBELET_ENABLED_LINK, KUBELET_UNIT_FILE, MODULES_LOAD_FILE,
  PACKAGED_KUBEADM_DROPINS, PACKAGED_KUBELET_UNITS, SYSCTL_CONF, SYSCTL_DIRS, SYSCTL_FILE, crictlEndpoint, crictlRuntimeEndpoint,
  dropInState, fstabSwapEntries, isPackagedConffile, modulesLoadMissing, parseProcSwaps, renderCrictlYaml, renderKubeadmDropIn, renderKubeletUnit,
  renderModulesLoad, renderSysctlConf, sysctlConflicts, sysctlFileMissing, type SysctlSource,
} from './render.js';

export interface HostPhaseOptions {
  /** The running system of a host (tests substitute a fake); the real one by default. */
  readonly system?: (host: Host) => RunningSystem;
}

const PREFIX = 'host';
const FILE_MODE = 0o644;
/** The flags every host leaf reads (besides the configuration's). */
const HOST_FLAGS: readonly FlagName[] = ['config', 'kubernetes-version', 'image-repository', 'cri-socket', 'override-host-settings'];
/** Where crictl is looked for (the FileExisting-crictl check), under the root. */
const BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

interface LeafEnv<C extends BaseCtx> {
  readonly inputOf: (ctx: C) => Promise<HostPrepInput>;
  readonly system: (host: Host) => RunningSystem;
}

/** The host leaves in order, for a context type whose configuration `inputOf` reads. */
export function hostLeaves<C extends BaseCtx>(inputOf: (ctx: C) => Promise<HostPrepInput>, opts: HostPhaseOptions = {}): Phase<C>[] {
  const env: LeafEnv<C> = { inputOf, system: opts.system ?? runningSystem };
  const leaf = (
    name: string,
    summary: string,
    description: string,
    extraFlags: readonly FlagName[],
    run: (ctx: C, input: HostPrepInput, sys: RunningSystem) => Promise<void>,
    live: (ctx: C, input: HostPrepInput, sys: RunningSystem) => Promise<CheckFinding[]>,
  ): Phase<C> => ({
    name,
    summary,
    description,
    example: `tsadm prepare phase ${name} --dry-run`,
    flags: [...HOST_FLAGS, ...extraFlags],
    run: async (ctx) => run(ctx, await env.inputOf(ctx), env.system(ctx.host)),
    verify: async (ctx, self: PhaseAt<C>) => {
      const sys = env.system(ctx.host);
      const liveFindings = sys.live
        ? await live(ctx, await env.inputOf(ctx), sys)
        : [{ check: `${name}: running system`, ok: true, warning: true, detail: 'not checked: --rootfs is not the running system' }];
      return [...(await wouldChange(self.path, self.phase, ctx)), ...liveFindings];
    },
  });
  return [
    leaf('binaries', 'Install kubelet, kubectl and crictl from a local bundle (--bundle)',
      `With --bundle DIR: install ${BUNDLE_BINARIES.map((b) => b.target).join(', ')} (crictl when the bundle has it) from DIR, each verified against DIR's ${SHA256SUMS} or <name>.sha256 and its version checked against the cluster's, before any is written. Without --bundle: nothing (the host's own binaries are used). Never downloads.`,
      ['bundle'], binaries, binariesLive),
    leaf('kernel-modules', 'Load overlay and br_netfilter, now and at boot',
      `Write ${MODULES_LOAD_FILE} (overlay, br_netfilter) and load the modules that are not loaded yet (modprobe).`,
      [], kernelModules, kernelModulesLive),
    leaf('sysctl', 'Enable IP forwarding and bridged traffic through iptables',
      `Write ${SYSCTL_FILE} (${HOST_SYSCTLS.map(([k, v]) => `${k}=${v}`).join(', ')}) and set the keys whose live value differs (sysctl -w). A conflicting setting in another sysctl file is reported.`,
      [], sysctl, sysctlLive),
    leaf('swap', 'Check swap; turn it off with --swap-off',
      'Report active swap when the kubelet requires swap off (failSwapOn); with --swap-off turn it off now (swapoff -a). /etc/fstab is never edited: its swap entries are reported.',
      ['swap-off'], swap, swapLive),
    leaf('container-runtime', "Configure containerd's cgroup driver and sandbox image",
      `Write ${CONTAINERD_DROPIN} (SystemdCgroup matching the kubelet's cgroupDriver, the target version's pause image), imported by ${CONTAINERD_CONFIG}; start containerd when stopped, restart it when running only with --restart-container-runtime.`,
      ['restart-container-runtime'], containerRuntime, containerRuntimeLive),
    leaf('kubelet-service', "Install the kubelet's systemd unit and kubeadm's 10-kubeadm.conf drop-in",
      `Write ${KUBELET_UNIT_FILE} and ${KUBEADM_DROPIN_FILE} as the v1.20 deb packages install them, unless a package installed them; reload systemd and enable the kubelet.`,
      [], kubeletService, kubeletServiceLive),
    leaf('crictl', 'Point crictl at the CRI socket',
      `Write ${CRICTL_FILE} (runtime-endpoint and image-endpoint: the CRI socket).`,
      [], crictl, crictlLive),
  ];
}

/**
 * The group as init and join show it: `tsadm init phase host …`, `tsadm join phase host …`.
 * Opt-in there: it skips itself unless `asked(ctx)` (--prepare-host, or the phase run alone).
 */
export function hostPhase<C extends BaseCtx>(inputOf: (ctx: C) => Promise<HostPrepInput>, asked: (ctx: C) => boolean, opts: HostPhaseOptions = {}): Phase<C> {
  return {
    skipIf: (ctx) => (asked(ctx) ? undefined : 'host preparation is opt-in: pass --prepare-host, or run "tsadm prepare" (docs/host.md)'),
    name: 'host',
    summary: 'Prepare this host for the kubelet (modules, sysctls, swap, containerd, kubelet unit, crictl)',
    description: 'Prepare this host for the kubelet: the steps of kubeadm\'s install documentation, as drop-in files and their application. Runs with "init/join --prepare-host", alone as "tsadm prepare", or one step at a time here. Nothing destructive without a flag (--swap-off, --restart-container-runtime); a conflicting file of yours is reported, not overwritten (--override-host-settings). See docs/host.md.',
    example: 'tsadm init phase host all --dry-run',
    children: hostLeaves(inputOf, opts),
  };
}

// ---------------------------------------------------------------- helpers

async function readText(host: Host, hostPath: string): Promise<string | undefined> {
  return (await host.readFile(hostPath))?.toString('utf8');
}

function conflictError(file: string, detail: string): TsadmError {
  return new TsadmError('E_CONFLICT', `${file} is not tsadm's and ${detail}; tsadm does not edit it`, {
    hint: 'change it yourself, or pass --override-host-settings to replace it with tsadm\'s (docs/host.md)',
  });
}

function write(ctx: BaseCtx, hostPath: string, content: string, description: string): Promise<FileRecord> {
  return ctx.host.writeFile(hostPath, content, { mode: FILE_MODE, kind: 'config', description });
}

/** Writes a drop-in per dropInState; true when the file changed. */
async function writeDropIn(ctx: BaseCtx, hostPath: string, desired: string, description: string, satisfies: (text: string) => string | undefined, override: boolean): Promise<boolean> {
  const state = dropInState(await readText(ctx.host, hostPath), desired, satisfies, override);
  switch (state.action) {
    case 'conflict':
      throw conflictError(hostPath, state.detail);
    case 'keep-user-file':
      ctx.log.info(`Keeping ${hostPath}: it is not tsadm's, and already does what tsadm's would`, { prefix: PREFIX });
      return false;
    case 'unchanged':
    case 'write': {
      if (state.action === 'write' && state.replacing) ctx.log.warn(`Replacing ${hostPath} (--override-host-settings)`, { prefix: PREFIX });
      const r = await write(ctx, hostPath, desired, description);
      ctx.log.info(r.unchanged ? `${hostPath} is in place` : `Writing ${hostPath}`, { prefix: PREFIX, verbosity: r.unchanged ? 1 : 0 });
      return !r.unchanged;
    }
  }
}

function finding(check: string, ok: boolean, detail: string, warning = false): CheckFinding {
  return { check, ok, detail, ...(warning ? { warning } : {}) };
}

// ---------------------------------------------------------------- binaries

interface BundleFile {
  readonly name: string;
  readonly target: string;
  readonly bytes: Buffer;
  /** Undefined in a dry run: nothing of the bundle is executed, so its version is not known. */
  readonly version: string | undefined;
}

/** Reads a file of the bundle (input given on the command line, like --config: not a path of the host being prepared). */
async function readBundleFile(dir: string, name: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(path.join(dir, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TsadmError('E_CONFIG_INVALID', `cannot read ${path.join(dir, name)}: ${(err as Error).message}`, { hint: 'check --bundle' });
  }
}

function bundleError(message: string): TsadmError {
  return new TsadmError('E_CONFIG_INVALID', message, {
    hint: 'give --bundle a directory with kubelet, kubectl (crictl optional) of the cluster\'s version and their SHA-256 digests (SHA256SUMS or <name>.sha256), as published beside the downloads',
  });
}

/** Every binary of the bundle, verified (digest, then version), before anything is installed. */
async function verifiedBundle(ctx: BaseCtx, dir: string, target: string): Promise<BundleFile[]> {
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw bundleError(`--bundle ${dir} is not a directory`);
  const sums = (await readBundleFile(dir, SHA256SUMS))?.toString('utf8');
  const out: BundleFile[] = [];
  for (const b of BUNDLE_BINARIES) {
    const bytes = await readBundleFile(dir, b.name);
    if (!bytes) {
      if (b.required) throw bundleError(`--bundle ${dir} has no ${b.name}`);
      ctx.log.info(`The bundle has no ${b.name}; not installing it`, { prefix: PREFIX, verbosity: 1 });
      continue;
    }
    const expected = expectedDigest(b.name, sums, (await readBundleFile(dir, `${b.name}.sha256`))?.toString('utf8'));
    if (expected === undefined) throw bundleError(`--bundle ${dir} lists no SHA-256 digest for ${b.name} (neither ${SHA256SUMS} nor ${b.name}.sha256); tsadm installs nothing unverified`);
    if ('problem' in expected) throw bundleError(`--bundle ${dir}: ${expected.problem}`);
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== expected.hex) throw bundleError(`${path.join(dir, b.name)} does not match its listed digest (sha256 ${actual}, listed ${expected.hex}): the bundle is damaged or not the one listed`);
    // A dry run executes nothing from the bundle (issue 27, finding 5): the version is checked by the real run.
    if (ctx.dryRun) {
      out.push({ name: b.name, target: b.target, bytes, version: undefined });
      continue;
    }
    // Only the verified bytes are run, to ask their version: a private copy of exactly what was hashed.
    const r = await execVerifiedCopy(ctx, b.name, bytes, versionArgs(b.name));
    const version = r.exitCode === 0 ? reportedVersion(b.name, r.stdout) : undefined;
    if (version === undefined) throw bundleError(`${path.join(dir, b.name)} ${versionArgs(b.name).join(' ')} reports no version (exit ${r.exitCode}): not a ${b.name} for this machine?`);
    const fit = versionFit(b.name, version, target);
    if (fit.problem !== undefined) throw bundleError(`--bundle ${dir}: ${fit.problem}`);
    if (fit.warning !== undefined) ctx.log.warn(fit.warning, { prefix: PREFIX });
    out.push({ name: b.name, target: b.target, bytes, version });
  }
  if (ctx.dryRun && out.length > 0) {
    ctx.log.warn(`dry run: the versions of the bundle's binaries (${out.map((f) => f.name).join(', ')}) were not checked: a dry run executes nothing from the bundle; the real run checks them before installing`, { prefix: PREFIX });
  }
  return out;
}

/**
 * Runs BYTES (verified against the bundle's digest) with ARGS: they are written to a new private
 * directory (0700, created by this process, file created exclusively, 0700) and that copy is run,
 * so nothing can be swapped in between the check and the run, as it could at the bundle's path.
 */
async function execVerifiedCopy(ctx: BaseCtx, name: string, bytes: Buffer, args: readonly string[]): Promise<{ exitCode: number; stdout: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsadm-bundle-'));
  try {
    await fs.chmod(dir, 0o700);
    const copy = path.join(dir, name);
    await fs.writeFile(copy, bytes, { mode: 0o700, flag: 'wx' });
    return await ctx.host.exec(copy, args, { timeoutMs: 20_000 });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function binaries(ctx: BaseCtx, input: HostPrepInput): Promise<void> {
  if (input.bundle === undefined) return void ctx.log.info('No --bundle: the host\'s own kubelet, kubectl and crictl are used', { prefix: PREFIX, verbosity: 1 });
  const files = await verifiedBundle(ctx, input.bundle, input.kubernetesVersion);
  for (const f of files) await ctx.host.assertWritable(f.target);
  for (const f of files) {
    const v = f.version !== undefined ? `v${f.version}` : 'version not checked: dry run';
    const description = f.version !== undefined ? `${f.name} v${f.version} from the bundle (sha256 verified)` : `${f.name} from the bundle (sha256 verified, version not checked: dry run)`;
    const r = await ctx.host.writeFile(f.target, f.bytes, { mode: 0o755, kind: 'binary', description });
    ctx.log.info(r.unchanged ? `${f.target} is ${f.version !== undefined ? v : f.name} from the bundle already` : `Installing ${f.target} (${v}, sha256 verified)`, { prefix: PREFIX, verbosity: r.unchanged ? 1 : 0 });
  }
}

async function binariesLive(ctx: BaseCtx): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  for (const b of BUNDLE_BINARIES.filter((x) => x.required)) {
    const found = await firstExisting(ctx.host, BIN_DIRS.map((d) => `${d}/${b.name}`));
    // kubeadm checks the kubelet through KubeletVersion (it runs it); a missing kubectl only bothers people.
    out.push(finding(`FileExisting-${b.name}`, found !== undefined || b.name !== 'kubelet', found ?? `${b.name} not found in system path`, found === undefined && b.name !== 'kubelet'));
  }
  return out;
}

// ---------------------------------------------------------------- kernel-modules

async function kernelModules(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  await writeDropIn(ctx, MODULES_LOAD_FILE, renderModulesLoad(), 'kernel modules loaded at boot', modulesLoadMissing, input.override);
  if (!sys.live) return void ctx.log.info('--rootfs: modules are loaded at the next boot of that root, not into the running kernel', { prefix: PREFIX });
  for (const m of HOST_MODULES) {
    if (await sys.moduleLoaded(m)) continue;
    ctx.log.info(`Loading kernel module ${m}`, { prefix: PREFIX });
    await sys.modprobe(m);
  }
}

async function kernelModulesLive(_ctx: BaseCtx, _input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  // kubeadm has no check of its own for the modules; without br_netfilter its FileContent check of the bridge sysctl fails.
  for (const m of HOST_MODULES) out.push(finding(`KernelModule-${m}`, await sys.moduleLoaded(m), `module ${m} loaded or built in`));
  return out;
}

// ---------------------------------------------------------------- sysctl

/** Every file `sysctl --system` reads, as the host has them now. */
async function sysctlSources(host: Host): Promise<SysctlSource[]> {
  const out: SysctlSource[] = [];
  for (const dir of SYSCTL_DIRS) {
    for (const name of await host.readdir(dir)) {
      if (!name.endsWith('.conf')) continue;
      const text = await readText(host, `${dir}/${name}`).catch(() => undefined);
      if (text !== undefined) out.push({ path: `${dir}/${name}`, text });
    }
  }
  const conf = await readText(host, SYSCTL_CONF);
  if (conf !== undefined) out.push({ path: SYSCTL_CONF, text: conf });
  return out;
}

async function sysctl(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  const found = await sysctlSources(ctx.host);
  const desired = renderSysctlConf();
  const ours = found.find((f) => f.path === SYSCTL_FILE);
  const state = dropInState(ours?.text, desired, sysctlFileMissing, input.override);
  if (state.action === 'conflict') throw conflictError(SYSCTL_FILE, state.detail);
  // The files as they will be: tsadm's k8s.conf in place of a replaced or missing one.
  const after = state.action === 'write' ? [...found.filter((f) => f.path !== SYSCTL_FILE), { path: SYSCTL_FILE, text: desired }] : found;
  const conflicts = sysctlConflicts(after);
  const winning = conflicts.filter((c) => c.winsAtBoot);
  if (winning.length > 0 && !input.override) {
    throw new TsadmError('E_CONFLICT', `${winning.map((c) => `${c.file} sets ${c.key}=${c.value}`).join('; ')}, applied after ${SYSCTL_FILE} (wanted ${winning.map((c) => `${c.key}=${c.want}`).join(', ')}); tsadm does not edit it`, {
      hint: 'change that setting yourself, or pass --override-host-settings to set tsadm\'s values now anyway (your file still wins at the next boot)',
    });
  }
  for (const c of conflicts) {
    ctx.log.warn(c.winsAtBoot
      ? `${c.file} sets ${c.key}=${c.value} and wins at boot; setting ${c.key}=${c.want} now only (--override-host-settings)`
      : `${c.file} sets ${c.key}=${c.value}; ${SYSCTL_FILE} is applied after it and sets ${c.want}`, { prefix: PREFIX });
  }
  await writeDropIn(ctx, SYSCTL_FILE, desired, 'sysctls applied at boot', sysctlFileMissing, input.override);
  if (!sys.live) return void ctx.log.info('--rootfs: the sysctls apply at the next boot of that root, not to the running kernel', { prefix: PREFIX });
  for (const [key, want] of HOST_SYSCTLS) {
    const now = await sys.sysctl(key);
    if (now === want) continue;
    ctx.log.info(`Setting ${key}=${want} (was ${now ?? 'absent'})`, { prefix: PREFIX });
    await sys.setSysctl(key, want);
  }
}

async function sysctlLive(_ctx: BaseCtx, _input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  for (const [key, want] of HOST_SYSCTLS) {
    const now = await sys.sysctl(key);
    // The preflight check's own name (FileContent--proc-sys-net-ipv4-ip_forward).
    out.push(finding(pathCheckName('FileContent', sysctlPath(key)), now === want, now === undefined ? `${sysctlPath(key)} does not exist` : `${key} = ${now} (want ${want})`));
  }
  return out;
}

// ---------------------------------------------------------------- swap

async function swap(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  if (!sys.live) return void ctx.log.info('--rootfs: swap of the running system is not that root\'s; not checked', { prefix: PREFIX });
  const active = parseProcSwaps(await sys.procSwaps());
  if (active.length === 0) return void ctx.log.info('Swap is off', { prefix: PREFIX, verbosity: 1 });
  if (input.swapAllowed) return void ctx.log.info(`Swap is on (${active.join(', ')}); the kubelet is configured to run with it (failSwapOn: false)`, { prefix: PREFIX });
  if (!input.swapOff) {
    ctx.log.warn(`Swap is on (${active.join(', ')}) and the kubelet refuses to run with it (preflight check Swap): pass --swap-off to turn it off now, or set failSwapOn: false in the KubeletConfiguration`, { prefix: PREFIX });
    return;
  }
  ctx.log.info(`Turning swap off: swapoff -a (${active.join(', ')})`, { prefix: PREFIX });
  await sys.swapoff();
  const atBoot = fstabSwapEntries(await readText(ctx.host, '/etc/fstab') ?? '');
  if (atBoot.length > 0) {
    ctx.log.warn(`/etc/fstab turns swap on again at boot (${atBoot.join(', ')}); tsadm does not edit it: comment those lines out (or mask their .swap units)`, { prefix: PREFIX });
  }
}

async function swapLive(_ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  const active = parseProcSwaps(await sys.procSwaps());
  if (active.length === 0) return [finding('Swap', true, 'swap is off')];
  return input.swapAllowed
    ? [finding('Swap', true, `swap is on (${active.join(', ')}); the kubelet runs with failSwapOn: false`, true)]
    : [finding('Swap', false, `swap is on (${active.join(', ')}); run the swap phase with --swap-off`)];
}

// ---------------------------------------------------------------- container-runtime

const isContainerd = (criSocket: string): boolean => criSocket.includes('containerd');

async function containerRuntime(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  if (!isContainerd(input.criSocket)) {
    ctx.log.info(`The CRI socket ${input.criSocket} is not containerd's; configure that runtime yourself: cgroup driver ${input.cgroupDriver}, sandbox image ${input.pauseImage}`, { prefix: PREFIX });
    return;
  }
  const foundBytes = await ctx.host.readFile(CONTAINERD_CONFIG);
  const found = foundBytes?.toString('utf8');
  const base = {
    configToml: found,
    containerdMajor: await sys.containerdMajor(),
    systemdCgroup: input.cgroupDriver === 'systemd',
    sandboxImage: input.pauseImage,
    override: input.override,
  };
  let plan = planContainerd(base);
  // Whether config.toml is its package's matters only when it stops the plan: dpkg's status
  // (megabytes) is read then, not on every run of a prepared host.
  if (plan.kind === 'conflict' && foundBytes !== undefined) {
    const dpkgStatus = await readText(ctx.host, DPKG_STATUS);
    if (dpkgStatus !== undefined && isPackagedConffile(dpkgStatus, CONTAINERD_CONFIG, foundBytes)) plan = planContainerd({ ...base, packaged: true });
  }
  if (plan.kind === 'conflict') {
    throw new TsadmError('E_CONFLICT', `${plan.detail}; tsadm does not edit it`, {
      hint: `set SystemdCgroup = ${String(input.cgroupDriver === 'systemd')} and the sandbox image ${input.pauseImage} there yourself, or pass --override-host-settings (tsadm then keeps your file at ${CONTAINERD_CONFIG_BACKUP} and writes one that imports its drop-in)`,
    });
  }
  if (plan.kind === 'in-place') return void ctx.log.info(`${CONTAINERD_CONFIG} already sets the cgroup driver and the sandbox image`, { prefix: PREFIX });
  for (const n of plan.notes) ctx.log.warn(n, { prefix: PREFIX });
  const targets = [CONTAINERD_DROPIN, ...(plan.configToml !== undefined ? [CONTAINERD_CONFIG] : []), ...(plan.backup ? [CONTAINERD_CONFIG_BACKUP] : [])];
  for (const t of targets) await ctx.host.assertWritable(t);
  if (plan.backup && found !== undefined && !(await ctx.host.stat(CONTAINERD_CONFIG_BACKUP))) {
    await ctx.host.writeFile(CONTAINERD_CONFIG_BACKUP, found, { mode: FILE_MODE, kind: 'config', description: 'containerd config.toml as found (kept by --override-host-settings)' });
  }
  const records = [await write(ctx, CONTAINERD_DROPIN, plan.dropIn, "containerd drop-in: the kubelet's cgroup driver and the sandbox image")];
  if (plan.configToml !== undefined) records.push(await write(ctx, CONTAINERD_CONFIG, plan.configToml, `containerd config.toml importing ${CONTAINERD_DROPIN}'s directory`));
  const changed = records.filter((r) => !r.unchanged);
  for (const r of changed) ctx.log.info(`Writing ${r.path}`, { prefix: PREFIX });
  if (changed.length === 0) return void ctx.log.info(`${CONTAINERD_DROPIN} is in place`, { prefix: PREFIX, verbosity: 1 });
  if (!sys.live) return void ctx.log.info('--rootfs: containerd of that root reads the new configuration when it starts', { prefix: PREFIX });
  const running = (await sys.service('is-active', 'containerd')).ok;
  if (!running) {
    ctx.log.info('Starting containerd', { prefix: PREFIX });
    const r = await sys.service('start', 'containerd');
    if (!r.ok) ctx.log.warn(`unable to start containerd: ${r.message ?? r.via}`, { prefix: PREFIX });
    return;
  }
  if (!input.restartRuntime) {
    ctx.log.warn('containerd is running with its previous configuration: restart it (systemctl restart containerd) or run again with --restart-container-runtime; running containers keep running, but the kubelet needs the new settings', { prefix: PREFIX });
    return;
  }
  ctx.log.info('Restarting containerd (--restart-container-runtime)', { prefix: PREFIX });
  const r = await sys.service('restart', 'containerd');
  if (!r.ok) ctx.log.warn(`unable to restart containerd: ${r.message ?? r.via}`, { prefix: PREFIX });
}

async function containerRuntimeLive(_ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  const reachable = await sys.socketReachable(socketPath(input.criSocket));
  return [finding('CRI', reachable, reachable ? `${input.criSocket} answers` : `container runtime is not running: cannot connect to the CRI socket ${input.criSocket}`)];
}

// ---------------------------------------------------------------- kubelet-service

async function firstExisting(host: Host, paths: readonly string[]): Promise<string | undefined> {
  for (const p of paths) if (await host.stat(p)) return p;
  return undefined;
}

/** Writes a unit file unless a user's different one is there (kept with a warning; replaced with --override-host-settings). */
async function writeUnitFile(ctx: BaseCtx, hostPath: string, desired: string, description: string, override: boolean): Promise<boolean> {
  const existing = await readText(ctx.host, hostPath);
  if (existing !== undefined && existing !== desired && !override) {
    ctx.log.warn(`Keeping ${hostPath}: it differs from the one kubeadm's packages install (--override-host-settings replaces it)`, { prefix: PREFIX });
    return false;
  }
  return writeDropIn(ctx, hostPath, desired, description, () => 'it differs', override);
}

async function kubeletService(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void> {
  let changed = false;
  const packagedUnit = await firstExisting(ctx.host, PACKAGED_KUBELET_UNITS);
  if (packagedUnit) ctx.log.info(`The kubelet unit is installed by a package (${packagedUnit})`, { prefix: PREFIX, verbosity: 1 });
  else changed = await writeUnitFile(ctx, KUBELET_UNIT_FILE, renderKubeletUnit(), 'kubelet systemd unit', input.override) || changed;
  const packagedDropIn = await firstExisting(ctx.host, PACKAGED_KUBEADM_DROPINS);
  if (packagedDropIn) ctx.log.info(`kubeadm's drop-in is installed by a package (${packagedDropIn})`, { prefix: PREFIX, verbosity: 1 });
  else changed = await writeUnitFile(ctx, KUBEADM_DROPIN_FILE, renderKubeadmDropIn(), "kubeadm's kubelet drop-in", input.override) || changed;
  if (!(await ctx.host.stat('/usr/bin/kubelet'))) ctx.log.warn('/usr/bin/kubelet does not exist: the unit starts /usr/bin/kubelet; install the kubelet there', { prefix: PREFIX });
  if (!sys.live) return void ctx.log.info('--rootfs: systemd of that root reads the units at its next start; enable the kubelet there (systemctl --root <dir> enable kubelet)', { prefix: PREFIX });
  if (changed) {
    const r = await sys.service('daemon-reload', 'kubelet');
    if (!r.ok) ctx.log.warn(`unable to reload systemd: ${r.message ?? r.via}`, { prefix: PREFIX });
  }
  if (!(await ctx.host.stat(KUBELET_ENABLED_LINK))) {
    ctx.log.info('Enabling the kubelet service', { prefix: PREFIX });
    const r = await sys.service('enable', 'kubelet');
    if (!r.ok) ctx.log.warn(`unable to enable the kubelet service: ${r.message ?? r.via}`, { prefix: PREFIX });
  }
}

async function kubeletServiceLive(ctx: BaseCtx): Promise<CheckFinding[]> {
  const enabled = (await ctx.host.stat(KUBELET_ENABLED_LINK)) !== undefined;
  // kubeadm's preflight name; it only warns, as here.
  return [finding('Service-Kubelet', true, enabled ? 'kubelet service is enabled' : "kubelet service is not enabled, please run 'systemctl enable kubelet.service'", !enabled)];
}

// ---------------------------------------------------------------- crictl

async function crictl(ctx: BaseCtx, input: HostPrepInput): Promise<void> {
  const desired = renderCrictlYaml(input.criSocket);
  const existing = await readText(ctx.host, CRICTL_FILE);
  const endpoint = crictlEndpoint(input.criSocket);
  if (existing !== undefined && existing !== desired && !input.override) {
    const theirs = crictlRuntimeEndpoint(existing);
    if (theirs === endpoint) ctx.log.info(`Keeping ${CRICTL_FILE}: it already points at ${endpoint}`, { prefix: PREFIX });
    else ctx.log.warn(`Keeping ${CRICTL_FILE}: it points crictl at ${theirs ?? 'no runtime-endpoint'}, not ${endpoint} (--override-host-settings replaces it)`, { prefix: PREFIX });
    return;
  }
  await writeDropIn(ctx, CRICTL_FILE, desired, 'crictl configuration', () => 'it differs', input.override);
}

async function crictlLive(ctx: BaseCtx): Promise<CheckFinding[]> {
  const found = await firstExisting(ctx.host, BIN_DIRS.map((d) => `${d}/crictl`));
  // A warning only: tsadm needs no crictl (docs/decisions.md, decision 8).
  return [finding('FileExisting-crictl', true, found ? `${found}` : 'crictl not found in system path', found === undefined)];
}
