import { TsadmError } from '../errors.js';
import type { FlatPhase, Phase, PhasePath } from './phase.js';
import { flatten } from './phase.js';

/**
 * Which phases run (kubeadm's computePhaseRunFlags): a filter enables a path and its
 * descendants, a skip disables a path and its descendants, skip wins, unknown names are errors,
 * and so is a name of a phase marked `unavailable` (or below one).
 * Both "certs/apiserver" and "certs apiserver" spellings, and aliases, are accepted.
 */
export function computeSelection<C>(
  tree: readonly Phase<C>[],
  filter: readonly string[],
  skip: readonly string[],
  /** For a name the tree does not have: the one-line reason, when the workflow knows one (the phase is another version's). */
  absent?: (path: string) => string | undefined,
): Map<PhasePath, boolean> {
  const flat = flatten(tree);
  const canonical = aliasIndex(flat);
  const resolve = (name: string, what: string): PhasePath => {
    const key = normalizePath(name);
    const path = canonical.get(key);
    const reason = path === undefined ? absent?.(key) : undefined;
    if (reason !== undefined) throw new TsadmError('E_USAGE', `${what} "${name}": ${reason}`);
    if (!path) {
      throw new TsadmError('E_USAGE', `${what} "${name}" is not a phase of this command`, {
        hint: `valid phases: ${flat.map((f) => f.path).join(', ')}`,
      });
    }
    const unavailable = flat.find((f) => f.phase.unavailable !== undefined && (path === f.path || path.startsWith(`${f.path}/`)));
    if (unavailable) throw new TsadmError('E_USAGE', `${what} "${name}": ${unavailable.phase.unavailable}`);
    return path;
  };
  const filters = filter.map((f) => resolve(f, 'phase'));
  const skips = skip.map((s) => resolve(s, '--skip-phases entry'));
  const within = (path: PhasePath, root: PhasePath): boolean => path === root || path.startsWith(`${root}/`);
  const result = new Map<PhasePath, boolean>();
  for (const f of flat) {
    const enabled = filters.length === 0 || filters.some((root) => within(f.path, root) || within(root, f.path));
    result.set(f.path, enabled && !skips.some((root) => within(f.path, root)));
  }
  return result;
}

/** "certs apiserver", "/certs/apiserver/" → "certs/apiserver". */
export function normalizePath(input: string): string {
  return input.trim().split(/[\s/]+/).filter(Boolean).join('/');
}

/** Maps every spelling (name and aliases at each level) to the canonical path. */
function aliasIndex<C>(flat: readonly FlatPhase<C>[]): Map<string, PhasePath> {
  const spellings = new Map<PhasePath, string[]>();
  const out = new Map<string, PhasePath>();
  for (const f of flat) {
    const names = [f.phase.name, ...(f.phase.aliases ?? [])];
    const parents = f.parent ? spellings.get(f.parent) ?? [f.parent] : [''];
    const mine = parents.flatMap((p) => names.map((n) => (p ? `${p}/${n}` : n)));
    spellings.set(f.path, mine);
    for (const s of mine) out.set(s, f.path);
  }
  return out;
}
