/**
 * kubeadm's renewCertsByComponent and the admin.conf renewal at the end of the upgrade, through
 * the one renewer tsadm has (`tsadm certs renew`'s planRenewal/applyRenewal in
 * src/certs-lifecycle/renew.ts): same subject, SANs and usages, re-signed by the CA on disk, each
 * file written atomically. As `certs renew` does by default, the private key is kept (kubeadm
 * makes a new one): every reader of the old key keeps working, and nothing new has to be trusted.
 */
import { KUBERNETES_DIR } from '../../constants.js';
import type { LifecycleCtx } from '../../certs-lifecycle/context.js';
import { applyRenewal, planRenewal, selectEntries } from '../../certs-lifecycle/renew.js';
import type { PhaseLogger } from '../../log/logger.js';
import type { InitCtx } from '../../run/context.js';

/** Renews each named certificate (certs renew names: "apiserver", "scheduler.conf"), logging as kubeadm. */
export async function renewCertificates(view: InitCtx, names: readonly string[], log: PhaseLogger, announce: boolean): Promise<void> {
  const lctx: LifecycleCtx = { ...view, log, kubeconfigDir: KUBERNETES_DIR, certDir: view.cfg.cluster.certificatesDir };
  for (const name of names) {
    if (announce) log.info(`Renewing ${name} certificate`);
    const result = await planRenewal(lctx, selectEntries(lctx, name), { newKey: false });
    // An external CA (its certificate without its key): kubeadm goes on and only says so.
    if (result.external.length > 0) log.info(`External CA detected, ${name} certificate can't be renewed`);
    await applyRenewal(lctx, result);
  }
}
