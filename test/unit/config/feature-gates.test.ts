import { featureEnabled, featureGateAt, featureGateWarnings, parseFeatureGates, validateFeatureGates } from '../../../src/config/feature-gates.js';
import { resolveInitConfig } from '../../../src/config/load.js';
import type { SupportedMinor } from '../../../src/versions/minors.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';

describe('parseFeatureGates', () => {
  test('Go ParseBool spellings', () => {
    expect(parseFeatureGates('PublicKeysECDSA=1,EtcdLearnerMode=F,RootlessControlPlane=TRUE')).toEqual({
      gates: { PublicKeysECDSA: true, EtcdLearnerMode: false, RootlessControlPlane: true },
      errors: [],
    });
  });
});

/**
 * kubeadm's gate list per minor, as its cmd/kubeadm/app/features/features.go of that release
 * declares it (InitFeatureGates): name → [default, stage, locked]. Written out from the source
 * (docs/kubeadm-reference.md, "kubeadm's feature gates per minor"), not from the table.
 * RootlessControlPlane is deprecated from 1.31 (PR #124997, "kubeadm: deprecate the
 * RootlessControlPlane feature gate", merged 2024-05) and removed in 1.35 (PR #134178, merged
 * 2025-09-20); the 1.35–1.37 gates are checked against test/fixtures/versions/ as well.
 */
const KUBEADM_GATES: Record<string, Record<string, [boolean, string, boolean?]>> = {
  '1.20': { IPv6DualStack: [false, 'alpha'], PublicKeysECDSA: [false, 'alpha'] },
  '1.21': { IPv6DualStack: [true, 'beta'], PublicKeysECDSA: [false, 'alpha'] },
  '1.22': { IPv6DualStack: [true, 'beta'], PublicKeysECDSA: [false, 'alpha'], RootlessControlPlane: [false, 'alpha'] },
  '1.23': { IPv6DualStack: [true, 'GA', true], PublicKeysECDSA: [false, 'alpha'], RootlessControlPlane: [false, 'alpha'], UnversionedKubeletConfigMap: [false, 'alpha'] },
  '1.25': { PublicKeysECDSA: [false, 'alpha'], RootlessControlPlane: [false, 'alpha'], UnversionedKubeletConfigMap: [true, 'GA', true] },
  '1.26': { PublicKeysECDSA: [false, 'alpha'], RootlessControlPlane: [false, 'alpha'] },
  '1.27': { PublicKeysECDSA: [false, 'alpha'], RootlessControlPlane: [false, 'alpha'], EtcdLearnerMode: [false, 'alpha'] },
  '1.28': { PublicKeysECDSA: [false, 'alpha'], RootlessControlPlane: [false, 'alpha'], EtcdLearnerMode: [false, 'alpha'], UpgradeAddonsBeforeControlPlane: [false, 'deprecated'] },
  '1.29': { PublicKeysECDSA: [false, 'deprecated'], RootlessControlPlane: [false, 'alpha'], EtcdLearnerMode: [true, 'beta'], UpgradeAddonsBeforeControlPlane: [false, 'deprecated'] },
  '1.30': { PublicKeysECDSA: [false, 'deprecated'], RootlessControlPlane: [false, 'alpha'], EtcdLearnerMode: [true, 'beta'], UpgradeAddonsBeforeControlPlane: [false, 'deprecated'], WaitForAllControlPlaneComponents: [false, 'alpha'] },
  '1.31': { PublicKeysECDSA: [false, 'deprecated'], RootlessControlPlane: [false, 'deprecated'], EtcdLearnerMode: [true, 'beta'], WaitForAllControlPlaneComponents: [false, 'alpha'], ControlPlaneKubeletLocalMode: [false, 'alpha'] },
  '1.32': { PublicKeysECDSA: [false, 'deprecated'], RootlessControlPlane: [false, 'deprecated'], EtcdLearnerMode: [true, 'GA', true], WaitForAllControlPlaneComponents: [false, 'alpha'], ControlPlaneKubeletLocalMode: [false, 'alpha'] },
  '1.33': { PublicKeysECDSA: [false, 'deprecated'], RootlessControlPlane: [false, 'deprecated'], WaitForAllControlPlaneComponents: [true, 'beta'], ControlPlaneKubeletLocalMode: [true, 'beta'], NodeLocalCRISocket: [false, 'alpha'] },
  '1.34': { PublicKeysECDSA: [false, 'deprecated'], RootlessControlPlane: [false, 'deprecated'], WaitForAllControlPlaneComponents: [true, 'GA', true], ControlPlaneKubeletLocalMode: [true, 'beta'], NodeLocalCRISocket: [true, 'beta'] },
  // PRs #134106 (ControlPlaneKubeletLocalMode GA), #134781 (WaitForAllControlPlaneComponents removed), #134178 (RootlessControlPlane removed).
  '1.35': { PublicKeysECDSA: [false, 'deprecated'], ControlPlaneKubeletLocalMode: [true, 'GA', true], NodeLocalCRISocket: [true, 'beta'] },
  // PRs #135742 (NodeLocalCRISocket GA), #135773 (ControlPlaneKubeletLocalMode removed).
  '1.36': { PublicKeysECDSA: [false, 'deprecated'], NodeLocalCRISocket: [true, 'GA', true] },
  // PRs #136016 (PublicKeysECDSA removed with v1beta3), #138645 (NodeLocalCRISocket removed): no kubeadm gate left.
  '1.37': {},
};

describe('kubeadm feature gates per minor', () => {
  test.each(Object.keys(KUBEADM_GATES))('%s: the gates kubeadm of that minor knows, with default, stage and lock', (minor) => {
    const versions = VERSION_TABLE[minor as SupportedMinor];
    const known = Object.keys(versions.featureGates).filter((name) => featureGateAt(versions, name) !== undefined).sort();
    expect(known).toEqual(Object.keys(KUBEADM_GATES[minor] ?? {}).sort());
    for (const [name, [def, stage, locked]] of Object.entries(KUBEADM_GATES[minor] ?? {})) {
      const fact = featureGateAt(versions, name);
      expect([minor, name, fact?.default, fact?.stage, fact?.locked === true]).toEqual([minor, name, def, stage, locked === true]);
    }
  });

  test('featureEnabled: the set value where the gate exists, else its default; off where kubeadm does not know it', () => {
    const v = (m: SupportedMinor) => VERSION_TABLE[m];
    // ControlPlaneKubeletLocalMode: unknown in 1.30, alpha off in 1.31/1.32, beta on in 1.33.
    expect(featureEnabled({ ControlPlaneKubeletLocalMode: true }, v('1.30'), 'ControlPlaneKubeletLocalMode')).toBe(false);
    expect(featureEnabled({}, v('1.32'), 'ControlPlaneKubeletLocalMode')).toBe(false);
    expect(featureEnabled({ ControlPlaneKubeletLocalMode: true }, v('1.31'), 'ControlPlaneKubeletLocalMode')).toBe(true);
    expect(featureEnabled({}, v('1.33'), 'ControlPlaneKubeletLocalMode')).toBe(true);
    expect(featureEnabled({ ControlPlaneKubeletLocalMode: false }, v('1.33'), 'ControlPlaneKubeletLocalMode')).toBe(false);
    // EtcdLearnerMode: alpha off in 1.27/1.28, beta on in 1.29, GA in 1.32, gone in 1.33.
    expect(featureEnabled({}, v('1.26'), 'EtcdLearnerMode')).toBe(false);
    expect(featureEnabled({}, v('1.28'), 'EtcdLearnerMode')).toBe(false);
    expect(featureEnabled({ EtcdLearnerMode: true }, v('1.27'), 'EtcdLearnerMode')).toBe(true);
    expect(featureEnabled({}, v('1.29'), 'EtcdLearnerMode')).toBe(true);
    expect(featureEnabled({}, v('1.32'), 'EtcdLearnerMode')).toBe(true);
    // Removed after GA (1.33): kubeadm joins etcd members as learners unconditionally.
    expect(featureEnabled({}, v('1.33'), 'EtcdLearnerMode')).toBe(true);
    expect(featureEnabled({}, v('1.34'), 'EtcdLearnerMode')).toBe(true);
    // Removed while deprecated and off (1.31): the behaviour stays off.
    expect(featureEnabled({ UpgradeAddonsBeforeControlPlane: true }, v('1.30'), 'UpgradeAddonsBeforeControlPlane')).toBe(true);
    expect(featureEnabled({}, v('1.31'), 'UpgradeAddonsBeforeControlPlane')).toBe(false);
    // WaitForAllControlPlaneComponents: alpha off 1.30–1.32, beta on 1.33, GA 1.34.
    expect(featureEnabled({}, v('1.29'), 'WaitForAllControlPlaneComponents')).toBe(false);
    expect(featureEnabled({}, v('1.32'), 'WaitForAllControlPlaneComponents')).toBe(false);
    expect(featureEnabled({}, v('1.33'), 'WaitForAllControlPlaneComponents')).toBe(true);
    expect(featureEnabled({}, v('1.34'), 'WaitForAllControlPlaneComponents')).toBe(true);
  });

  test('validation: a gate unknown at the target minor, a locked gate against its default; fine otherwise', () => {
    expect(validateFeatureGates({ ControlPlaneKubeletLocalMode: true }, VERSION_TABLE['1.30'])).toEqual([
      'featureGates: unrecognized feature-gate key "ControlPlaneKubeletLocalMode" (kubeadm 1.30 does not have it)',
    ]);
    expect(validateFeatureGates({ ControlPlaneKubeletLocalMode: true }, VERSION_TABLE['1.31'])).toEqual([]);
    expect(validateFeatureGates({ EtcdLearnerMode: false }, VERSION_TABLE['1.31'])).toEqual([]);
    expect(validateFeatureGates({ EtcdLearnerMode: false }, VERSION_TABLE['1.32'])).toEqual(['featureGates: cannot set feature gate EtcdLearnerMode to false, feature is locked to true']);
    expect(validateFeatureGates({ EtcdLearnerMode: true }, VERSION_TABLE['1.32'])).toEqual([]);
    expect(validateFeatureGates({ WaitForAllControlPlaneComponents: false }, VERSION_TABLE['1.33'])).toEqual([]);
    expect(validateFeatureGates({ WaitForAllControlPlaneComponents: false }, VERSION_TABLE['1.34'])).toEqual(['featureGates: cannot set feature gate WaitForAllControlPlaneComponents to false, feature is locked to true']);
    expect(validateFeatureGates({ IPv6DualStack: true }, VERSION_TABLE['1.24'])).toEqual(['featureGates: unrecognized feature-gate key "IPv6DualStack" (kubeadm 1.24 does not have it)']);
    expect(validateFeatureGates({ EtcdLearnerMode: true }, VERSION_TABLE['1.33'])).toEqual(['featureGates: unrecognized feature-gate key "EtcdLearnerMode" (kubeadm 1.33 does not have it)']);
  });

  test('deprecated gates that are set warn, with kubeadm\'s deprecation message; others do not', () => {
    expect(featureGateWarnings({ PublicKeysECDSA: true }, VERSION_TABLE['1.28'])).toEqual([]);
    expect(featureGateWarnings({ PublicKeysECDSA: true }, VERSION_TABLE['1.30'])).toEqual([
      "Setting deprecated feature gate PublicKeysECDSA=true. It will be removed in a future release. The PublicKeysECDSA feature gate is deprecated and will be removed when v1beta3 is removed. v1beta4 supports a new option 'ClusterConfiguration.EncryptionAlgorithm'.",
    ]);
    expect(featureGateWarnings({ UpgradeAddonsBeforeControlPlane: false }, VERSION_TABLE['1.28'])).toHaveLength(1);
    expect(featureGateWarnings({ EtcdLearnerMode: true }, VERSION_TABLE['1.29'])).toEqual([]);
  });

  test('a config at a minor that does not know the gate is refused, and at one that does it is accepted', () => {
    const resolve = (version: string) => () => resolveInitConfig({ flags: { 'kubernetes-version': version, 'feature-gates': 'ControlPlaneKubeletLocalMode=true' }, env: { hostname: 'node1', defaultAdvertiseAddress: '192.168.10.11', now: new Date() } });
    expect(resolve('v1.30.14')).toThrow(/unrecognized feature-gate key "ControlPlaneKubeletLocalMode"/);
    expect(resolve('v1.31.13')().cluster.featureGates).toEqual({ ControlPlaneKubeletLocalMode: true });
  });
});

describe('RootlessControlPlane', () => {
  test('false is accepted (nothing to do), true is refused naming the gate (tsadm has no per-component users)', async () => {
    const { resolveInitConfig } = await import('../../../src/config/load.js');
    const env = { hostname: 'cp1', defaultAdvertiseAddress: '192.168.10.11', now: new Date('2024-01-01T00:00:00Z') };
    const doc = (v: boolean) => `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.0\nfeatureGates:\n  RootlessControlPlane: ${v}\n`;
    expect(resolveInitConfig({ configText: doc(false), configPath: 'k.yaml', flags: { config: 'k.yaml' }, env }).cluster.featureGates).toEqual({ RootlessControlPlane: false });
    expect(() => resolveInitConfig({ configText: doc(true), configPath: 'k.yaml', flags: { config: 'k.yaml' }, env })).toThrow(/RootlessControlPlane=true is not supported/);
    expect(() => resolveInitConfig({ flags: { 'feature-gates': 'RootlessControlPlane=true', 'kubernetes-version': 'v1.34.0' }, env })).toThrow(/RootlessControlPlane=true is not supported/);
  });

  test('removed in 1.35 (PR #134178): an unknown gate for a 1.35+ target, either value', async () => {
    const { resolveInitConfig } = await import('../../../src/config/load.js');
    const env = { hostname: 'cp1', defaultAdvertiseAddress: '192.168.10.11', now: new Date('2024-01-01T00:00:00Z') };
    for (const [version, value] of [['v1.35.0', 'false'], ['v1.37.0', 'true']] as const) {
      expect(() => resolveInitConfig({ flags: { 'feature-gates': `RootlessControlPlane=${value}`, 'kubernetes-version': version }, env }))
        .toThrow(`featureGates: unrecognized feature-gate key "RootlessControlPlane" (kubeadm ${version.slice(1, 5)} does not have it) (from --feature-gates)`);
    }
  });
});
