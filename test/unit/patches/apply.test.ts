import { isTsadmError } from '../../../src/errors.js';
import { applyPatchFiles } from '../../../src/patches/apply.js';
import { POD_PATCH_SCHEMA } from '../../../src/patches/schema.js';
import { fixturePod } from '../../helpers/pod-fixture.js';

describe('applying patch files', () => {
  test('a failing patch names the file, the document, the type and the target', () => {
    const files = [{ file: 'kube-apiserver+json.yaml', target: 'kube-apiserver', type: 'json' as const, patches: [[], [{ op: 'remove', path: '/x' }]] }];
    try {
      applyPatchFiles('kube-apiserver', fixturePod(), files, POD_PATCH_SCHEMA, '/patches');
      throw new Error('expected an error');
    } catch (err) {
      expect(isTsadmError(err)).toBe(true);
      expect((err as Error).message).toBe('could not apply patch file "kube-apiserver+json.yaml" (document 2) of type "json" to target "kube-apiserver": error in remove for path: \'/x\': Unable to remove nonexistent key: x');
      expect((err as { hint?: string }).hint).toContain('/patches/kube-apiserver+json.yaml');
    }
  });
});
