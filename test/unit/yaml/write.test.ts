import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import type { JsonValue } from '../../../src/json.js';
import { toKubeYaml, toKubeYamlDocuments } from '../../../src/yaml/write.js';

const MANIFESTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/manifests');
const GOLDEN_DIR = path.join(MANIFESTS, 'v1.20.2');
const ORACLE = path.join(MANIFESTS, 'yaml-v2/cases.json');

describe('toKubeYaml', () => {
  const cases = JSON.parse(readFileSync(ORACLE, 'utf8')) as Array<{ input: JsonValue; yaml: string }>;

  test.each(cases.map((c, i) => [i, JSON.stringify(c.input).slice(0, 60), c]))(
    'yaml.v2 oracle case %i: %s',
    (_i, _label, c) => {
      expect(toKubeYaml(c.input)).toBe(c.yaml);
    },
  );

  test('every golden file written by kubeadm survives parse → toKubeYaml unchanged', () => {
    for (const scenario of readdirSync(GOLDEN_DIR)) {
      for (const file of readdirSync(path.join(GOLDEN_DIR, scenario)).filter((f) => f.endsWith('.yaml'))) {
        const text = readFileSync(path.join(GOLDEN_DIR, scenario, file), 'utf8');
        expect(`${scenario}/${file}\n${toKubeYaml(yaml.load(text) as JsonValue)}`).toBe(`${scenario}/${file}\n${text}`);
      }
    }
  });

  test('past column 80 a space folds the line, but a single-quoted scalar never folds at its first or last character', () => {
    // yaml.v2's write_single_quoted_scalar breaks only where `i > 0 && i < len(value)-1`;
    // write_plain_scalar has no such bound (emitterc.go). A long key puts the value past column 80.
    const key = 'k'.repeat(85);
    const write = (value: string) => toKubeYaml({ [key]: value }).slice(key.length);
    expect(write(' x')).toBe(": ' x'\n");
    expect(write('x ')).toBe(": 'x '\n");
    expect(write(' x y')).toBe(": ' x\n  y'\n");
    expect(write('x y')).toBe(': x\n  y\n');
    expect(write(" x'y z")).toBe(": ' x''y\n  z'\n");
  });

  test('undefined members vanish as after Go\'s json.Marshal with omitempty; null stays', () => {
    expect(toKubeYaml({ b: undefined, a: { c: undefined, d: null }, e: [1, 'x'] })).toBe('a:\n  d: null\ne:\n- 1\n- x\n');
  });

  test('several documents are joined by "---" lines, each ending in a newline', () => {
    expect(toKubeYamlDocuments([{ kind: 'A' }, { kind: 'B', list: [] }])).toBe('kind: A\n---\nkind: B\nlist: []\n');
    expect(toKubeYamlDocuments([])).toBe('');
  });
});
