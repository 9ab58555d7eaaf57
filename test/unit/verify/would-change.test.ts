/**
 * What a check compares on cluster-info: everything but the jws-kubeconfig-<id> signatures, which
 * the bootstrapsigner keeps for tokens a check may not know (src/verify/would-change.ts).
 */
import type { ConfigMapObject } from '../../../src/kube/types.js';
import { onlyTokenSignaturesDiffer } from '../../../src/verify/would-change.js';

const cm = (data: Record<string, string>, name = 'cluster-info', namespace = 'kube-public'): ConfigMapObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });

test('cluster-info differing only in token signatures passes; a different kubeconfig, another ConfigMap or a missing one does not', () => {
  const desired = cm({ kubeconfig: 'K', 'jws-kubeconfig-made01': 'sig-of-a-made-up-token' });
  expect(onlyTokenSignaturesDiffer(desired, cm({ 'jws-kubeconfig-init01': 'sig', kubeconfig: 'K' }))).toBe(true);
  expect(onlyTokenSignaturesDiffer(desired, cm({ kubeconfig: 'K' }))).toBe(true);
  expect(onlyTokenSignaturesDiffer(desired, cm({ kubeconfig: 'other', 'jws-kubeconfig-made01': 'sig-of-a-made-up-token' }))).toBe(false);
  expect(onlyTokenSignaturesDiffer(desired, cm({ kubeconfig: 'K', extra: 'x' }))).toBe(false);
  expect(onlyTokenSignaturesDiffer(cm({ kubeconfig: 'K', 'jws-kubeconfig-a': 'x' }, 'kubeadm-config', 'kube-system'), cm({ kubeconfig: 'K' }, 'kubeadm-config', 'kube-system'))).toBe(false);
  expect(onlyTokenSignaturesDiffer(desired, undefined)).toBe(false);
});
