import { MAX_EXPANDED_SIZE, expansionProblem } from '../../../src/yaml/alias-limits.js';

describe('expansionProblem', () => {
  test('counts one per node plus the characters of strings and keys', () => {
    // {ab: ["xyz", 1, null]}: 1 (map) + 2 (key) + 1 (list) + 4 + 1 + 1 = 10
    const value = { ab: ['xyz', 1, null] };
    expect(expansionProblem(value, 10)).toBeUndefined();
    expect(expansionProblem(value, 9)).toMatch(/beyond 9 bytes/);
  });

  test('counts a shared object once per reference, as if each alias were written out', () => {
    const shared = ['0123456789'];
    // map 1, key 1, list 1, string 1 + 10
    expect(expansionProblem({ a: shared }, 14)).toBeUndefined();
    // map 1, then twice: key 1, list 1, string 11
    expect(expansionProblem({ a: shared, b: shared }, 27)).toBeUndefined();
    expect(expansionProblem({ a: shared, b: shared }, 26)).toMatch(/beyond 26 bytes/);
  });

  test('stops at the bound: sixty levels of doubling (2^60 nodes) are refused at once', () => {
    let level: unknown = 'lol';
    for (let i = 0; i < 60; i++) level = [level, level];
    const started = process.hrtime.bigint();
    expect(expansionProblem(level, MAX_EXPANDED_SIZE)).toBe(`YAML aliases expand this document beyond ${MAX_EXPANDED_SIZE} bytes (an alias bomb?); write the values out instead`);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2000);
  });

  test('refuses a value that contains itself, and accepts a shared value that does not', () => {
    const loop: Record<string, unknown> = {};
    loop.extraArgs = [loop];
    expect(expansionProblem({ controllerManager: loop }, MAX_EXPANDED_SIZE)).toBe('a YAML alias refers to a node that contains it (a recursive alias)');
    const leaf = { v: '2' };
    expect(expansionProblem({ a: leaf, b: [leaf, leaf] }, MAX_EXPANDED_SIZE)).toBeUndefined();
  });

  test('handles nesting far deeper than the call stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(expansionProblem(deep, MAX_EXPANDED_SIZE)).toBeUndefined();
  });
});
