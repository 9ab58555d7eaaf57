import type { FlagValues } from '../flags.js';
import type { ResolvedInitConfig, ResolvedJoinConfig, ResolvedResetConfig, ResolvedUpgradeConfig } from '../config/types.js';
import type { Host } from '../host/host.js';
import type { JoinDiscovery } from '../discovery/discover.js';
import type { ApiSeam } from '../kube/seam.js';
import type { KubeApi } from '../kube/types.js';
import type { PhaseLogger } from '../log/logger.js';
import type { VersionProfile } from '../versions/table-types.js';
import type { PatchCache } from '../patches/run.js';
import type { PkiOptions } from '../certs/context.js';
import type { PkiRunState } from '../certs/run-state.js';
import type { JoinClusterConfig } from '../phases/join/cluster-config.js';
import type { JoinDeps } from '../phases/join/deps.js';
import type { LocalEtcdMember } from '../phases/reset/etcd-manifest.js';
import type { ResetDeps } from '../phases/reset/deps.js';
import type { UpgradeDeps } from '../phases/upgrade/deps.js';
import type { UpgradeClusterView } from '../upgrade/cluster-view.js';

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
  readonly clock: () => Date;
  /** When the command started (kubeadm backdates modern certificates from it). */
  readonly startTime: Date;
}

/** Options of init that are not part of kubeadm's config API (paths of this run, printing). */
export interface InitOptions extends PkiOptions {
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

/**
 * What the phases of one join run share, computed on first use and kept (kubeadm's joinData
 * getters): discovery runs once, when the first phase needs it, and nothing is written before
 * it succeeded; the cluster's configuration is read once with the bootstrap credentials
 * (src/phases/join/state.ts computes them).
 */
export interface JoinRunState {
  discovery?: Promise<JoinDiscovery>;
  bootstrapApi?: Promise<KubeApi>;
  cluster?: Promise<JoinClusterConfig>;
  adminApi?: Promise<KubeApi>;
  /** Init-shaped views of this node for the shared renderers, one per log prefix. */
  readonly views: Map<string, InitCtx>;
  /** --patches directories read so far, shared by the views. */
  readonly patches: PatchCache;
}

/** What the reset phases of one run share, read once (src/phases/reset/state.ts). */
export interface ResetRunState {
  etcd?: Promise<LocalEtcdMember | undefined>;
  adminApi?: Promise<KubeApi | undefined>;
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

/** What the phases of one `upgrade apply` or `upgrade node` run share, read once (src/phases/upgrade/state.ts). */
export interface UpgradeRunState {
  adminApi?: Promise<KubeApi>;
  cluster?: Promise<UpgradeClusterView>;
  /** This node at the target version, seen as an init of its own, one per log prefix. */
  readonly views: Map<string, InitCtx>;
  /** --patches directories read so far, shared by the views. */
  readonly patches: PatchCache;
  /** Where this run backed up the manifests and etcd's data (named in errors and the result). */
  backups?: { manifestsDir?: string; etcdDataDir?: string };
  /** Components whose manifest this run changed, in order. */
  readonly upgraded: string[];
}

export interface UpgradeCtx extends BaseCtx {
  /** `upgrade apply` (target from the argument or the configuration) or `upgrade node` (target: the cluster's stored version). */
  readonly command: 'apply' | 'node';
  readonly cfg: ResolvedUpgradeConfig;
  readonly flags: FlagValues;
  readonly options: {
    /** The admin kubeconfig (--kubeconfig, default /etc/kubernetes/admin.conf). */
    readonly kubeconfigPath: string;
  };
  /** The confirmation prompt and machine facts (real, or test doubles). */
  readonly deps: UpgradeDeps;
  readonly state: UpgradeRunState;
}
