import type { Arg } from '../config/types.js';
import type { VersionProfile } from '../versions/table-types.js';

/**
 * How user extraArgs combine with kubeadm's defaults.
 * - 'map' (kubeadm ≤ 1.30, v1beta2/v1beta3 maps): one value per name; a user value replaces the
 *   default of that name; the result is sorted by name (util.BuildArgumentListFromMap).
 * - 'list' (kubeadm 1.31–1.35, v1beta4 lists): a user arg replaces *all* defaults of its name and
 *   may repeat; the result is sorted by (name, value) (util.ArgumentsToCommand).
 * - 'list-user-order' (kubeadm ≥ 1.36, PR #135400, and the 1.32–1.35 patches that carry its
 *   cherry-picks: src/versions/table.ts PATCH_CHANGES): as 'list', but only the remaining defaults
 *   are sorted by (name, value); the user's args follow them in the order the user wrote them
 *   (util.ArgumentsToCommand after that PR: "In the return list, base arguments will precede
 *   override arguments").
 */
export type ArgsMode = 'map' | 'list' | 'list-user-order';

/** The merge kubeadm of this minor uses for component flags (static pods and kubeadm-flags.env). */
export function argsModeOf(versions: Pick<VersionProfile, 'controlPlane'>): ArgsMode {
  const cp = versions.controlPlane;
  if (cp.extraArgsMode === 'map') return 'map';
  return cp.extraArgsKeepUserOrder ? 'list-user-order' : 'list';
}

export function buildArgs(defaults: readonly Arg[], overrides: readonly Arg[], mode: ArgsMode): string[] {
  const args = mode === 'map' ? mapMerge(defaults, overrides)
    : mode === 'list' ? listMerge(defaults, overrides)
      : userOrderMerge(defaults, overrides);
  return args.map((a) => `--${a.name}=${a.value}`);
}

function mapMerge(defaults: readonly Arg[], overrides: readonly Arg[]): Arg[] {
  const merged = new Map<string, string>();
  for (const a of [...defaults, ...overrides]) merged.set(a.name, a.value);
  return [...merged.entries()].sort(([a], [b]) => byteCompare(a, b)).map(([name, value]) => ({ name, value }));
}

function listMerge(defaults: readonly Arg[], overrides: readonly Arg[]): Arg[] {
  const overridden = new Set(overrides.map((a) => a.name));
  const args = [...overrides, ...defaults.filter((a) => !overridden.has(a.name))];
  return args.sort((a, b) => byteCompare(a.name, b.name) || byteCompare(a.value, b.value));
}

function userOrderMerge(defaults: readonly Arg[], overrides: readonly Arg[]): Arg[] {
  const overridden = new Set(overrides.map((a) => a.name));
  const base = defaults.filter((a) => !overridden.has(a.name)).sort((a, b) => byteCompare(a.name, b.name) || byteCompare(a.value, b.value));
  return [...base, ...overrides];
}

/** The value of the last arg with this name (what a map holds), if any. */
export function argValue(args: readonly Arg[], name: string): string | undefined {
  let value: string | undefined;
  for (const a of args) if (a.name === name) value = a.value;
  return value;
}

/** Go compares strings bytewise; for UTF-16 this matches except around surrogates, so compare bytes. */
function byteCompare(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
