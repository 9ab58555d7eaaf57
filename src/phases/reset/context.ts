/**
 * The context of the reset phases: the seams, reset's configuration and what the phases of one
 * run share. It lives with reset's phases; src/run/context.ts holds what every context has.
 */
import type { ResolvedResetConfig } from '../../config/types.js';
import type { FlagValues } from '../../flags.js';
import type { KubeApi } from '../../kube/types.js';
import type { BaseCtx } from '../../run/context.js';
import type { ResetDeps } from './deps.js';
import type { LocalEtcdMember } from './etcd-manifest.js';

/** What the reset phases of one run share, read once (src/phases/reset/state.ts). */
export interface ResetRunState {
  etcd?: Promise<LocalEtcdMember | undefined>;
  adminApi?: Promise<KubeApi | undefined>;
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
