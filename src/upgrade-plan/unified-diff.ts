/**
 * The unified diff `kubeadm upgrade diff` prints, pure: a port of github.com/pmezard/go-difflib
 * (SplitLines, SequenceMatcher with autojunk, GetGroupedOpCodes, WriteUnifiedDiff), itself
 * Python's difflib. A general diff library (jsdiff, Myers' algorithm) finds other hunks for the
 * same inputs, so this follows kubeadm's algorithm instead, to print what kubeadm prints.
 */

interface Match {
  readonly a: number;
  readonly b: number;
  readonly size: number;
}

type Tag = 'r' | 'd' | 'i' | 'e';

interface OpCode {
  readonly tag: Tag;
  readonly i1: number;
  readonly i2: number;
  readonly j1: number;
  readonly j2: number;
}

/** go-difflib's SplitLines: split after each "\n", and the last piece gets a "\n" too. */
export function splitLines(s: string): string[] {
  const lines = s === '' ? [] : s.split(/(?<=\n)/);
  if (s === '' || s.endsWith('\n')) lines.push('');
  lines[lines.length - 1] += '\n';
  return lines;
}

class SequenceMatcher {
  private readonly b2j = new Map<string, number[]>();
  private matchingBlocks?: Match[];

  constructor(private readonly a: readonly string[], private readonly b: readonly string[]) {
    b.forEach((line, i) => {
      const at = this.b2j.get(line);
      if (at) at.push(i);
      else this.b2j.set(line, [i]);
    });
    // autojunk: in a long b, lines in more than 1% of it are "popular" and not indexed.
    if (b.length >= 200) {
      const ntest = Math.floor(b.length / 100) + 1;
      for (const [line, at] of [...this.b2j]) if (at.length > ntest) this.b2j.delete(line);
    }
  }

  private findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): Match {
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of this.b2j.get(this.a[i] as string) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
      j2len = next;
    }
    // No line is junk (kubeadm passes no IsJunk), so popular lines extend a match on both sides.
    while (besti > alo && bestj > blo && this.a[besti - 1] === this.b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && this.a[besti + bestsize] === this.b[bestj + bestsize]) bestsize++;
    return { a: besti, b: bestj, size: bestsize };
  }

  getMatchingBlocks(): Match[] {
    if (this.matchingBlocks) return this.matchingBlocks;
    const matched: Match[] = [];
    const matchBlocks = (alo: number, ahi: number, blo: number, bhi: number): void => {
      const m = this.findLongestMatch(alo, ahi, blo, bhi);
      if (m.size === 0) return;
      if (alo < m.a && blo < m.b) matchBlocks(alo, m.a, blo, m.b);
      matched.push(m);
      if (m.a + m.size < ahi && m.b + m.size < bhi) matchBlocks(m.a + m.size, ahi, m.b + m.size, bhi);
    };
    matchBlocks(0, this.a.length, 0, this.b.length);
    // Merge adjacent blocks.
    const out: Match[] = [];
    let cur: Match = { a: 0, b: 0, size: 0 };
    for (const m of matched) {
      if (cur.a + cur.size === m.a && cur.b + cur.size === m.b) {
        cur = { ...cur, size: cur.size + m.size };
      } else {
        if (cur.size > 0) out.push(cur);
        cur = m;
      }
    }
    if (cur.size > 0) out.push(cur);
    out.push({ a: this.a.length, b: this.b.length, size: 0 });
    this.matchingBlocks = out;
    return out;
  }

  getOpCodes(): OpCode[] {
    const codes: OpCode[] = [];
    let i = 0;
    let j = 0;
    for (const m of this.getMatchingBlocks()) {
      const tag: Tag | undefined = i < m.a && j < m.b ? 'r' : i < m.a ? 'd' : j < m.b ? 'i' : undefined;
      if (tag) codes.push({ tag, i1: i, i2: m.a, j1: j, j2: m.b });
      i = m.a + m.size;
      j = m.b + m.size;
      if (m.size > 0) codes.push({ tag: 'e', i1: m.a, i2: i, j1: m.b, j2: j });
    }
    return codes;
  }

  /** Hunks with `n` lines of context (go-difflib GetGroupedOpCodes; n < 0 means 3). */
  getGroupedOpCodes(context: number): OpCode[][] {
    const n = context < 0 ? 3 : context;
    const codes = this.getOpCodes();
    if (codes.length === 0) codes.push({ tag: 'e', i1: 0, i2: 1, j1: 0, j2: 1 });
    const first = codes[0] as OpCode;
    if (first.tag === 'e') codes[0] = { ...first, i1: Math.max(first.i1, first.i2 - n), j1: Math.max(first.j1, first.j2 - n) };
    const last = codes[codes.length - 1] as OpCode;
    if (last.tag === 'e') codes[codes.length - 1] = { ...last, i2: Math.min(last.i2, last.i1 + n), j2: Math.min(last.j2, last.j1 + n) };
    const groups: OpCode[][] = [];
    let group: OpCode[] = [];
    for (const c of codes) {
      let { i1, j1 } = c;
      if (c.tag === 'e' && c.i2 - c.i1 > 2 * n) {
        group.push({ tag: 'e', i1, i2: Math.min(c.i2, i1 + n), j1, j2: Math.min(c.j2, j1 + n) });
        groups.push(group);
        group = [];
        i1 = Math.max(i1, c.i2 - n);
        j1 = Math.max(j1, c.j2 - n);
      }
      group.push({ tag: c.tag, i1, i2: c.i2, j1, j2: c.j2 });
    }
    if (group.length > 0 && !(group.length === 1 && group[0]?.tag === 'e')) groups.push(group);
    return groups;
  }
}

/** go-difflib's formatRangeUnified. */
function formatRange(start: number, stop: number): string {
  const length = stop - start;
  const beginning = start + 1;
  if (length === 1) return String(beginning);
  return `${length === 0 ? beginning - 1 : beginning},${length}`;
}

export interface UnifiedDiffInput {
  readonly a: string;
  readonly b: string;
  readonly fromFile: string;
  readonly toFile: string;
  readonly context: number;
}

/** go-difflib's WriteUnifiedDiff of SplitLines(a) and SplitLines(b); "" when they are equal. */
export function unifiedDiff(input: UnifiedDiffInput): string {
  const a = splitLines(input.a);
  const b = splitLines(input.b);
  let out = '';
  const groups = new SequenceMatcher(a, b).getGroupedOpCodes(input.context);
  for (const [index, g] of groups.entries()) {
    if (index === 0 && (input.fromFile !== '' || input.toFile !== '')) out += `--- ${input.fromFile}\n+++ ${input.toFile}\n`;
    const first = g[0] as OpCode;
    const last = g[g.length - 1] as OpCode;
    out += `@@ -${formatRange(first.i1, last.i2)} +${formatRange(first.j1, last.j2)} @@\n`;
    for (const c of g) {
      if (c.tag === 'e') {
        out += a.slice(c.i1, c.i2).map((l) => ` ${l}`).join('');
        continue;
      }
      if (c.tag === 'r' || c.tag === 'd') out += a.slice(c.i1, c.i2).map((l) => `-${l}`).join('');
      if (c.tag === 'r' || c.tag === 'i') out += b.slice(c.j1, c.j2).map((l) => `+${l}`).join('');
    }
  }
  return out;
}
