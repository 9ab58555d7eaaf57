import { RootedHost } from '../../../src/host/rooted-host.js';
import { STATIC_POD_PATCH_TARGETS } from '../../../src/patches/filename.js';
import { POD_PATCH_SCHEMA } from '../../../src/patches/schema.js';
import { tempRoot } from '../../helpers/temp-root.js';

const targets = [...STATIC_POD_PATCH_TARGETS];

describe('patchTarget', () => {
  test('under --rootfs a relative directory is taken from the root, and notices are logged once', async () => {
    const { newPatchCache, patchTarget } = await import('../../../src/patches/run.js');
    const root = tempRoot({ '/p/etcd+merge.yaml': 'metadata: {labels: {x: "1"}}\n' });
    try {
      const messages: string[] = [];
      const log = { info: (m: string) => messages.push(m), warn: () => undefined, debug: () => undefined, output: () => undefined, event: () => undefined };
      const ctx = { host: new RootedHost(root.dir), log, state: { patches: newPatchCache() } };
      const doc = { metadata: { name: 'etcd' } };
      expect(await patchTarget(ctx, 'p', 'etcd', targets, doc, POD_PATCH_SCHEMA)).toEqual({ metadata: { name: 'etcd', labels: { x: '1' } } });
      expect(await patchTarget(ctx, 'p', 'kube-apiserver', targets, doc, POD_PATCH_SCHEMA)).toBe(doc);
      expect(messages).toEqual([
        'Reading patches from path "/p"',
        'Found the following patch files: [etcd+merge.yaml]',
        'Applied patch of type "application/merge-patch+json" to target "etcd"',
      ]);
    } finally {
      root.cleanup();
    }
  });
});
