import { errorMessage } from '../errors.js';
import type { PhaseLogger } from '../log/logger.js';
import { flatten, type CheckFinding, type Phase } from '../engine/phase.js';
import { computeSelection } from '../engine/selection.js';
import type { InitCtx } from '../run/context.js';
import { exitCheckOf } from './exit-check.js';

/** One finding of `tsadm check`, with the phase it belongs to. */
export interface PhaseFinding extends CheckFinding {
  readonly phase: string;
}

/**
 * Walks the phase tree and runs the exit check of each selected phase (all when none is named),
 * in workflow order, logging each finding as it comes:
 * `[check] ok   certs/apiserver  /etc/kubernetes/pki/apiserver.crt: …`.
 */
export async function verifyPhases(tree: readonly Phase<InitCtx>[], ctx: InitCtx, filter: readonly string[], log: PhaseLogger): Promise<PhaseFinding[]> {
  const selection = computeSelection(tree, filter, []);
  const out: PhaseFinding[] = [];
  for (const { path, phase } of flatten(tree)) {
    if (!selection.get(path)) continue;
    const verify = exitCheckOf(path, phase);
    if (!verify) continue;
    let findings: readonly CheckFinding[];
    try {
      findings = await verify(ctx);
    } catch (err) {
      findings = [{ check: path, ok: false, detail: errorMessage(err) }];
    }
    for (const f of findings) {
      out.push({ phase: path, ...f });
      const status = !f.ok ? 'FAIL' : f.warning ? 'warn' : 'ok  ';
      const line = `${status} ${path}  ${f.check}${f.detail ? `: ${f.detail}` : ''}`;
      if (f.ok && !f.warning) log.info(line, { prefix: 'check' });
      else log.warn(line, { prefix: 'check' });
    }
  }
  return out;
}
