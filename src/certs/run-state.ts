/**
 * State of one command run shared by the leaves of the certs and kubeconfig groups. It lives on
 * the run's context (InitCtx.state.pki), so it lasts exactly as long as the run.
 */
import { KeyPool } from './key-pool.js';

interface GroupRunState {
  /** Leaves of the group that have run so far. */
  readonly ran: string[];
  /** The group's one-time header line ("Using certificateDir folder …") was logged. */
  announced: boolean;
  /** Keys for the rest of the group were requested. */
  prefetched: boolean;
}

export interface PkiRunState {
  /** Keys generated ahead of need (see key-pool.ts). */
  readonly keys: KeyPool;
  readonly certs: GroupRunState;
  readonly kubeconfig: GroupRunState;
}

export function newPkiRunState(): PkiRunState {
  return { keys: new KeyPool(), certs: newGroupRunState(), kubeconfig: newGroupRunState() };
}

function newGroupRunState(): GroupRunState {
  return { ran: [], announced: false, prefetched: false };
}
