/**
 * The context of the phases of `upgrade apply` and `upgrade node`: the seams, upgrade's
 * configuration and what the phases of one run share. It lives with upgrade's phases;
 * src/run/context.ts holds what every context has and init's, which the upgraded node is viewed as.
 */
import type { ResolvedUpgradeConfig } from '../../config/types.js';
import type { FlagValues } from '../../flags.js';
import type { KubeApi } from '../../kube/types.js';
import type { PatchCache } from '../../patches/run.js';
import type { BaseCtx, InitCtx } from '../../run/context.js';
import type { UpgradeClusterView } from '../../upgrade-plan/cluster-view.js';
import type { UpgradeDeps } from './deps.js';

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
