/**
 * docs/architecture.md, "How to add a Kubernetes minor", checked for every minor of
 * src/versions/minors.ts: each file the recipe names carries that minor, so a minor added to
 * SUPPORTED_MINORS without one of its entries fails here, naming the file. Entries the compiler
 * already demands (every `Record<SupportedMinor, …>`: DEFAULT_PATCH, kube-proxy's TYPES_OF_MINOR,
 * the etcd tags of table.per-minor.test.ts) are named in the recipe and checked by `npm run
 * typecheck`. Which golden files the golden tests compare is checked by those tests themselves
 * (table.test.ts, kubeadm-phases.test.ts).
 *
 * The facts checked here are presence only (a row, a heading, a table line naming the minor); what
 * each entry says is judged by the tests the recipe names, against kubeadm's own sources.
 *
 * Release day stays two edits of minors.ts (docs/decisions.md, decision 75): the steps a released
 * minor still lacks then (its golden facts need kubeadm's source at the tag) go into PENDING, one
 * line each, and each pending step is checked to be still missing, so a done step must leave the list.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import semver from 'semver';
import { KUBEADM_PHASES } from '../../../src/versions/kubeadm-phases.js';
import { DEFAULT_PATCH, NEWEST_MINOR, SUPPORTED_MINORS, type SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string): string => readFileSync(path.join(REPO, file), 'utf8');

const minorNo = (m: string): number => Number(m.split('.')[1]);
const RELEASED = SUPPORTED_MINORS.filter((m) => minorNo(m) <= minorNo(NEWEST_MINOR));
const PREVIEW = SUPPORTED_MINORS.filter((m) => minorNo(m) > minorNo(NEWEST_MINOR));
/** The minors Kubernetes itself supports: the three newest released ones. */
const CURRENT = RELEASED.slice(-3);
/** The minors with a section of their own in the research file (from 1.35, where it starts). */
const RESEARCHED = SUPPORTED_MINORS.filter((m) => minorNo(m) >= 35);

/** Whether a table cell's minors ("**1.37**", "1.20–1.34", "1.35, 1.36") include `minor`. */
function cellCovers(cell: string, minor: string): boolean {
  return cell.replace(/\*/g, '').split(',').some((part) => {
    const m = /^\s*(\d+\.\d+)(?:\s*[–-]\s*(\d+\.\d+))?/.exec(part);
    if (m === null) return false;
    const from = minorNo(m[1] as string);
    const to = minorNo(m[2] ?? (m[1] as string));
    return Number(m[1]?.split('.')[0]) === 1 && from <= minorNo(minor) && minorNo(minor) <= to;
  });
}

/** The first cells of the rows of the Markdown table right under the line that starts with `header`. */
function firstCells(file: string, header: string): string[] {
  const lines = read(file).split('\n');
  const at = lines.findIndex((l) => l.startsWith(header));
  if (at < 0) throw new Error(`${file}: no table headed "${header}"`);
  const rows: string[] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|')[1]?.trim() ?? '');
  }
  return rows;
}

/** Steps of the recipe a minor does not have yet, as "<minor>: <step>" (see the header). */
const PENDING: ReadonlySet<string> = new Set<string>([]);

/** A step of `minor` is done, or (listed in PENDING) still missing. */
function expectStep(minor: string, step: string, done: boolean): void {
  const pending = PENDING.has(`${minor}: ${step}`);
  expect({ minor, step, done }).toEqual({ minor, step, done: !pending });
}

test('PENDING names only minors of the table and steps this file checks', () => {
  const steps = ['golden facts', 'upgrade step', 'README default patch', 'phase catalog'];
  for (const entry of PENDING) {
    const [minor, step] = entry.split(': ');
    expect([entry, (SUPPORTED_MINORS as readonly string[]).includes(minor ?? '') && steps.includes(step ?? '')]).toEqual([entry, true]);
  }
});

/** The files this test reads; the recipe must name each of them. */
const CHECKED_FILES = [
  'src/versions/minors.ts',
  'src/versions/table.ts',
  'src/versions/kubeadm-phases.ts',
  'test/fixtures/versions/',
  'README.md',
  'docs/config.md',
  'docs/upgrade.md',
  'docs/kubernetes-1.35-1.38.md',
  'test/integration/upgrade-current-minors.test.ts',
];

describe('the list of minors (src/versions/minors.ts)', () => {
  test('runs from 1.20 without a gap, with at most one preview minor after NEWEST_MINOR', () => {
    expect(SUPPORTED_MINORS[0]).toBe('1.20');
    SUPPORTED_MINORS.forEach((m, i) => expect([m, minorNo(m)]).toEqual([m, 20 + i]));
    expect(RELEASED).toContain(NEWEST_MINOR);
    expect(PREVIEW.length).toBeLessThanOrEqual(1);
  });

  test.each(SUPPORTED_MINORS.map((m) => [m]))('%s: DEFAULT_PATCH is a version of it (a final release, or a pre-release for the preview)', (minor) => {
    const v = semver.parse(DEFAULT_PATCH[minor].replace(/^v/, ''));
    expect(v === null ? null : `${v.major}.${v.minor}`).toBe(minor);
    expect((v?.prerelease.length ?? 0) > 0).toBe(PREVIEW.includes(minor));
  });
});

describe.each(SUPPORTED_MINORS.map((m) => [m]))('%s', (minor: SupportedMinor) => {
  test('has its row in src/versions/table.ts (an entry of CHANGES)', () => {
    expect(VERSION_TABLE[minor]?.minor).toBe(minor);
  });

  test('README.md\'s "Kubernetes versions" table has a line for it, with its default patch when Kubernetes supports it', () => {
    const lines = read('README.md').split('\n');
    const at = lines.indexOf('## Kubernetes versions');
    const rows = lines.slice(at).filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| minor'));
    const row = rows.find((l) => cellCovers(l.split('|')[1] ?? '', minor));
    expect([minor, row !== undefined]).toEqual([minor, true]);
    if (CURRENT.includes(minor)) expectStep(minor, 'README default patch', row?.split('|')[3]?.trim() === DEFAULT_PATCH[minor]);
  });

  test('docs/config.md\'s table of the config API versions each target reads covers it', () => {
    expect(firstCells('docs/config.md', '| target | reads |').some((c) => cellCovers(c, minor))).toBe(true);
  });

  if (RESEARCHED.includes(minor)) {
    test('the research file has its section (docs/kubernetes-1.35-1.38.md)', () => {
      expect(read('docs/kubernetes-1.35-1.38.md')).toMatch(new RegExp(`^## v${minor.replace('.', '\\.')}\\b`, 'm'));
    });
  }

  if (CURRENT.includes(minor)) {
    test('has golden facts from kubeadm\'s own source (test/fixtures/versions/<minor>.yaml)', () => {
      const file = path.join(REPO, 'test/fixtures/versions', `${minor}.yaml`);
      expectStep(minor, 'golden facts', existsSync(file) && (yaml.load(readFileSync(file, 'utf8')) as { minor: unknown }).minor === minor);
    });

    test('is an upgrade step of docs/upgrade.md and of test/integration/upgrade-current-minors.test.ts', () => {
      const prev = `1.${minorNo(minor) - 1}`;
      expectStep(minor, 'upgrade step', firstCells('docs/upgrade.md', '| step |').includes(`${prev} → ${minor}`)
        && new RegExp(`to: 'v${minor.replace('.', '\\.')}\\.\\d+'`).test(read('test/integration/upgrade-current-minors.test.ts')));
    });
  }
});

test('src/versions/kubeadm-phases.ts: a phase kept in "every minor" names NEWEST_MINOR as the last minor compared', () => {
  const sources = Object.values(KUBEADM_PHASES).flat().map((f) => f.source);
  const ranges = sources.flatMap((s) => [...s.matchAll(/every minor 1\.20–(\d+\.\d+)/g)].map((m) => m[1]));
  expect(ranges.length).toBeGreaterThan(0);
  const text = read('src/versions/kubeadm-phases.ts');
  expectStep(NEWEST_MINOR, 'phase catalog', ranges.every((r) => r === NEWEST_MINOR)
    && !new RegExp(`every minor 1\\.20–(?!${NEWEST_MINOR.replace('.', '\\.')}\\b)`).test(text));
});

describe('the recipe (docs/architecture.md, "How to add a Kubernetes minor")', () => {
  const doc = read('docs/architecture.md');
  const start = doc.indexOf('### How to add a Kubernetes minor');
  const recipe = doc.slice(start, doc.indexOf('\n#', start + 1));
  const named = [...recipe.matchAll(/`((?:src|test|docs|scripts)\/[^`\s]*|README\.md|CHANGELOG\.md)`/g)].map((m) => m[1] as string);

  test('exists and names files', () => {
    expect(start).toBeGreaterThan(0);
    expect(named.length).toBeGreaterThan(10);
  });

  test('every file it names exists (of a name with <minor>, its directory)', () => {
    const missing = named.map((f) => (f.includes('<minor>') ? path.dirname(f) : f)).filter((f) => !existsSync(path.join(REPO, f)));
    expect(missing).toEqual([]);
  });

  test('it names every file this test checks', () => {
    expect(CHECKED_FILES.filter((f) => !named.some((n) => n === f || n.startsWith(f)))).toEqual([]);
  });

  test('the golden directory holds only minors of the table', () => {
    const minors = readdirSync(path.join(REPO, 'test/fixtures/versions')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
    expect(minors.filter((m) => !(SUPPORTED_MINORS as readonly string[]).includes(m))).toEqual([]);
  });
});
