import type { FlagValues } from '../flags.js';
import type { ResolvedInitConfig } from '../config/types.js';
import type { Host } from '../host/host.js';
import type { SystemProbe } from '../host/system-probe.js';
import type { ApiSeam } from '../kube/seam.js';
import type { PhaseLogger } from '../log/logger.js';
import type { VersionProfile } from '../versions/table-types.js';
import type { PatchCache } from '../patches/run.js';
import type { PkiOptions } from '../certs/context.js';
import type { PkiRunState } from '../certs/run-state.js';

/*
 * The contexts every workflow builds on: BaseCtx (the seams) and init's context, which join's and
 * upgrade's phases also see this node as (init-view.ts). Each other workflow's context lives with
 * its phases: src/phases/join/context.ts, src/phases/reset/context.ts, src/phases/upgrade/context.ts.
 */

/**
 * What every phase gets: the seams, never raw flags. Per-run state lives on the context (its
 * `state`), never in module-level maps: a context is one run.
 */
export interface BaseCtx {
  readonly host: Host;
  /** How the phases reach the cluster (real or dry-run, chosen by the runtime): src/kube/seam.ts. */
  readonly api: ApiSeam;
  readonly log: PhaseLogger;
  /**
   * Files and API objects need no branch on it: the host and the API seam already are the dry-run
   * ones. Phases branch on it only around those seams (docs/decisions.md, decision 3): to skip
   * waiting for what a dry run did not start (kubelet and control-plane health, join's TLS
   * bootstrap and etcd health) and to list, instead of doing, what goes through clients without a
   * dry-run variant (etcd member add and removal, CRI pod sandbox removal, the unmount re-check).
   * Elsewhere it only changes wording.
   */
  readonly dryRun: boolean;
  /**
   * The running machine (ports, CPUs, /proc, modules, the init system and its units): the one
   * probe every phase reads machine facts through, chosen once by createRuntime (src/run/runtime.ts).
   */
  readonly system: SystemProbe;
  readonly clock: () => Date;
  /** When the command started (kubeadm backdates modern certificates from it). */
  readonly startTime: Date;
}

/** Options of init that are not part of kubeadm's config API (paths of this run, printing). */
interface InitOptions extends PkiOptions {
  /** The kubeconfig API phases use (default <kubeconfigDir>/admin.conf). */
  readonly kubeconfigPath: string;
  readonly uploadCerts: boolean;
  readonly skipTokenPrint: boolean;
  readonly skipCertificateKeyPrint: boolean;
  /** Every flag the user set, for the few phases that need one verbatim (e.g. show-join-command). */
  readonly flags: FlagValues;
}

/** Results one phase hands to a later one in the same run (e.g. the certificate key). */
interface InitRunState {
  /** Keys generated ahead of need and the certs/kubeconfig groups' bookkeeping. */
  readonly pki: PkiRunState;
  /** --patches directories read so far (each is read, and announced, once per run). */
  readonly patches: PatchCache;
  certificateKey?: string;
  /** Join commands printed at the end. */
  joinCommand?: string;
  controlPlaneJoinCommand?: string;
}

export interface InitCtx extends BaseCtx {
  readonly cfg: ResolvedInitConfig;
  readonly versions: VersionProfile;
  readonly options: InitOptions;
  readonly state: InitRunState;
}
