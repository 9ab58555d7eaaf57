import type { Phase } from '../engine/phase.js';

// Short enough for yargs not to wrap them (it wraps the epilog at the help's width, 80 columns at least).
export const OWN_PHASES_HEADING = "tsadm's own phases, not kubeadm's:";
export const RETIRED_PHASES_HEADING = 'Dropped by kubeadm of this version, kept for older clusters:';

/** How a help tree is laid out: `width` is the help's width (yargs wraps longer lines to column 0). */
export interface TreeLayout {
  readonly width: number;
  /**
   * The workflow's own --help: one line per top-level phase, its summary cut to fit, and the
   * children's names packed below it; `<cmd> phase --help` lists every phase with its summary.
   */
  readonly compact?: boolean;
}

/** Wide enough for yargs' help never to wrap: tree rows fit in it, a summary or not. */
const UNWRAPPED: TreeLayout = { width: Number.MAX_SAFE_INTEGER };

/**
 * kubeadm's indented phase list (Runner.Help): parents by name, children as "/name". The
 * reference tree comes first, in kubeadm's order and exactly as kubeadm lists it; tsadm's own
 * phases (`own`) follow apart under a heading that marks them, then the phases kubeadm of the
 * tree's version dropped (`retired`), which are not part of that tree. A summary longer than the
 * line wraps under the summary column, never to column 0.
 */
export function phaseHelpTree<C>(phases: readonly Phase<C>[], layout: TreeLayout = UNWRAPPED): string {
  const rowsOf = (nodes: readonly Phase<C>[]): Row[] => {
    const rows: Row[] = [];
    const visit = (list: readonly Phase<C>[], level: number): void => {
      for (const p of list) {
        if (p.hidden || (level > 0 && p.retired)) continue;
        const children = (p.children ?? []).filter((c) => !c.hidden && !c.retired);
        if (layout.compact && level === 0) {
          rows.push({ name: p.name, summary: p.summary, children: children.map((c) => `/${c.name}`) });
          continue;
        }
        rows.push({ name: `${'  '.repeat(level)}${level > 0 ? '/' : ''}${p.name}`, summary: p.summary, children: [] });
        visit(p.children ?? [], level + 1);
      }
    };
    visit(nodes, 0);
    return rows;
  };
  const reference = rowsOf(phases.filter((p) => !p.own && !p.retired));
  const own = rowsOf(phases.filter((p) => p.own));
  const retired = rowsOf(phases.filter((p) => p.retired && !p.own));
  const column = Math.max(0, ...[...reference, ...own, ...retired].map((r) => r.name.length)) + 2;
  const render = (rows: Row[]): string => rows.flatMap((r) => renderRow(r, column, layout)).join('\n');
  return [
    render(reference),
    ...(own.length > 0 ? [`\n${OWN_PHASES_HEADING}\n${render(own)}`] : []),
    ...(retired.length > 0 ? [`\n${RETIRED_PHASES_HEADING}\n${render(retired)}`] : []),
  ].join('\n');
}

interface Row {
  readonly name: string;
  readonly summary: string;
  /** In the compact layout: the children's "/name"s, packed under the row. */
  readonly children: readonly string[];
}

function renderRow(row: Row, column: number, layout: TreeLayout): string[] {
  // One column short of the width: yargs (cliui) wraps a line that fills the width exactly.
  const room = Math.max(20, layout.width - 1 - column);
  const summary = layout.compact ? [cut(row.summary, room)] : wrapWords(row.summary, room);
  const lines = summary.map((text, i) => (i === 0 ? `${row.name.padEnd(column)}${text}` : `${' '.repeat(column)}${text}`));
  const indent = '  ';
  for (const text of wrapWords(row.children.join(' '), Math.max(20, layout.width - 1 - indent.length))) if (text) lines.push(`${indent}${text}`);
  return lines;
}

/** Words packed into lines of at most `room` characters (a longer word gets a line of its own). */
export function wrapWords(text: string, room: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.length > 0 ? lines : [''];
}

/** A summary cut at a word to fit `room`, marked "…" (the whole of it is in `<cmd> phase --help`). */
export function cut(text: string, room: number): string {
  if (text.length <= room) return text;
  const words = wrapWords(text, room - 1)[0] ?? '';
  return `${words.replace(/[,;:.]$/, '')}…`;
}

/** The line under a workflow's help tree saying whose tree it is: kubeadm's of `minor`, and why that one. */
export function helpTreeNote(minor: string, why: string): string {
  return `(The phases of kubeadm v${minor}, tsadm's default and newest minor: ${why})`;
}
