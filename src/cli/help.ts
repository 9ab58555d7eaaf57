import type { Phase } from '../engine/phase.js';

/** kubeadm's indented phase list (Runner.Help): parents by name, children as "/name". */
export function phaseHelpTree<C>(phases: readonly Phase<C>[]): string {
  const rows: Array<[string, string]> = [];
  const visit = (nodes: readonly Phase<C>[], level: number): void => {
    for (const p of nodes) {
      if (p.hidden) continue;
      const indent = '  '.repeat(level);
      rows.push([`${indent}${level > 0 ? '/' : ''}${p.name}`, p.summary]);
      visit(p.children ?? [], level + 1);
    }
  };
  visit(phases, 0);
  const width = Math.max(0, ...rows.map(([n]) => n.length)) + 2;
  return rows.map(([n, s]) => `${n.padEnd(width)}${s}`).join('\n');
}
