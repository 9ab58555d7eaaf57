import type { FlagName } from '../flags.js';

/**
 * A phase is data: its name, help, the flags it reads, how to run it, its children. The CLI
 * (`tsadm init phase …`), --skip-phases, the help tree and the runner all come from one tree.
 */
export interface Phase<C> {
  /** kebab-case, unique among siblings. */
  readonly name: string;
  readonly aliases?: readonly string[];
  /** One line for the help tree. */
  readonly summary: string;
  readonly description?: string;
  readonly example?: string;
  /** Runs as part of the workflow but has no `phase` subcommand. */
  readonly hidden?: boolean;
  /**
   * Not a phase of the tool being reproduced (kubeadm) but this one's own: help lists it apart,
   * after the reference tree, marked as such; it runs, is selected and skipped like any other.
   */
  readonly own?: boolean;
  /**
   * The reference tool of the tree's version no longer has it: left out of the help tree and of
   * the listed `phase` subcommands, yet still run where it applies, and still accepted by
   * --skip-phases and `phase <name>` (a hidden subcommand) for the older versions that have it.
   */
  readonly retired?: boolean;
  /**
   * The reference tool of the tree's version does not have this phase yet, though the run still
   * does its step: naming it (`phase <name>`, --skip-phases) is refused with this one-line reason,
   * as the reference tool of that version refuses a phase name it does not know.
   */
  readonly unavailable?: string;
  /** Flags this phase reads (a parent's flags are the union of its children's). */
  readonly flags?: readonly FlagName[];
  /** Positional arguments of the phase command, e.g. "[api-server-endpoint]". */
  readonly positional?: string;
  /** Evaluated at run time; a returned string is the reason the phase is skipped. */
  skipIf?(ctx: C): string | undefined | Promise<string | undefined>;
  /** Leaves only. */
  run?(ctx: C): Promise<void>;
  /**
   * The phase's exit check: whether its result is in place on this node (certificates chain and
   * SANs, manifest present and pod running, objects present). Used by `tsadm check` and by
   * `init --resume` to trust a phase done earlier. A leaf without one (and without
   * `noExitCheck`) is checked by running it again as a dry run: it is in place when that would
   * change nothing (src/verify/exit-check.ts). `self` is where the phase sits in its tree.
   */
  verify?(ctx: C, self: PhaseAt<C>): Promise<readonly CheckFinding[]>;
  /**
   * Declared by a leaf that leaves nothing on the node to check, saying what `init --resume`
   * does with it: 'trusted-once-passed' — it only checks the machine (preflight), so a pass in
   * an earlier run stands; 'always-runs' — its point is what it does at run time (wait, print
   * the join command), so it runs again every time. `tsadm check` skips both.
   */
  readonly noExitCheck?: 'trusted-once-passed' | 'always-runs';
  readonly children?: readonly Phase<C>[];
}

/** One result of an exit check: what was checked, whether it holds, and why not. */
export interface CheckFinding {
  readonly check: string;
  readonly ok: boolean;
  readonly detail?: string;
  /** A warning does not fail the check (e.g. a certificate expiring soon). */
  readonly warning?: boolean;
}

/** A phase's path in the tree: "certs/apiserver". */
export type PhasePath = string;

/** A phase and its path in the tree. */
export interface PhaseAt<C> {
  readonly path: PhasePath;
  readonly phase: Phase<C>;
}

export interface FlatPhase<C> extends PhaseAt<C> {
  readonly parent: PhasePath | undefined;
  readonly level: number;
}

/** Depth-first, parents before children: the order phases run in. */
export function flatten<C>(tree: readonly Phase<C>[], parent?: FlatPhase<C>): FlatPhase<C>[] {
  const out: FlatPhase<C>[] = [];
  for (const phase of tree) {
    const path = parent ? `${parent.path}/${phase.name}` : phase.name;
    const flat: FlatPhase<C> = { path, phase, parent: parent?.path, level: parent ? parent.level + 1 : 0 };
    out.push(flat, ...flatten(phase.children ?? [], flat));
  }
  return out;
}

const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Construction-time invariants (kubeadm checks these only at run time, or not at all). */
export function validateTree<C>(tree: readonly Phase<C>[], knownFlags: ReadonlySet<string>): void {
  const problems: string[] = [];
  const visit = (nodes: readonly Phase<C>[], where: string): void => {
    const seen = new Set<string>();
    for (const p of nodes) {
      const path = where ? `${where}/${p.name}` : p.name;
      for (const n of [p.name, ...(p.aliases ?? [])]) {
        if (!KEBAB.test(n)) problems.push(`${path}: name "${n}" is not kebab-case`);
        if (seen.has(n)) problems.push(`${path}: duplicate name "${n}" among siblings`);
        seen.add(n);
      }
      if (p.name === 'all') problems.push(`${path}: "all" is generated, do not declare it`);
      const hasChildren = (p.children?.length ?? 0) > 0;
      if (hasChildren && p.run) problems.push(`${path}: has both run and children`);
      if (!hasChildren && !p.run) problems.push(`${path}: leaf without run`);
      if (p.verify && p.noExitCheck) problems.push(`${path}: has both verify and noExitCheck`);
      if (hasChildren && (p.verify || p.noExitCheck)) problems.push(`${path}: exit checks belong to leaves`);
      for (const f of p.flags ?? []) if (!knownFlags.has(f)) problems.push(`${path}: unknown flag "${f}"`);
      visit(p.children ?? [], path);
    }
  };
  visit(tree, '');
  if (problems.length > 0) throw new Error(`invalid phase tree:\n${problems.join('\n')}`);
}

/** Flags of a phase and all its descendants, in declaration order, without duplicates. */
export function flagsOf<C>(phase: Phase<C>): FlagName[] {
  const out = new Set<FlagName>(phase.flags ?? []);
  for (const child of phase.children ?? []) for (const f of flagsOf(child)) out.add(f);
  return [...out];
}

export function flagsOfTree<C>(tree: readonly Phase<C>[]): FlagName[] {
  const out = new Set<FlagName>();
  for (const p of tree) for (const f of flagsOf(p)) out.add(f);
  return [...out];
}
