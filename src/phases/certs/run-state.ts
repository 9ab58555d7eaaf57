/**
 * State of one command run shared by the leaves of a phase group (certs, kubeconfig), kept
 * outside the context so the context stays a plain value: keyed by the context object, it
 * lives exactly as long as the run.
 */
import { KeyPool } from './key-pool.js';

export interface GroupRunState {
  /** Leaves of the group that have run so far. */
  readonly ran: string[];
  /** The group's one-time header line ("Using certificateDir folder …") was logged. */
  announced: boolean;
  /** Keys for the rest of the group were requested. */
  prefetched: boolean;
}

interface RunState {
  readonly pool: KeyPool;
  readonly groups: Map<string, GroupRunState>;
}

const runs = new WeakMap<object, RunState>();

function stateOf(ctx: object): RunState {
  let state = runs.get(ctx);
  if (!state) {
    state = { pool: new KeyPool(), groups: new Map() };
    runs.set(ctx, state);
  }
  return state;
}

export function keyPoolFor(ctx: object): KeyPool {
  return stateOf(ctx).pool;
}

export function groupStateFor(ctx: object, group: string): GroupRunState {
  const groups = stateOf(ctx).groups;
  let state = groups.get(group);
  if (!state) {
    state = { ran: [], announced: false, prefetched: false };
    groups.set(group, state);
  }
  return state;
}
