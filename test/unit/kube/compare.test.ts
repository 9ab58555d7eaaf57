import { comparableView, isSubset, mergePatch } from '../../../src/kube/compare.js';

describe('isSubset (is the live object already what tsadm would write?)', () => {
  test.each([
    ['equal scalars', { a: 1 }, { a: 1 }, true],
    ['server-added fields are ignored', { a: 1 }, { a: 1, b: 2, status: {} }, true],
    ['a different value differs', { a: 1 }, { a: 2 }, false],
    ['a missing field differs', { a: 1 }, {}, false],
    ['empty desired values match absent ones', { a: [], b: {}, c: '', d: undefined }, {}, true],
    ['arrays compare element-wise with defaults allowed', { p: [{ port: 53 }] }, { p: [{ port: 53, protocol: 'TCP' }] }, true],
    ['an extra live array item is a difference', { p: [{ port: 53 }] }, { p: [{ port: 53 }, { port: 54 }] }, false],
    ['an order change is a difference', { v: ['a', 'b'] }, { v: ['b', 'a'] }, false],
    ['false is not empty', { readOnly: false }, {}, false],
    ['nested maps', { m: { labels: { x: '1' } } }, { m: { labels: { x: '1', y: '2' } } }, true],
  ])('%s', (_name, desired, actual, expected) => {
    expect(isSubset(desired, actual)).toBe(expected);
  });

  test('comparableView drops server-owned metadata', () => {
    const view = comparableView({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', resourceVersion: '5', uid: 'u' }, data: { a: 'b' } });
    expect(view).toEqual({ metadata: { name: 'x' }, data: { a: 'b' } });
  });
});

describe('mergePatch', () => {
  test('only changed keys, removals as null, arrays replaced whole', () => {
    const before = { metadata: { labels: { a: '1', b: '2' }, annotations: {} }, spec: { taints: [{ key: 'x', effect: 'NoSchedule' }] } };
    const after = { metadata: { labels: { a: '1', c: '3' }, annotations: {} }, spec: { taints: [{ key: 'y', effect: 'NoSchedule' }, { key: 'x', effect: 'NoSchedule' }] } };
    expect(mergePatch(before, after)).toEqual({
      metadata: { labels: { b: null, c: '3' } },
      spec: { taints: [{ key: 'y', effect: 'NoSchedule' }, { key: 'x', effect: 'NoSchedule' }] },
    });
  });

  test('no change → empty patch', () => {
    expect(mergePatch({ a: { b: [1] } }, { a: { b: [1] } })).toEqual({});
  });
});
