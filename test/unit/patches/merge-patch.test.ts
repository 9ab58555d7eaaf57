import { applyMergePatch } from '../../../src/patches/merge-patch.js';
import { fixturePod } from '../../helpers/pod-fixture.js';

describe('JSON merge patch', () => {
  test('null deletes, objects merge, lists replace', () => {
    expect(applyMergePatch(fixturePod(), { metadata: { labels: null, annotations: { k: 'v' } }, spec: { volumes: [] } })).toMatchObject({
      metadata: { name: 'x', annotations: { k: 'v' } },
      spec: { volumes: [] },
    });
  });

  test('a scalar patch is refused', () => {
    expect(() => applyMergePatch(fixturePod(), 'x')).toThrow(/Invalid JSON Patch/);
  });
});
