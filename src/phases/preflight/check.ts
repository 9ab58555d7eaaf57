import type { CheckFinding } from '../../engine/phase.js';
import type { Host } from '../../host/host.js';
import type { SystemProbe } from '../../host/system-probe.js';

/**
 * A preflight check (kubeadm's Checker): a name usable in --ignore-preflight-errors and a
 * function returning problems. Errors stop the command unless ignored; warnings are printed.
 */
export interface CheckResult {
  readonly warnings: readonly string[];
  readonly errors: readonly string[];
}

export interface CheckEnv {
  readonly host: Host;
  /** Real-machine facts (src/host/system-probe.ts): a phase passes its context, whose `system` the runtime chose. */
  readonly system: SystemProbe;
}

export interface Check {
  readonly name: string;
  run(env: CheckEnv): Promise<CheckResult>;
}

export const ok: CheckResult = { warnings: [], errors: [] };
export const warn = (...warnings: string[]): CheckResult => ({ warnings, errors: [] });
export const fail = (...errors: string[]): CheckResult => ({ warnings: [], errors });

/** kubeadm names file checks after the path: /etc/kubernetes/manifests/x.yaml → FileAvailable--etc-kubernetes-manifests-x.yaml */
export function pathCheckName(prefix: string, p: string): string {
  return `${prefix}-${p.replace(/\//g, '-')}`;
}

/**
 * A check's result as an exit-check finding (`tsadm check`): failed on an error, a warning on a
 * warning, its first message as the detail. The host phases' exit checks run preflight's own
 * checks through this, so `tsadm check host` and preflight judge a check of the same name alike.
 */
export async function findingOf(check: Check, env: CheckEnv, okDetail: string): Promise<CheckFinding> {
  const r = await check.run(env);
  if (r.errors.length > 0) return { check: check.name, ok: false, detail: r.errors.join('; ') };
  if (r.warnings.length > 0) return { check: check.name, ok: true, warning: true, detail: r.warnings.join('; ') };
  return { check: check.name, ok: true, detail: okDetail };
}
