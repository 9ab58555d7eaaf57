import { objectDrift } from '../../../src/plan/drift.js';
import type { ApprovalPlanStep } from '../../../src/plan/types.js';
import type { KubeObject } from '../../../src/kube/types.js';

const live = (kind: string, resourceVersion: string, generation?: number): KubeObject => ({
  apiVersion: 'apps/v1', kind, metadata: { name: 'x', namespace: 'kube-system', resourceVersion, ...(generation !== undefined ? { generation } : {}) },
});
const getter = (obj: KubeObject | undefined) => ({ get: <T extends KubeObject>() => Promise.resolve(obj as T | undefined) });
const state = (kind: string, resourceVersion: string | null, generation?: number) => ({ kubeconfig: 'a', kind, name: 'x', namespace: 'kube-system', resourceVersion, ...(generation !== undefined ? { generation } : {}) });

describe('objectDrift', () => {
  test('a ConfigMap whose resourceVersion moved has drifted', async () => {
    expect(await objectDrift(getter(live('ConfigMap', '12')), [state('ConfigMap', '10')])).toEqual(['ConfigMap kube-system/x: changed since the plan was made (resourceVersion 10 → 12)']);
  });

  test('a DaemonSet whose status moved (same generation) has not; a new generation (spec changed) has', async () => {
    expect(await objectDrift(getter(live('DaemonSet', '12', 3)), [state('DaemonSet', '10', 3)])).toEqual([]);
    expect(await objectDrift(getter(live('DaemonSet', '12', 4)), [state('DaemonSet', '10', 3)])).toEqual(['DaemonSet kube-system/x: changed since the plan was made (resourceVersion 10 → 12)']);
    // Gone is gone, whatever the generation.
    expect(await objectDrift(getter(undefined), [state('Deployment', '10', 3)])).toEqual(['Deployment kube-system/x: existed when the plan was made (resourceVersion 10), is gone now']);
  });

  test('a CSR an approval step decides: moved because the planned decision is on it (an earlier apply) is no drift; moved otherwise is', async () => {
    const csr = (resourceVersion: string, conditions: { type: string; reason: string }[]): KubeObject => ({
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'x', resourceVersion }, status: { conditions },
    });
    const was = { kubeconfig: 'a', kind: 'CertificateSigningRequest', name: 'x', resourceVersion: '10' };
    const step: ApprovalPlanStep = {
      type: 'object', verb: 'approval', kubeconfig: 'a', kind: 'CertificateSigningRequest', name: 'x',
      decision: { type: 'Approved', reason: 'TsadmNodeAddressesMatch', message: 'm' }, object: {},
    };
    expect(await objectDrift(getter(csr('12', [{ type: 'Approved', reason: 'TsadmNodeAddressesMatch' }])), [was], [step])).toEqual([]);
    expect(await objectDrift(getter(csr('12', [{ type: 'Denied', reason: 'SomeoneElse' }])), [was], [step]))
      .toEqual(['CertificateSigningRequest x: changed since the plan was made (resourceVersion 10 → 12)']);
    expect(await objectDrift(getter(csr('12', [])), [was], [step])).toEqual(['CertificateSigningRequest x: changed since the plan was made (resourceVersion 10 → 12)']);
  });
});
