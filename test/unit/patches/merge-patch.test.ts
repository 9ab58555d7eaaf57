import type { JsonObject } from '../../../src/manifest/json.js';
import { applyMergePatch } from '../../../src/patches/merge-patch.js';

const pod = (): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'x', labels: { a: '1' } },
  spec: {
    containers: [{ name: 'c', command: ['run', '--x=1'], env: [{ name: 'A', value: '1' }], volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
    volumes: [{ name: 'v', hostPath: { path: '/v' } }],
  },
});

describe('JSON merge patch', () => {
  test('null deletes, objects merge, lists replace', () => {
    expect(applyMergePatch(pod(), { metadata: { labels: null, annotations: { k: 'v' } }, spec: { volumes: [] } })).toMatchObject({
      metadata: { name: 'x', annotations: { k: 'v' } },
      spec: { volumes: [] },
    });
  });

  test('a scalar patch is refused', () => {
    expect(() => applyMergePatch(pod(), 'x')).toThrow(/Invalid JSON Patch/);
  });
});
