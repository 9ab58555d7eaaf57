/**
 * The crash-safety sweep: kill tsadm (TSADM_FAULT_AFTER=N, a real SIGKILL) at every write of a
 * command, check what a crash leaves (every file whole, keys and kubeconfigs never looser than
 * 0600, the only temp file the interrupted one), re-run, and compare with a clean run.
 */
import { cpSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { checkWhole, isDeterministic, listFiles, verifyPki } from '../../helpers/pki-check.js';
import { TEMP_NAME, fileModes, scratchDir, snapshot, tsadmSync, type Scratch } from '../../helpers/built-cli.js';

/** A node-local init of v1.20.2 (also bench/footprint.mjs's): one control plane, no cluster phases. */
export const CONFIG = readFileSync(new URL('../../fixtures/config/node-local-init-v1.20.yaml', import.meta.url), 'utf8');
/**
 * CONFIG with ECDSA P-256 keys (v1.20's PublicKeysECDSA feature gate; ClusterConfiguration is
 * CONFIG's last document), for the crash sweeps: the same files, modes and manifests, written in
 * the same order through the same writer as with RSA keys, for a fraction of the CPU. Each kill
 * point of a sweep runs init up to twice, and an RSA-2048 key costs about 50 ms of CPU (eleven
 * per init) where a P-256 key costs 0.1 ms. RSA keys stay covered by hostile.test.ts and
 * secrets.test.ts, which run on CONFIG (docs/decisions.md, decision 83).
 */
export const CRASH_CONFIG = `${CONFIG.trimEnd()}\nfeatureGates:\n  PublicKeysECDSA: true\n`;

export type Stage = 'done' | 'before-rename';
/** How much of the PKI the compared state must hold: all, the certs phase's, or none yet. */
export type PkiLevel = 'full' | 'certs' | 'none';

interface KillOutcome {
  readonly n: number;
  /** False when N was past the last write: the run finished normally. */
  readonly killed: boolean;
  readonly stderr: string;
}

/** Runs ARGS with a kill after the Nth write/API call; returns whether it was killed. */
function runWithFault(args: readonly string[], n: number, stage: Stage): KillOutcome {
  const r = tsadmSync(args, { env: { TSADM_FAULT_AFTER: String(n), TSADM_FAULT_STAGE: stage } });
  if (r.signal === 'SIGKILL') return { n, killed: true, stderr: r.stderr };
  if (r.code !== 0) throw new Error(`tsadm ${args.join(' ')} (fault ${n}) failed unexpectedly (exit ${r.code}):\n${r.stderr}`);
  return { n, killed: false, stderr: r.stderr };
}

export function runClean(args: readonly string[]): void {
  const r = tsadmSync(args);
  if (r.code !== 0) throw new Error(`tsadm ${args.join(' ')} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
}

/** Temp files anywhere under root (host paths). */
function tempFiles(root: string): string[] {
  return [...snapshot(root).keys()].filter((p) => TEMP_NAME.test(p));
}

/**
 * What must hold right after a kill: every file whole, secrets (keys, kubeconfigs and their
 * temp files) 0600, temps only as the stage allows (one: the interrupted write, already at its
 * final mode). Returns problems.
 */
function checkAfterKill(root: string, stage: Stage): string[] {
  const problems = checkWhole(root).map((p) => `half-written: ${p}`);
  const temps = tempFiles(root);
  if (stage === 'done' && temps.length > 0) problems.push(`temp files left: ${temps.join(', ')}`);
  if (stage === 'before-rename' && temps.length !== 1) problems.push(`expected exactly the interrupted temp file, found: ${temps.join(', ') || 'none'}`);
  for (const f of listFiles(root)) {
    const mode = statSync(path.join(root, f)).mode & 0o777;
    if (/\.(key|conf)(\.tsadm-\d+-[0-9a-f]{12})?$/.test(f) && mode !== 0o600) problems.push(`${f} has mode ${mode.toString(8)}`);
    if ((mode & 0o022) !== 0) problems.push(`${f} is group/world writable`);
  }
  for (const t of temps) {
    // The interrupted temp file holds the complete content at the final mode already.
    const text = readFileSync(path.join(root, t), 'utf8');
    if (text.length === 0) problems.push(`${t} is empty`);
  }
  return problems;
}

/**
 * The re-run's result equals the clean run's: same files and modes, deterministic files byte
 * for byte, the PKI consistent. Returns problems.
 */
function compareWithClean(root: string, cleanRoot: string, opts: { pki: PkiLevel }): string[] {
  const problems: string[] = [];
  const got = fileModes(snapshot(root));
  const want = fileModes(snapshot(cleanRoot));
  for (const p of new Set([...Object.keys(got), ...Object.keys(want)])) {
    if (got[p] !== want[p]) problems.push(`${p}: ${got[p] ?? 'absent'} (clean run: ${want[p] ?? 'absent'})`);
  }
  for (const f of listFiles(cleanRoot)) {
    if (!isDeterministic(f)) continue;
    const a = readFileSync(path.join(root, f), 'utf8');
    if (a !== readFileSync(path.join(cleanRoot, f), 'utf8')) problems.push(`${f} differs from the clean run`);
  }
  problems.push(...(opts.pki === 'full' ? verifyPki(root) : opts.pki === 'certs' ? verifyPki(root, { certsOnly: true }) : checkWhole(root)));
  return problems;
}

export interface SweepResult {
  /** Kill points tried (N = 1..killPoints were each killed and recovered). */
  readonly killPoints: number;
  /** Problems found, "N=<n>: <problem>". */
  readonly problems: string[];
}

/**
 * For N = 1, 2, … until a run finishes without being killed: copy `base` (the state before the
 * command), run ARGS(root) killed after write N, check the debris, re-run RERUN(root) clean,
 * compare with `cleanRoot`.
 */
export function sweep(opts: {
  base: string | undefined;
  cleanRoot: string;
  args: (root: string) => string[];
  rerun: (root: string) => string[][];
  stage: Stage;
  pki: PkiLevel;
  maxN?: number;
}): SweepResult {
  const problems: string[] = [];
  let n = 1;
  for (; n <= (opts.maxN ?? 200); n += 1) {
    const s: Scratch = scratchDir('tsadm-crash-');
    try {
      if (opts.base) for (const e of readdirSync(opts.base)) cpSync(path.join(opts.base, e), path.join(s.dir, e), { recursive: true, preserveTimestamps: true });
      const outcome = runWithFault(opts.args(s.dir), n, opts.stage);
      if (!outcome.killed) break;
      problems.push(...checkAfterKill(s.dir, opts.stage).map((p) => `N=${n} after kill: ${p}`));
      for (const args of opts.rerun(s.dir)) runClean(args);
      problems.push(...tempFiles(s.dir).map((t) => `N=${n} after re-run: temp file left: ${t}`));
      problems.push(...compareWithClean(s.dir, opts.cleanRoot, { pki: opts.pki }).map((p) => `N=${n} after re-run: ${p}`));
    } finally {
      s.cleanup();
    }
  }
  return { killPoints: n - 1, problems };
}
