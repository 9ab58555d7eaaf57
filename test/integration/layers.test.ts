/**
 * The layers of docs/architecture.md ("Layers"), as `npm run lint:layers` checks them: the project's
 * .dependency-cruiser.mjs run by dependency-cruiser's own CLI against a probe tree in a temp directory
 * (one module in each layer, importing one layer up and one layer down) and against the tree itself.
 *
 * The oracle is the written order below, copied from docs/architecture.md, not read from the config:
 * a rule removed from the config, a layer merged into another or a boundary moved makes the probe's
 * upward imports pass and this test fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript without types (jest loads it outside the TypeScript transform)
import { boxOf as boxOfJs, cruise as cruiseJs, upwardImports as upwardImportsJs } from '../../scripts/upward-imports.mjs';

interface Module {
  readonly source: string;
  readonly dependencies: readonly { readonly resolved: string }[];
}
const boxOf = boxOfJs as (file: string) => string;
const cruiseModules = cruiseJs as () => Module[];
const upwardImports = upwardImportsJs as (modules: readonly Module[]) => { count: number; up: string[]; loops: string[][] };

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG = path.join(REPO, '.dependency-cruiser.mjs');
const DEPCRUISE = path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

/** docs/architecture.md, "Layers", bottom up: a sample of the modules each layer holds. */
const DOCUMENTED: readonly { layer: string; modules: readonly string[] }[] = [
  { layer: 'base', modules: ['src/errors.ts', 'src/constants.ts', 'src/version.ts', 'src/flags.ts', 'src/json.ts', 'src/duration.ts', 'src/yaml/p.ts', 'src/net/p.ts', 'src/log/p.ts', 'src/versions/p.ts'] },
  { layer: 'seams', modules: ['src/host/p.ts', 'src/kube/p.ts', 'src/etcd-client/p.ts', 'src/pki/p.ts'] },
  { layer: 'model', modules: ['src/config/p.ts', 'src/token/p.ts', 'src/manifest/p.ts', 'src/patches/p.ts', 'src/engine/p.ts', 'src/cli/p.ts'] },
  { layer: 'libraries', modules: ['src/run/p.ts', 'src/certs/p.ts', 'src/kubeconfig/p.ts', 'src/discovery/p.ts', 'src/stored-config/p.ts', 'src/etcd/p.ts', 'src/health/p.ts', 'src/plan/p.ts', 'src/verify/p.ts', 'src/upgrade-plan/p.ts', 'src/certs-lifecycle/p.ts', 'src/membership/p.ts', 'src/csr-approval/p.ts', 'src/etcd-snapshot/p.ts'] },
  { layer: 'phases', modules: ['src/phases/cluster/p.ts', 'src/phases/join/p.ts'] },
  { layer: 'workflows', modules: ['src/workflows/p.ts', 'src/resume/p.ts'] },
  { layer: 'commands', modules: ['src/commands/p.ts'] },
  { layer: 'app', modules: ['src/cli/app.ts'] },
  { layer: 'entry', modules: ['src/main.ts', 'src/entry.ts', 'src/fast-entry.ts', 'src/fast-path.ts'] },
];

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

function cruise(cwd: string): { status: number | null; violations: Violation[]; modules: number } {
  const r = spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  if (r.stdout === '') throw new Error(`depcruise printed nothing: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  return { status: r.status, violations: out.summary.violations, modules: out.summary.totalCruised };
}

const SCRIPTS = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** `npm run lint:layers` as package.json spells it, run in `cwd` (its exit status is what fails the lint). */
function lintLayers(cwd: string): { status: number | null; output: string } {
  const [bin, ...args] = (SCRIPTS['lint:layers'] ?? '').split(' ');
  expect(bin).toBe('depcruise');
  const r = spawnSync(process.execPath, [DEPCRUISE, ...args.map((a) => (a === '.dependency-cruiser.mjs' ? CONFIG : a))], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A relative ESM specifier from one probe module to another. */
function spec(from: string, to: string): string {
  const rel = path.relative(path.dirname(from), to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

describe('the layer rules of .dependency-cruiser.mjs', () => {
  let dir: string;
  const files = new Map<string, string[]>();
  const upward: string[] = [];
  const downward: string[] = [];
  const fromLibraries: string[] = [];
  let n = 0;
  /** One import line in a probe module, each binding its own name. */
  const add = (from: string, to: string, typeOnly = false) => {
    n += 1;
    const line = typeOnly ? `import type { T as T${n} } from '${spec(from, to)}';` : `import { v as v${n} } from '${spec(from, to)}';`;
    files.set(from, [...(files.get(from) ?? []), line]);
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-layers-'));
    DOCUMENTED.forEach(({ modules }, i) => {
      for (const m of modules) if (!files.has(m)) files.set(m, []);
      const next = DOCUMENTED[i + 1];
      if (next === undefined) return;
      // Every module imports every module of the layer above (a violation each) and every module
      // of the layer above imports it (allowed); half of the imports are type-only, which count too.
      modules.forEach((low, j) => {
        next.modules.forEach((high, k) => {
          const typeOnly = (j + k) % 2 === 0;
          add(low, high, typeOnly);
          upward.push(`${low} -> ${high}`);
          add(high, low);
          downward.push(`${high} -> ${low}`);
        });
      });
    });
    // Libraries reaching past the phases above them: into a workflow, init --resume, a command, the app.
    for (const low of ['src/certs/p.ts', 'src/stored-config/p.ts', 'src/upgrade-plan/p.ts', 'src/certs-lifecycle/p.ts']) {
      for (const high of ['src/workflows/p.ts', 'src/resume/p.ts', 'src/commands/p.ts', 'src/cli/app.ts']) {
        add(low, high, high.endsWith('app.ts'));
        fromLibraries.push(`${low} -> ${high}`);
      }
    }
    // A folder no layer names: imported from a phase, and importing one.
    add('src/phases/cluster/p.ts', 'src/newthing/p.ts');
    add('src/newthing/p.ts', 'src/errors.ts');
    for (const [file, lines] of files) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(dir, file), `${lines.join('\n')}\nexport const v = 1;\nexport type T = number;\n`);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let probed: ReturnType<typeof cruise> | undefined;
  const probe = () => (probed ??= cruise(dir));

  test('an import from a lower layer up to a higher one is an error, named by the lower layer', () => {
    const { status, violations } = probe();
    const layerOf = (m: string) => DOCUMENTED.find((l) => l.modules.includes(m))?.layer;
    const found = violations.filter((v) => v.rule.name !== 'layer-unassigned' && v.rule.name !== 'layer-unassigned-importer');
    expect(found.map((v) => `${v.from} -> ${v.to}`).sort()).toEqual([...upward, ...fromLibraries].sort());
    for (const v of found) expect([v.from, v.rule.name]).toEqual([v.from, `layer-${layerOf(v.from)}`]);
    expect(status).toBe(0); // the JSON reporter only reports; the `err` reporter of the lint script fails:
    const lint = lintLayers(dir);
    expect(lint.status).toBe(upward.length + fromLibraries.length + 2);
    expect(lint.output).toContain('error layer-base: src/errors.ts → src/host/p.ts');
    // The sample is not trivially small: every boundary is crossed.
    expect(upward.length).toBeGreaterThan(60);
    expect(downward.length).toBe(upward.length);
  }, 120_000);

  test('a library importing a workflow, a command or the app (past the phases) is an error of the libraries layer', () => {
    const { violations } = probe();
    const fromLibs = violations.filter((v) => fromLibraries.includes(`${v.from} -> ${v.to}`));
    expect(fromLibs.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort()).toEqual(fromLibraries.map((e) => `layer-libraries: ${e}`).sort());
    expect(fromLibraries).toHaveLength(16);
    const lint = lintLayers(dir).output;
    expect(lint).toContain('error layer-libraries: src/certs/p.ts → src/phases/join/p.ts');
    expect(lint).toContain('error layer-libraries: src/certs-lifecycle/p.ts → src/commands/p.ts');
  }, 120_000);

  test('a module in a folder no layer names is an error, both as importer and as imported', () => {
    const { violations } = probe();
    const unassigned = violations
      .filter((v) => v.rule.name.startsWith('layer-unassigned'))
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
      .sort();
    expect(unassigned).toEqual([
      'layer-unassigned-importer: src/newthing/p.ts -> src/errors.ts',
      'layer-unassigned: src/phases/cluster/p.ts -> src/newthing/p.ts',
    ]);
  }, 120_000);

  test('the tree itself keeps the layers: no violation', () => {
    const { status, violations, modules } = cruise(REPO);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
    expect(status).toBe(0);
    expect(modules).toBeGreaterThan(300);
    expect(lintLayers(REPO)).toEqual({ status: 0, output: expect.stringContaining('no dependency violations found') as unknown });
  }, 120_000);

  test('npm run lint runs the layer check', () => {
    expect(SCRIPTS.lint?.split(' && ')).toContain('npm run lint:layers');
    expect(SCRIPTS['lint:layers']).toContain('--config .dependency-cruiser.mjs');
  }, 120_000);
});

/** A module graph from "from -> to" lines of files. */
function graph(lines: readonly string[]): Module[] {
  const deps = new Map<string, { resolved: string }[]>();
  for (const l of lines) {
    const [from = '', to = ''] = l.split(' -> ');
    deps.set(from, [...(deps.get(from) ?? []), { resolved: to }]);
    if (!deps.has(to)) deps.set(to, []);
  }
  return [...deps].map(([source, dependencies]) => ({ source, dependencies }));
}

describe('upward imports between folders (scripts/upward-imports.mjs)', () => {
  test('a folder is a box; a file directly in src/ and src/cli/app.ts are boxes of their own', () => {
    expect(boxOf('src/phases/join/state.ts')).toBe('phases/join');
    expect(boxOf('src/certs/paths.ts')).toBe('certs');
    expect(boxOf('src/errors.ts')).toBe('errors.ts');
    expect(boxOf('src/cli/app.ts')).toBe('cli/app.ts');
    expect(boxOf('src/cli/help.ts')).toBe('cli');
  });

  test('the count is the fewest arrows that must point up over every order of the boxes', () => {
    // Imports inside a folder are not arrows; a chain has none.
    expect(upwardImports(graph(['src/a/x.ts -> src/a/y.ts', 'src/a/y.ts -> src/b/z.ts', 'src/b/z.ts -> src/c/w.ts'])).count).toBe(0);
    // Two folders importing each other: one arrow, however many imports it carries; the one
    // turned up is the one carrying fewer.
    const pair = upwardImports(graph(['src/a/x.ts -> src/b/y.ts', 'src/a/z.ts -> src/b/y.ts', 'src/b/y.ts -> src/a/w.ts']));
    expect(pair).toEqual({ count: 1, up: ['b -> a (1 import)'], loops: [['b', 'a']] }); // loops: each one's order, bottom up
    // A loop of three with a chord: turning the one closing arrow is enough.
    expect(upwardImports(graph(['src/a/x.ts -> src/b/x.ts', 'src/b/x.ts -> src/c/x.ts', 'src/c/x.ts -> src/a/x.ts', 'src/a/x.ts -> src/c/y.ts'])).count).toBe(1);
    // Three folders each importing both others: one arrow per pair, three in all.
    const all = ['a', 'b', 'c'].flatMap((x) => ['a', 'b', 'c'].filter((y) => y !== x).map((y) => `src/${x}/m.ts -> src/${y}/m.ts`));
    expect(upwardImports(graph(all)).count).toBe(3);
    // Two separate loops count separately.
    expect(upwardImports(graph(['src/a/m.ts -> src/b/m.ts', 'src/b/m.ts -> src/a/m.ts', 'src/c/m.ts -> src/d/m.ts', 'src/d/m.ts -> src/c/m.ts', 'src/c/m.ts -> src/a/m.ts'])).count).toBe(2);
  });

  test('the tree: at most 4, and only the two loops inside a layer that are known', () => {
    const { count, up } = upwardImports(cruiseModules());
    expect(count).toBeLessThanOrEqual(4);
    // host/journal.ts names the API objects the dry-run journal records (the journal sits beside
    // both dry-run seams); src/config's defaults and validation use token's format while
    // src/token's commands resolve configurations. Both loops stay inside one layer.
    expect(up.map((u) => u.replace(/ \(.*\)$/, ''))).toEqual(['config -> token', 'host -> kube']);
  }, 120_000);
});
