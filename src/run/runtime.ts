import type { CliIO } from '../cli/io.js';
import type { FlagValues } from '../flags.js';
import { TsadmError } from '../errors.js';
import type { DryRunHost } from '../host/dry-run-host.js';
import type { Host } from '../host/host.js';
import { acquireMachineLock, type MachineLock } from '../host/lock.js';
import { createApiSeam, type ApiSeam } from '../kube/seam.js';
import { RootedHost } from '../host/rooted-host.js';
import { realSystem, type SystemProbe } from '../host/system-probe.js';
import { resolveRootfs } from '../host/rootfs.js';
import type { Reporter } from '../log/events.js';
import { JsonReporter } from '../log/json-reporter.js';
import { LogFile, teeToLogFile, type LogFileSettings } from '../log/log-file.js';
import { PhaseLogger } from '../log/logger.js';
import { PlainReporter } from '../log/plain-reporter.js';
import { promises as fs } from 'node:fs';
import { TSADM_VERSION } from '../version.js';
import type { BaseCtx } from './context.js';

export interface CommandEnv {
  readonly io: CliIO;
  /** --log-file and its klog companions, known once the command line is parsed (src/cli/klog-flags.ts). */
  readonly logFile?: () => LogFileSettings | undefined;
}

/** The seams of one command run, chosen once from the flags (and the config file's dryRun). */
export interface Runtime {
  readonly host: Host;
  /** How phases reach the cluster; runCommand (src/workflows/run-command.ts) closes it (and every client) when the command ends. */
  readonly api: ApiSeam;
  readonly log: PhaseLogger;
  readonly reporter: Reporter;
  readonly verbosity: number;
  readonly json: boolean;
  readonly dryRun: boolean;
  /** The running machine's probe (never --rootfs): every machine fact is read through it. */
  readonly system: SystemProbe;
  readonly startTime: Date;
  /** The machine lock, held until the reporter is closed (mutating workflow runs only). */
  readonly lock?: MachineLock;
}

export interface RuntimeOptions {
  /**
   * The workflow that changes the machine ("init", "join", "reset"): the run takes the machine
   * lock (src/host/lock.ts) unless it is a dry run, so two of them cannot interleave.
   */
  readonly lock?: string;
  /** Plain lines even on a terminal (a command that asks a question, like reset's confirmation). */
  readonly plain?: boolean;
  /**
   * A dry run asked for by the configuration (v1beta4 `dryRun: true`), read before the seams
   * are chosen; --dry-run and --plan make one too.
   */
  readonly dryRun?: boolean;
  /** When the command started (default: now). */
  readonly startTime?: Date;
}

export async function createRuntime(flags: FlagValues, env: CommandEnv, options: RuntimeOptions = {}): Promise<Runtime> {
  const verbosity = Number(flags.v ?? 0) || 0;
  const output = String(flags.output ?? 'text');
  if (output !== 'text' && output !== 'json') {
    throw new TsadmError('E_USAGE', `invalid --output "${output}"`, { hint: 'use --output text or --output json' });
  }
  const json = output === 'json';
  const root = await resolveRootfs(flags.rootfs as string | undefined);
  const rooted = new RootedHost(root);
  const planFile = flags.plan as string | undefined;
  if (flags['plan-without-keys'] === true && planFile === undefined) {
    throw new TsadmError('E_USAGE', '--plan-without-keys needs --plan <file>', { hint: 'e.g. --dry-run --plan plan.json --plan-without-keys' });
  }
  // A plan is made by a dry run: --plan implies --dry-run, so it can never change the machine.
  const dryRun = flags['dry-run'] === true || planFile !== undefined || options.dryRun === true;
  // The dry-run overlay and the plan writer are loaded only by the runs that use them (start-up of
  // the commands that change the machine directly, such as a snapshot save: decision 65).
  const dryHost: DryRunHost | undefined = dryRun ? new (await import('../host/dry-run-host.js')).DryRunHost(rooted) : undefined;
  const host: Host = dryHost ?? rooted;
  // Opened before the lock is taken, so a bad --log-file cannot leave the lock held.
  const logFileSettings = env.logFile?.();
  const logFile = logFileSettings ? LogFile.open(logFileSettings, `tsadm ${TSADM_VERSION} (Node.js ${process.version}) for ${process.platform}/${process.arch}`) : undefined;
  // Taken before anything is read or written, so the second of two runs fails first and cleanly.
  let lock: MachineLock | undefined;
  try {
    lock = options.lock !== undefined && !dryRun ? acquireMachineLock(root, options.lock) : undefined;
  } catch (err) {
    logFile?.close();
    throw err;
  }
  const shown: Reporter = json
    ? new JsonReporter(env.io.stdout)
    : !options.plain && useTaskView(env, verbosity)
      ? new (await import('../log/listr-reporter.js')).ListrReporter(env.io.stdout, env.io.stderr)
      : new PlainReporter({ verbosity, stdout: env.io.stdout, stderr: env.io.stderr });
  const base = logFile ? teeToLogFile(shown, logFile, verbosity) : shown;
  // runCommand closes the reporter in a `finally`: the lock goes with it.
  const locked: Reporter = lock ? { emit: (e) => base.emit(e), close: async () => { try { await base.close(); } finally { lock.release(); } } } : base;
  const startTime = options.startTime ?? new Date();
  // --plan: the plan is written from the dry-run journal when the command closes its reporter.
  const reporter = planFile !== undefined && dryHost !== undefined
    ? new (await import('../plan/reporter.js')).PlanReporter(locked, dryHost.journal, { file: planFile, keys: flags['plan-without-keys'] !== true, rootfs: root, startTime })
    : locked;
  const log = new PhaseLogger(reporter);
  if (dryHost !== undefined) dryHost.journal.currentPhase = () => log.phase;
  return { host, api: createApiSeam(host, dryRun), log, reporter, verbosity, json, dryRun, system: realSystem, startTime, ...(lock ? { lock } : {}) };
}

/** The listr2 task view only on an interactive terminal at the default verbosity (not in CI). */
function useTaskView(env: CommandEnv, verbosity: number): boolean {
  return env.io.stdout.isTTY === true && verbosity === 0 && !env.io.env.CI && env.io.env.TERM !== 'dumb';
}

/** Reads the --config file (from the real filesystem, relative to the working directory). */
/** The seams every context carries, from the runtime of the run (BaseCtx in context.ts). */
export function baseContext(rt: Runtime): BaseCtx {
  return { host: rt.host, api: rt.api, log: rt.log, dryRun: rt.dryRun, system: rt.system, clock: () => new Date(), startTime: rt.startTime };
}

export async function readConfigFile(configPath: string | undefined): Promise<string | undefined> {
  if (configPath === undefined) return undefined;
  const st = await fs.stat(configPath).catch(() => undefined);
  if (!st?.isFile()) {
    throw new TsadmError('E_CONFIG_INVALID', `unable to read config from "${configPath}": no such file`, { hint: 'check the --config path' });
  }
  if (st.size > 1024 * 1024) {
    throw new TsadmError('E_CONFIG_INVALID', `config file "${configPath}" is larger than 1 MiB`, { hint: 'a kubeadm configuration is a few KiB; check the file' });
  }
  return decodeUtf8(await fs.readFile(configPath), configPath);
}

/** YAML is UTF-8: refuse other bytes rather than read them as U+FFFD (kubeadm refuses too). */
function decodeUtf8(data: Buffer, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new TsadmError('E_CONFIG_INVALID', `config file "${file}" is not valid UTF-8`, { hint: 'save the file as UTF-8 text' });
  }
}
