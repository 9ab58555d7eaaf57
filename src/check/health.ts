import { PORTS } from '../constants.js';
import { controlPlaneHealthTargets, kubeletHealthTarget } from '../phases/kubelet/targets.js';
import { httpHealthCheck, type HealthCheck } from '../phases/kubelet/http-check.js';
import type { CheckFinding } from '../engine/phase.js';
import type { InitCtx } from '../workflows/context.js';

/** The component a phase leaves running, by the health endpoint that answers when its pod runs. */
function healthTargetFor(path: string, ctx: InitCtx): { component: string; url: string } | undefined {
  if (path === 'kubelet-start') return kubeletHealthTarget(ctx.cfg);
  if (path === 'etcd/local') return { component: 'etcd', url: `http://127.0.0.1:${PORTS.etcdMetrics}/health` };
  const component = { 'control-plane/apiserver': 'kube-apiserver', 'control-plane/controller-manager': 'kube-controller-manager', 'control-plane/scheduler': 'kube-scheduler' }[path];
  return component ? controlPlaneHealthTargets(ctx.cfg, ctx.versions).find((t) => t.component === component) : undefined;
}

/**
 * "Is its pod running?", asked once (no waiting) of the component's health endpoint. On a root
 * folder (--rootfs) nothing runs, so it is not asked.
 */
export async function checkHealth(path: string, ctx: InitCtx, check: HealthCheck = httpHealthCheck): Promise<CheckFinding[]> {
  const target = healthTargetFor(path, ctx);
  if (!target) return [];
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
