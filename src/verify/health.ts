import { httpHealthCheck, type HealthCheck } from '../health/http-check.js';
import type { HealthTarget } from '../health/wait-loop.js';
import type { CheckFinding } from '../engine/phase.js';
import type { Host } from '../host/host.js';

/**
 * "Is its pod running?", asked once (no waiting) of the health endpoint of the component a phase
 * leaves running. On a root folder (--rootfs) nothing runs, so it is not asked.
 */
export async function checkRunning(ctx: { readonly host: Pick<Host, 'root'> }, target: HealthTarget, check: HealthCheck = httpHealthCheck): Promise<CheckFinding[]> {
  const what = `${target.component} running`;
  if (ctx.host.root !== '/') return [{ check: what, ok: true, warning: true, detail: `not checked on a root folder (${ctx.host.root})` }];
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 5000);
  try {
    const r = await check(target.url, abort.signal);
    return [{ check: what, ok: r.ok, detail: r.ok ? `${target.url} answers` : `${target.url}: ${r.detail}` }];
  } finally {
    clearTimeout(timer);
  }
}
