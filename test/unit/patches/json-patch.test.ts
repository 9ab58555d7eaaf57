import { applyJsonPatch } from '../../../src/patches/json-patch.js';
import { fixturePod } from '../../helpers/pod-fixture.js';

describe('JSON patch', () => {
  test('operations in order, "-" appends, ~1 decodes to /', () => {
    const out = applyJsonPatch(fixturePod(), [
      { op: 'add', path: '/spec/containers/0/command/-', value: '--y=2' },
      { op: 'replace', path: '/metadata/labels/a', value: '2' },
      { op: 'add', path: '/metadata/labels/x~1y', value: 'z' },
      { op: 'test', path: '/metadata/name', value: 'x' },
    ]);
    expect(out).toMatchObject({ metadata: { labels: { a: '2', 'x/y': 'z' } }, spec: { containers: [{ command: ['run', '--x=1', '--y=2'] }] } });
  });

  test.each([
    [[{ op: 'remove', path: '/metadata/nope' }], /Unable to remove nonexistent key: nope/],
    [[{ op: 'add', path: '/nope/deeper/x', value: 1 }], /doc is missing path: "\/nope\/deeper\/x"/],
    [[{ op: 'test', path: '/metadata/name', value: 'y' }], /testing value \/metadata\/name failed/],
    [[{ op: 'add', path: '/spec/containers/0/command/9', value: 'x' }], /invalid index: 9/],
    [[{ op: 'frobnicate', path: '/a' }], /Unexpected kind: frobnicate/],
    [{ op: 'add' }, /must be a list of operations/],
  ])('%j fails: %s', (ops, message) => {
    expect(() => applyJsonPatch(fixturePod(), ops)).toThrow(message);
  });
});
