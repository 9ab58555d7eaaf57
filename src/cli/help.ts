import type { Phase } from '../engine/phase.js';

// Short enough for yargs not to wrap them (it wraps the epilog at 80 columns).
export const OWN_PHASES_HEADING = "tsadm's own phases, not kubeadm's:";
export const RETIRED_PHASES_HEADING = 'Dropped by kubeadm of this version, kept for older clusters:';

/**
 * kubeadm's indented phase list (Runner.Help): parents by name, children as "/name". The
 * reference tree comes first, in kubeadm's order and exactly as kubeadm lists it; tsadm's own
 * phases (`own`) follow apart under a heading that marks them, then the phases kubeadm of the
 * tree's version dropped (`retired`), which are not part of that tree.
 */
export function phaseHelpTree<C>(phases: readonly Phase<C>[]): string {
  const rowsOf = (nodes: readonly Phase<C>[]): Array<[string, string]> => {
    const rows: Array<[string, string]> = [];
    const visit = (list: readonly Phase<C>[], level: number): void => {
      for (const p of list) {
        if (p.hidden || (level > 0 && p.retired)) continue;
        rows.push([`${'  '.repeat(level)}${level > 0 ? '/' : ''}${p.name}`, p.summary]);
        visit(p.children ?? [], level + 1);
      }
    };
    visit(nodes, 0);
    return rows;
  };
  const reference = rowsOf(phases.filter((p) => !p.own && !p.retired));
  const own = rowsOf(phases.filter((p) => p.own));
  const retired = rowsOf(phases.filter((p) => p.retired && !p.own));
  const width = Math.max(0, ...[...reference, ...own, ...retired].map(([n]) => n.length)) + 2;
  const render = (rows: Array<[string, string]>): string => rows.map(([n, s]) => `${n.padEnd(width)}${s}`).join('\n');
  return [
    render(reference),
    ...(own.length > 0 ? [`\n${OWN_PHASES_HEADING}\n${render(own)}`] : []),
    ...(retired.length > 0 ? [`\n${RETIRED_PHASES_HEADING}\n${render(retired)}`] : []),
  ].join('\n');
}

/** The line under a workflow's help tree saying whose tree it is: kubeadm's of `minor`, and why that one. */
export function helpTreeNote(minor: string, why: string): string {
  return `(The phases of kubeadm v${minor}, tsadm's default and newest minor: ${why})`;
}
