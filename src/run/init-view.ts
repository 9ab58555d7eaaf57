import type { FlagValues } from '../flags.js';
import type { ResolvedInitConfig } from '../config/types.js';
import { KUBERNETES_DIR } from '../constants.js';
import { prefixedLogger } from '../log/prefixed-logger.js';
import type { PatchCache } from '../patches/run.js';
import { newPkiRunState } from '../certs/run-state.js';
import type { VersionProfile } from '../versions/table-types.js';
import type { BaseCtx, InitCtx } from './context.js';

export interface InitViewOptions {
  /** kubeadm's log prefix of the command's step ("[certs]" in a join, "[upgrade/staticpods]" in an upgrade). */
  readonly prefix: string;
  readonly cfg: ResolvedInitConfig;
  readonly versions: VersionProfile;
  readonly kubeconfigPath: string;
  readonly flags: FlagValues;
  /** The command's --patches cache, shared by all its views. */
  readonly patches: PatchCache;
}

/**
 * A node seen as an init of its own (same host, API seam and run) by another command — join, or
 * upgrade at the target version — so init's phase logic (certificates, kubeconfigs, static Pods,
 * kubelet files, cluster objects) applies as is. It prints nothing of init's own (no tokens, no
 * certificate key) and keeps its own certificate bookkeeping.
 */
export function initShapedView(ctx: BaseCtx, o: InitViewOptions): InitCtx {
  return {
    host: ctx.host,
    api: ctx.api,
    log: prefixedLogger(ctx.log, o.prefix),
    dryRun: ctx.dryRun,
    system: ctx.system,
    clock: ctx.clock,
    startTime: ctx.startTime,
    cfg: o.cfg,
    versions: o.versions,
    options: {
      kubeconfigDir: KUBERNETES_DIR,
      kubeconfigPath: o.kubeconfigPath,
      csrOnly: false,
      csrDir: undefined,
      uploadCerts: false,
      skipTokenPrint: true,
      skipCertificateKeyPrint: true,
      flags: o.flags,
    },
    state: { pki: newPkiRunState(), patches: o.patches },
  };
}
