import { compareKeys } from '../../../src/yaml/key-order.js';

describe('compareKeys (yaml.v2 keyList.Less)', () => {
  test('key order: yaml.v2 numeric-aware order, non-letters before letters', () => {
    expect(['b', 'a10', 'a2', 'A', '_x', '1', 'a-b', 'ab'].sort(compareKeys)).toEqual(['_x', '1', 'A', 'a-b', 'a2', 'a10', 'ab', 'b']);
  });
});
