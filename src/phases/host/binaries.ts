/**
 * The `binaries` host leaf: kubelet, kubectl (and crictl) from a local bundle (--bundle), each
 * verified against the bundle's SHA-256 digests and its version checked against the cluster's
 * before any is written; nothing is ever downloaded. What a bundle must hold is bundle.ts (pure).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CheckFinding } from '../../engine/phase.js';
import { TsadmError } from '../../errors.js';
import type { RunningSystem } from '../../host/running-system.js';
import { openRegularFile, regularFileChunks, type OpenedRegularFile } from '../../host/safe-fs.js';
import type { BaseCtx } from '../../run/context.js';
import { fileExisting } from '../preflight/checks.js';
import { BUNDLE_BINARIES, MAX_BUNDLE_BINARY_BYTES, MAX_BUNDLE_SUMS_BYTES, SHA256SUMS, expectedDigest, reportedVersion, versionArgs, versionFit } from './bundle.js';
import type { HostPrepInput } from './input.js';
import { PREFIX, preflightFindings, type HostLeaf } from './leaf.js';

interface BundleFile {
  readonly name: string;
  readonly target: string;
  readonly bytes: Buffer;
  /** Undefined in a dry run: nothing of the bundle is executed, so its version is not known. */
  readonly version: string | undefined;
}

interface BundleRead {
  readonly bytes: Buffer;
  /** SHA-256 of exactly `bytes`, hashed as they were read. */
  readonly sha256: string;
}

/**
 * Reads a file of the bundle (input given on the command line, like --config: not a path of the
 * host being prepared); undefined when it is absent. Through the safe reader (src/host/safe-fs.ts):
 * opened O_NONBLOCK, so a FIFO cannot hold the open; judged by fstat of that descriptor, so only a
 * regular file of at most `maxBytes` is read (a link to /dev/zero opens a device and is refused
 * before a byte is read); read by that descriptor in chunks, hashed as they arrive, into one buffer
 * of the size fstat gave (a file that grows meanwhile is refused).
 */
async function readBundleFile(dir: string, name: string, maxBytes: number): Promise<BundleRead | undefined> {
  const file = path.join(dir, name);
  const refuse = (problem: string): TsadmError => bundleError(`refusing to read ${file} from --bundle: ${problem}`);
  const failed = (err: unknown): TsadmError => new TsadmError('E_CONFIG_INVALID', `cannot read ${file}: ${(err as Error).message}`, { hint: 'check --bundle' });
  let opened: OpenedRegularFile;
  try {
    opened = await openRegularFile(file, file, { maxBytes, limitName: `the ${maxBytes / (1024 * 1024)} MiB a bundle's ${name} may have`, refuse });
  } catch (err) {
    if (err instanceof TsadmError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw failed(err);
  }
  try {
    const bytes = Buffer.allocUnsafe(opened.stat.size);
    const hash = createHash('sha256');
    let length = 0;
    for await (const chunk of regularFileChunks(opened, opened.stat.size, refuse)) {
      hash.update(chunk);
      chunk.copy(bytes, length);
      length += chunk.length;
    }
    return { bytes: bytes.subarray(0, length), sha256: hash.digest('hex') };
  } catch (err) {
    if (err instanceof TsadmError) throw err;
    throw failed(err);
  } finally {
    await opened.handle.close();
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
  const sums = (await readBundleFile(dir, SHA256SUMS, MAX_BUNDLE_SUMS_BYTES))?.bytes.toString('utf8');
  const out: BundleFile[] = [];
  for (const b of BUNDLE_BINARIES) {
    const read = await readBundleFile(dir, b.name, MAX_BUNDLE_BINARY_BYTES);
    if (!read) {
      if (b.required) throw bundleError(`--bundle ${dir} has no ${b.name}`);
      ctx.log.info(`The bundle has no ${b.name}; not installing it`, { prefix: PREFIX, verbosity: 1 });
      continue;
    }
    const { bytes, sha256: actual } = read;
    const expected = expectedDigest(b.name, sums, (await readBundleFile(dir, `${b.name}.sha256`, MAX_BUNDLE_SUMS_BYTES))?.bytes.toString('utf8'));
    if (expected === undefined) throw bundleError(`--bundle ${dir} lists no SHA-256 digest for ${b.name} (neither ${SHA256SUMS} nor ${b.name}.sha256); tsadm installs nothing unverified`);
    if ('problem' in expected) throw bundleError(`--bundle ${dir}: ${expected.problem}`);
    if (actual !== expected.hex) throw bundleError(`${path.join(dir, b.name)} does not match its listed digest (sha256 ${actual}, listed ${expected.hex}): the bundle is damaged or not the one listed`);
    // A dry run executes nothing from the bundle (decision 48): the version is checked by the real run.
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

async function binariesLive(ctx: BaseCtx, _input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]> {
  // Preflight's FileExisting check on PATH: the kubelet is mandatory (kubeadm checks it through
  // KubeletVersion, which runs it); a missing kubectl only bothers people, a warning.
  return preflightFindings(ctx, sys, BUNDLE_BINARIES.filter((x) => x.required).map((x) => [fileExisting(x.name, x.name === 'kubelet'), `${x.name} is on PATH`] as const));
}

export const binariesLeaf: HostLeaf = {
  name: 'binaries',
  summary: 'Install kubelet, kubectl and crictl from a local bundle (--bundle)',
  description: `With --bundle DIR: install ${BUNDLE_BINARIES.map((b) => b.target).join(', ')} (crictl when the bundle has it) from DIR, each verified against DIR's ${SHA256SUMS} or <name>.sha256 and its version checked against the cluster's, before any is written. Without --bundle: nothing (the host's own binaries are used). Never downloads.`,
  flags: ['bundle'],
  run: binaries,
  live: binariesLive,
};
