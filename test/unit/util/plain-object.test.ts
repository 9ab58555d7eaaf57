import { isPlainObject } from '../../../src/util/plain-object.js';
import { loadYaml } from '../../../src/yaml/read.js';

describe('isPlainObject', () => {
  test('a YAML or JSON mapping is one; null, arrays, scalars are not', () => {
    expect(isPlainObject(JSON.parse('{"a":1}'))).toBe(true);
    expect(isPlainObject(loadYaml('a: 1\n'))).toBe(true);
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(JSON.parse('null'))).toBe(false);
    expect(isPlainObject(loadYaml('- a\n'))).toBe(false);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject('a: 1')).toBe(false);
    expect(isPlainObject(1)).toBe(false);
    expect(isPlainObject(undefined)).toBe(false);
  });
});
