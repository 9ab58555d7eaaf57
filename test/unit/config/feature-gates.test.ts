import { parseFeatureGates } from '../../../src/config/feature-gates.js';

describe('parseFeatureGates', () => {
  test('Go ParseBool spellings', () => {
    expect(parseFeatureGates('PublicKeysECDSA=1,EtcdLearnerMode=F,RootlessControlPlane=TRUE')).toEqual({
      gates: { PublicKeysECDSA: true, EtcdLearnerMode: false, RootlessControlPlane: true },
      errors: [],
    });
  });
});

describe('RootlessControlPlane', () => {
  test('false is accepted (nothing to do), true is refused naming the gate (tsadm has no per-component users)', async () => {
    const { resolveInitConfig } = await import('../../../src/config/load.js');
    const env = { hostname: 'cp1', defaultAdvertiseAddress: '192.168.10.11', now: new Date('2024-01-01T00:00:00Z') };
    const doc = (v: boolean) => `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.0\nfeatureGates:\n  RootlessControlPlane: ${v}\n`;
    expect(resolveInitConfig({ configText: doc(false), configPath: 'k.yaml', flags: { config: 'k.yaml' }, env }).cluster.featureGates).toEqual({ RootlessControlPlane: false });
    expect(() => resolveInitConfig({ configText: doc(true), configPath: 'k.yaml', flags: { config: 'k.yaml' }, env })).toThrow(/RootlessControlPlane=true is not supported/);
    expect(() => resolveInitConfig({ flags: { 'feature-gates': 'RootlessControlPlane=true' }, env })).toThrow(/RootlessControlPlane=true is not supported/);
  });
});
