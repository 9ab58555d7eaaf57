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

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG = path.join(REPO, '.dependency-cruiser.mjs');
const DEPCRUISE = path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

/** docs/architecture.md, "Layers", bottom up: a sample of the modules each layer holds. */
const DOCUMENTED: readonly { layer: string; modules: readonly string[] }[] = [
  { layer: 'base', modules: ['src/errors.ts', 'src/constants.ts', 'src/version.ts', 'src/flags.ts', 'src/json.ts', 'src/duration.ts', 'src/yaml/p.ts', 'src/net/p.ts', 'src/log/p.ts', 'src/versions/p.ts'] },
  { layer: 'seams', modules: ['src/host/p.ts', 'src/kube/p.ts', 'src/etcd-client/p.ts', 'src/pki/p.ts'] },
  { layer: 'model', modules: ['src/config/p.ts', 'src/token/p.ts', 'src/manifest/p.ts', 'src/patches/p.ts', 'src/engine/p.ts', 'src/cli/p.ts'] },
  { layer: 'libraries', modules: ['src/certs/p.ts', 'src/kubeconfig/p.ts', 'src/discovery/p.ts'] },
  { layer: 'phases', modules: ['src/run/p.ts', 'src/phases/cluster/p.ts', 'src/verify/p.ts', 'src/plan/p.ts', 'src/resume/p.ts', 'src/upgrade/p.ts', 'src/certs-lifecycle/p.ts', 'src/membership/p.ts', 'src/csr-approval/p.ts', 'src/etcd-snapshot/p.ts'] },
  { layer: 'workflows', modules: ['src/workflows/p.ts'] },
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
    expect(found.map((v) => `${v.from} -> ${v.to}`).sort()).toEqual([...upward].sort());
    for (const v of found) expect([v.from, v.rule.name]).toEqual([v.from, `layer-${layerOf(v.from)}`]);
    expect(status).toBe(0); // the JSON reporter only reports; the `err` reporter of the lint script fails:
    const lint = lintLayers(dir);
    expect(lint.status).toBe(upward.length + 2);
    expect(lint.output).toContain('error layer-base: src/errors.ts → src/host/p.ts');
    // The sample is not trivially small: every boundary is crossed.
    expect(upward.length).toBeGreaterThan(60);
    expect(downward.length).toBe(upward.length);
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
