import { NO_RETRY } from '../kube/retry.js';
import { CERT_ROWS, SA_BASE_NAME } from '../phases/certs/cert-table.js';
import type { CheckFinding, Phase } from '../engine/phase.js';
import type { InitCtx } from '../workflows/context.js';
import { checkCertificate, checkServiceAccountKey } from './certs.js';
import { checkHealth } from './health.js';
import { wouldChange } from './idempotent.js';

export type Verifier = (ctx: InitCtx) => Promise<readonly CheckFinding[]>;

/** Phases that leave nothing to check: they check, wait or print. */
const NOTHING_TO_CHECK: ReadonlySet<string> = new Set(['preflight', 'wait-for-kubelet', 'wait-control-plane', 'show-join-command']);

/**
 * The exit check of each init phase: the phase's own `verify` when it declares one; for the
 * certificates, the explicit checks (chain, SANs, key, expiry); for the static pods and the
 * kubelet, "running the phase again would change nothing" plus "its pod answers"; for the rest,
 * "running the phase again would change nothing" (src/check/idempotent.ts).
 */
export function verifierFor(path: string, phase: Phase<InitCtx>): Verifier | undefined {
  if (phase.verify) return (ctx) => phase.verify!(ctx);
  if (!phase.run || NOTHING_TO_CHECK.has(path)) return undefined;
  const [group, name] = path.split('/');
  if (group === 'certs') {
    if (name === SA_BASE_NAME) return checkServiceAccountKey;
    const row = CERT_ROWS.find((r) => r.name === name);
    if (row) return (ctx) => (row.etcd && ctx.cfg.cluster.etcd.mode !== 'local' ? Promise.resolve([]) : checkCertificate(ctx, row, ctx.clock()));
  }
  if (path === 'upload-certs') return checkUploadedCerts;
  if (path === 'kubelet-start' || path === 'etcd/local' || group === 'control-plane') {
    return async (ctx) => [...(await wouldChange(path, phase, ctx)), ...(await checkHealth(path, ctx))];
  }
  return (ctx) => wouldChange(path, phase, ctx);
}

/** upload-certs renews its Secret on every run by design: the check is that the Secret is there. */
async function checkUploadedCerts(ctx: InitCtx): Promise<CheckFinding[]> {
  if (!ctx.options.uploadCerts) return [{ check: 'upload-certs', ok: true, warning: true, detail: 'not applicable without --upload-certs' }];
  // Read-only, through the run's API seam (closed by the check command).
  const api = await ctx.api.open({ path: ctx.options.kubeconfigPath }, { log: ctx.log, retry: NO_RETRY });
  if (!(await api.healthz())) return [{ check: 'Secret kube-system/kubeadm-certs', ok: true, warning: true, detail: `not checked: the cluster at ${api.server} does not answer` }];
  const secret = await api.get('Secret', 'kubeadm-certs', 'kube-system');
  const known = ctx.cfg.init.certificateKey !== '';
  return [
    { check: 'Secret kube-system/kubeadm-certs', ok: secret !== undefined, detail: secret ? 'present' : 'missing' },
    ...(known ? [] : [{ check: 'certificate key', ok: false, detail: 'not known to this run (init made it up): upload again to get one' }]),
  ];
}
