/**
 * The testing layout rule of docs/architecture.md, enforced: the test of src/a/b.ts is
 * test/unit/a/b.test.ts (or b.<aspect>.test.ts when one module has several test files), so every
 * unit test file names the source module it tests. Tests that belong to no single module go to
 * test/integration.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UNIT = path.join(REPO, 'test', 'unit');

/** Files still waiting for their move, each with the reason. */
const NOT_YET_MIRRORED: Readonly<Record<string, string>> = {};

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(full);
    return e.name.endsWith('.test.ts') ? [path.relative(UNIT, full)] : [];
  });
}

/** "a/b.aspect.test.ts" → "src/a/b.ts". */
function moduleOf(testFile: string): string {
  const dir = path.dirname(testFile);
  const base = path.basename(testFile, '.test.ts').split('.')[0] as string;
  return path.join('src', dir, `${base}.ts`);
}

test('every unit test file mirrors the source module it tests', () => {
  const files = testFiles(UNIT);
  expect(files.length).toBeGreaterThan(50);
  const orphans = files.filter((f) => !(f in NOT_YET_MIRRORED) && !existsSync(path.join(REPO, moduleOf(f))));
  expect(orphans.map((f) => `test/unit/${f}: no ${moduleOf(f)}`)).toEqual([]);
});

test('the rule maps test paths onto module paths as documented', () => {
  expect(moduleOf('config/load.bad-inputs.test.ts')).toBe(path.join('src', 'config', 'load.ts'));
  expect(moduleOf('fast-path.test.ts')).toBe(path.join('src', 'fast-path.ts'));
  expect(moduleOf('phases/cluster/kubelet-finalize.test.ts')).toBe(path.join('src', 'phases', 'cluster', 'kubelet-finalize.ts'));
});

test('the allowance list names only files that exist and still need it', () => {
  for (const f of Object.keys(NOT_YET_MIRRORED)) {
    expect([f, existsSync(path.join(UNIT, f))]).toEqual([f, true]);
    expect([f, existsSync(path.join(REPO, moduleOf(f)))]).toEqual([f, false]);
  }
});
