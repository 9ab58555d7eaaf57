/**
 * What every host leaf (src/phases/host/<leaf>.ts) is made of and shares: its description, its
 * run and its live exit check; the drop-in writing rules (a user's file kept or reported, never
 * edited) and the preflight checks run as exit checks. src/phases/host/phase.ts composes them.
 */
import type { CheckFinding } from '../../engine/phase.js';
import type { FlagName } from '../../flags.js';
import { TsadmError } from '../../errors.js';
import type { FileRecord, Host } from '../../host/host.js';
import type { RunningSystem } from '../../host/running-system.js';
import type { BaseCtx } from '../../run/context.js';
import { findingOf, type Check } from '../preflight/check.js';
import { dropInState } from './render.js';
import type { HostPrepInput } from './input.js';

export const PREFIX = 'host';
export const FILE_MODE = 0o644;

/** One host leaf: what it does (run) and how `tsadm check host` sees the running system after it (live). */
export interface HostLeaf {
  readonly name: string;
  readonly summary: string;
  readonly description: string;
  /** Flags the leaf reads besides every host leaf's. */
  readonly flags: readonly FlagName[];
  run(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<void>;
  /** Findings on the running system (only when it is live); preflight's checks where kubeadm has one. */
  live(ctx: BaseCtx, input: HostPrepInput, sys: RunningSystem): Promise<CheckFinding[]>;
}

/**
 * Preflight's own checks (src/phases/preflight/checks.ts) on the machine's probe, as findings:
 * `tsadm check host` and preflight share the check functions of a name, and so their verdicts.
 */
export async function preflightFindings(ctx: BaseCtx, sys: RunningSystem, checks: readonly (readonly [Check, string])[]): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  for (const [check, okDetail] of checks) out.push(await findingOf(check, { host: ctx.host, system: sys.probe }, okDetail));
  return out;
}

export async function readText(host: Host, hostPath: string): Promise<string | undefined> {
  return (await host.readFile(hostPath))?.toString('utf8');
}

export function conflictError(file: string, detail: string): TsadmError {
  return new TsadmError('E_CONFLICT', `${file} is not tsadm's and ${detail}; tsadm does not edit it`, {
    hint: 'change it yourself, or pass --override-host-settings to replace it with tsadm\'s (/usr/share/doc/tsadm/docs/host.md)',
  });
}

export function write(ctx: BaseCtx, hostPath: string, content: string, description: string): Promise<FileRecord> {
  return ctx.host.writeFile(hostPath, content, { mode: FILE_MODE, kind: 'config', description });
}

/** Writes a drop-in per dropInState; true when the file changed. */
export async function writeDropIn(ctx: BaseCtx, hostPath: string, desired: string, description: string, satisfies: (text: string) => string | undefined, override: boolean): Promise<boolean> {
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

export function finding(check: string, ok: boolean, detail: string, warning = false): CheckFinding {
  return { check, ok, detail, ...(warning ? { warning } : {}) };
}

export async function firstExisting(host: Host, paths: readonly string[]): Promise<string | undefined> {
  for (const p of paths) if (await host.stat(p)) return p;
  return undefined;
}
