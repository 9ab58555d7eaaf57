import type { FlagValues } from '../cli/flags.js';
import type { ResolvedInitConfig, ResolvedJoinConfig, ResolvedResetConfig } from '../config/types.js';
import type { Host } from '../host/host.js';
import type { PhaseLogger } from '../log/logger.js';
import type { VersionProfile } from '../versions/table.js';
import type { JoinDeps } from '../phases/join/deps.js';
import type { JoinRunState } from '../phases/join/state.js';
import type { ResetDeps } from '../phases/reset/deps.js';
import type { ResetRunState } from '../phases/reset/state.js';

/** What every phase gets: the seams, never raw flags. */
export interface BaseCtx {
  readonly host: Host;
  readonly log: PhaseLogger;
  /** Changes wording only (phases never branch on it: the host already is a dry-run host). */
  readonly dryRun: boolean;
  readonly clock: () => Date;
  /** When the command started (kubeadm backdates modern certificates from it). */
  readonly startTime: Date;
}

/** Options of init that are not part of kubeadm's config API (paths of this run, printing). */
export interface InitOptions {
  readonly kubeconfigDir: string;
  /** The kubeconfig API phases use (default <kubeconfigDir>/admin.conf). */
  readonly kubeconfigPath: string;
  readonly csrOnly: boolean;
  readonly csrDir: string | undefined;
  readonly uploadCerts: boolean;
  readonly skipTokenPrint: boolean;
  readonly skipCertificateKeyPrint: boolean;
  /** Every flag the user set, for the few phases that need one verbatim (e.g. show-join-command). */
  readonly flags: FlagValues;
}

/** Results one phase hands to a later one in the same run (e.g. the certificate key). */
export interface InitRunState {
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

export interface JoinCtx extends BaseCtx {
  readonly cfg: ResolvedJoinConfig;
  readonly flags: FlagValues;
  /** Discovery, API and etcd clients, machine facts (real, or test doubles). */
  readonly deps: JoinDeps;
  /** Discovery and the cluster's configuration, computed once per run (see phases/join/state.ts). */
  readonly state: JoinRunState;
}

export interface ResetCtx extends BaseCtx {
  readonly cfg: ResolvedResetConfig;
  readonly flags: FlagValues;
  readonly options: {
    /** The admin kubeconfig used for the cluster-side steps (--kubeconfig, default /etc/kubernetes/admin.conf). */
    readonly kubeconfigPath: string;
  };
  /** The confirmation prompt, API/etcd/CRI clients, machine facts (real, or test doubles). */
  readonly deps: ResetDeps;
  readonly state: ResetRunState;
}
