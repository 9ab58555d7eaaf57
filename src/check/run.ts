import { errorMessage } from '../errors.js';
import type { PhaseLogger } from '../log/logger.js';
import { flatten, type CheckFinding, type Phase } from '../engine/phase.js';
import { computeSelection } from '../engine/selection.js';
import type { InitCtx } from '../workflows/context.js';
import { verifierFor } from './registry.js';

export interface PhaseCheck extends CheckFinding {
  readonly phase: string;
}

/**
 * Runs the exit checks of the selected phases (all when none is named), in workflow order, and
 * logs each finding as it comes: `[check] ok   certs/apiserver  /etc/kubernetes/pki/apiserver.crt: …`.
 */
export async function runChecks(tree: readonly Phase<InitCtx>[], ctx: InitCtx, filter: readonly string[], log: PhaseLogger): Promise<PhaseCheck[]> {
  const selection = computeSelection(tree, filter, []);
  const out: PhaseCheck[] = [];
  for (const { path, phase } of flatten(tree)) {
    if (!selection.get(path) || !phase.run) continue;
    const verify = verifierFor(path, phase);
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
