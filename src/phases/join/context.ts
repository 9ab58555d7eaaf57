/**
 * The context of the join phases (kubeadm's joinData): the seams, join's configuration and what
 * the phases of one run share. It lives with join's phases; src/run/context.ts holds what every
 * workflow's context has (BaseCtx) and init's, which join's control-plane steps view this node as.
 */
import type { ResolvedJoinConfig } from '../../config/types.js';
import type { JoinDiscovery } from '../../discovery/discover.js';
import type { FlagValues } from '../../flags.js';
import type { KubeApi } from '../../kube/types.js';
import type { PatchCache } from '../../patches/run.js';
import type { BaseCtx, InitCtx } from '../../run/context.js';
import type { JoinClusterConfig } from '../../stored-config/cluster-config.js';
import type { JoinDeps } from './deps.js';

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

export interface JoinCtx extends BaseCtx {
  readonly cfg: ResolvedJoinConfig;
  readonly flags: FlagValues;
  /** Discovery, API and etcd clients, machine facts (real, or test doubles). */
  readonly deps: JoinDeps;
  /** Discovery and the cluster's configuration, computed once per run (see phases/join/state.ts). */
  readonly state: JoinRunState;
}
