/**
 * The typed round trip after --patches: kubeadm re-marshals the patched v1.Pod, so the zero
 * creationTimestamp comes back as null up to 1.33 and is omitted from 1.34 (apimachinery v0.34.0's
 * `omitzero` on ObjectMeta.CreationTimestamp, kubernetes PR #130989).
 */
import { normalizePatchedPod } from '../../../src/manifest/normalize.js';

const patched = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'etcd', creationTimestamp: null }, spec: { containers: [{ name: 'etcd' }] } };

describe('normalizePatchedPod', () => {
  test('≤1.33: the zero timestamp is written as null, whether the patch kept it or dropped it', () => {
    const { creationTimestamp: _ct, ...dropped } = patched.metadata;
    for (const metadata of [patched.metadata, dropped]) {
      const out = normalizePatchedPod({ ...patched, metadata }, { omitEmptyCreationTimestamp: false });
      expect(out.metadata).toEqual({ name: 'etcd', creationTimestamp: null });
    }
  });

  test('1.34+: the zero timestamp is omitted; a real one is kept', () => {
    expect(normalizePatchedPod(patched, { omitEmptyCreationTimestamp: true }).metadata).toEqual({ name: 'etcd' });
    const set = { ...patched, metadata: { name: 'etcd', creationTimestamp: '2026-01-01T00:00:00Z' } };
    expect(normalizePatchedPod(set, { omitEmptyCreationTimestamp: true }).metadata).toEqual(set.metadata);
  });
});
