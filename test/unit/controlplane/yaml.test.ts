import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import type { JsonValue } from '../../../src/manifest/json.js';
import { compareKeys } from '../../../src/manifest/yaml-keys.js';
import { toKubeYaml } from '../../../src/manifest/yaml.js';
import { GOLDEN_DIR } from './scenarios.js';

const ORACLE = path.resolve(GOLDEN_DIR, '../yaml-v2/cases.json');

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

  test('key order: yaml.v2 numeric-aware order, non-letters before letters', () => {
    expect(['b', 'a10', 'a2', 'A', '_x', '1', 'a-b', 'ab'].sort(compareKeys)).toEqual(['_x', '1', 'A', 'a-b', 'a2', 'a10', 'ab', 'b']);
  });
});
