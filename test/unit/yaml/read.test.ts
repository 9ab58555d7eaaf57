import * as yaml from 'js-yaml';
import { YamlLimitError, loadYaml, loadYamlAll } from '../../../src/yaml/read.js';

/** A "billion laughs": nine levels of nine aliases each (9^9 ≈ 387 M strings when expanded), 80 aliases in all. */
function aliasBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const cur = String.fromCharCode(97 + i);
    lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('loadYaml / loadYamlAll: one reader, one set of bounds', () => {
  test('ordinary documents load as js-yaml loads them (schema passed through)', () => {
    expect(loadYaml('a: 1\nb: [x, y]\n')).toEqual({ a: 1, b: ['x', 'y'] });
    expect(loadYamlAll('a: 1\n---\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
    // The JSON schema keeps "yes" a string, as the caller asked.
    expect(loadYaml('v: yes\n', { schema: yaml.JSON_SCHEMA })).toEqual({ v: 'yes' });
    // A few aliases that expand to little are fine (kubeadm's reader accepts them).
    expect(loadYaml('x: &x {v: 1}\ny: *x\n')).toEqual({ x: { v: 1 }, y: { v: 1 } });
  });

  test('an alias bomb under the alias count is refused by its expanded size, at once', () => {
    const text = aliasBomb();
    // The bomb itself is valid YAML that plain js-yaml accepts (the oracle: without the bound it loads).
    expect(() => yaml.load(text)).not.toThrow();
    const started = Date.now();
    expect(() => loadYaml(text)).toThrow(YamlLimitError);
    expect(() => loadYamlAll(text)).toThrow(/expand this document beyond 1048576 bytes/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('more than 100 aliases are refused, with the position', () => {
    const text = `a: &a x\nb: [${Array(101).fill('*a').join(',')}]\n`;
    let caught: unknown;
    try {
      loadYaml(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(YamlLimitError);
    expect((caught as YamlLimitError).message).toBe('the document has more than 100 YAML aliases; write the values out instead of referring to anchors');
    expect((caught as YamlLimitError).mark?.line).toBe(1);
  });

  test('a text over 1 MiB is refused before parsing', () => {
    const text = `a: "${'x'.repeat(1024 * 1024)}"\n`;
    expect(() => loadYaml(text)).toThrow('the YAML is larger than 1 MiB; refusing to parse it');
    expect(() => loadYamlAll(text)).toThrow(YamlLimitError);
  });

  test('syntax errors stay js-yaml errors', () => {
    expect(() => loadYaml('a: [1, 2\n')).toThrow(yaml.YAMLException);
  });
});
