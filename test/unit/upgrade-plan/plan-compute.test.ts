/**
 * What the plan offers. Expected component versions are kubeadm's own: v1.20's
 * constants (etcd 3.4.13-0, CoreDNS 1.7.0), v1.21's (etcd 3.4.13-0, CoreDNS v1.8.0), and the
 * kubelet rules of phases/upgrade/compute.go (CanUpgradeKubelets) and cmd/upgrade/plan.go.
 */
import { computeUpgrades, planTargets, type ClusterVersions } from '../../../src/upgrade-plan/plan-compute.js';

const cluster: ClusterVersions = {
  clusterVersion: 'v1.20.2',
  kubeletVersions: ['v1.20.2'],
  kubeApiServer: 'v1.20.2',
  kubeControllerManager: 'v1.20.2',
  kubeScheduler: 'v1.20.2',
  kubeProxy: 'v1.20.2',
  coreDNS: '1.7.0',
  etcd: '3.4.13-0',
  externalEtcd: false,
};
const request = { allowExperimentalUpgrades: false, allowRCUpgrades: false };

test('v1.20.2 → v1.20.3: every component row as kubeadm v1.20 prints it', () => {
  const [up, ...rest] = computeUpgrades(cluster, { ...request, version: 'v1.20.3' });
  expect(rest).toEqual([]);
  expect(up).toEqual({
    description: 'version in the v1.20 series',
    targetVersion: 'v1.20.3',
    verdict: 'allowed',
    reasons: [],
    components: [
      { name: 'kubelet', currentVersion: '1 x v1.20.2', newVersion: 'v1.20.3' },
      { name: 'kube-apiserver', currentVersion: 'v1.20.2', newVersion: 'v1.20.3' },
      { name: 'kube-controller-manager', currentVersion: 'v1.20.2', newVersion: 'v1.20.3' },
      { name: 'kube-scheduler', currentVersion: 'v1.20.2', newVersion: 'v1.20.3' },
      { name: 'kube-proxy', currentVersion: 'v1.20.2', newVersion: 'v1.20.3' },
      { name: 'CoreDNS', currentVersion: '1.7.0', newVersion: '1.7.0' },
      { name: 'etcd', currentVersion: '3.4.13-0', newVersion: '3.4.13-0' },
    ],
  });
});

test('to v1.21: kubeadm v1.21\'s CoreDNS and etcd', () => {
  const [up] = computeUpgrades(cluster, { ...request, version: 'v1.21.0' });
  expect(up?.components.filter((c) => ['CoreDNS', 'etcd'].includes(c.name))).toEqual([
    { name: 'CoreDNS', currentVersion: '1.7.0', newVersion: 'v1.8.0' },
    { name: 'etcd', currentVersion: '3.4.13-0', newVersion: '3.4.13-0' },
  ]);
  expect(up?.description).toBe('version in the v1.21 series');
});

test('kubelets: no row when all are at the target, one row per version (sorted) otherwise', () => {
  const atTarget = computeUpgrades({ ...cluster, kubeletVersions: ['v1.20.3', 'v1.20.3'] }, { ...request, version: 'v1.20.3' });
  expect(atTarget[0]?.components.some((c) => c.name === 'kubelet')).toBe(false);
  const mixed = computeUpgrades({ ...cluster, kubeletVersions: ['v1.20.3', 'v1.20.2', 'v1.20.3'] }, { ...request, version: 'v1.20.3' });
  expect(mixed[0]?.components.filter((c) => c.name === 'kubelet').map((c) => c.currentVersion)).toEqual(['1 x v1.20.2', '2 x v1.20.3']);
  const unknown = computeUpgrades({ ...cluster, kubeletVersions: undefined }, { ...request, version: 'v1.20.3' });
  expect(unknown[0]?.components.some((c) => c.name === 'kubelet')).toBe(false);
});

test('external etcd: no etcd row; no CoreDNS and DNS disabled: no CoreDNS row', () => {
  const [up] = computeUpgrades({ ...cluster, externalEtcd: true, etcd: undefined, coreDNS: undefined, dnsDisabled: true }, { ...request, version: 'v1.20.3' });
  expect(up?.components.map((c) => c.name)).toEqual(['kubelet', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy']);
});

test('--etcd-upgrade=false (kubeadm 1.33+): no etcd row, as with external etcd; true or unset: the etcd row', () => {
  const [without] = computeUpgrades(cluster, { ...request, version: 'v1.20.3', etcdUpgrade: false });
  expect(without?.components.map((c) => c.name)).toEqual(['kubelet', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'CoreDNS']);
  const [withEtcd] = computeUpgrades(cluster, { ...request, version: 'v1.20.3', etcdUpgrade: true });
  expect(withEtcd?.components.map((c) => c.name)).toContain('etcd');
});

test('the policy\'s verdict and reasons: a skipped minor is refused, a downgrade needs --force, the same version is nothing to do', () => {
  const [skip] = computeUpgrades(cluster, { ...request, version: 'v1.22.0' });
  expect(skip?.verdict).toBe('refused');
  expect(skip?.reasons.join('\n')).toContain('skips a minor');
  const [down] = computeUpgrades({ ...cluster, clusterVersion: 'v1.20.3' }, { ...request, version: 'v1.20.2' });
  expect(down?.verdict).toBe('needs-force');
  const [same] = computeUpgrades(cluster, { ...request, version: 'v1.20.2' });
  expect(same?.verdict).toBe('nothing-to-do');
});

test('pre-releases need kubeadm\'s flags: rc → --allow-release-candidate-upgrades, others → --allow-experimental-upgrades', () => {
  const [rc] = computeUpgrades(cluster, { ...request, version: 'v1.21.0-rc.0' });
  // Not a --force matter: the apply line carries the flag (kubeadm's unstableVersionFlag).
  expect(rc).toMatchObject({ unstableFlag: '--allow-release-candidate-upgrades', verdict: 'allowed', reasons: [] });
  const [beta] = computeUpgrades(cluster, { allowExperimentalUpgrades: true, allowRCUpgrades: false, version: 'v1.21.0-beta.1' });
  expect(beta).toMatchObject({ unstableFlag: '--allow-experimental-upgrades', verdict: 'allowed' });
});

test('offline offers without a version: a newer patch of the cluster\'s minor, and the next minor', () => {
  // v1.20.0 < the newest v1.20 patch tsadm knows; v1.21 is the next minor.
  const targets = planTargets({ ...cluster, clusterVersion: 'v1.20.0' }, request);
  expect(targets).toHaveLength(2);
  expect(targets[0]).toMatch(/^v1\.20\.\d+$/);
  expect(targets[1]).toMatch(/^v1\.21\.\d+$/);
  // The newest minor tsadm knows has no next minor to offer.
  expect(planTargets({ ...cluster, clusterVersion: 'v1.37.999' }, request)).toEqual([]);
  // A given version is the only offer.
  expect(planTargets(cluster, { ...request, version: 'v1.20.3' })).toEqual(['v1.20.3']);
});

/**
 * The upgrade paths of issue 26, one minor at a time. Expected images from the golden facts of
 * each minor (test/fixtures/versions/1.34–1.37.yaml `images`, read from kubeadm's constants.go and
 * its PRs): etcd 3.6.4-0 → 3.6.6-0 → 3.6.8-0 → 3.7.0-0, CoreDNS v1.12.1 → v1.13.1 → v1.14.2 →
 * v1.14.6; kube-proxy and the control plane take the target version.
 */
describe('the steps 1.34 → 1.35 → 1.36 → 1.37', () => {
  const at = (version: string, etcd: string, coreDNS: string, kubelets: readonly string[] = [version]): ClusterVersions => ({
    clusterVersion: version,
    kubeletVersions: kubelets,
    kubeApiServer: version,
    kubeControllerManager: version,
    kubeScheduler: version,
    kubeProxy: version,
    coreDNS,
    etcd,
    externalEtcd: false,
  });

  test.each([
    ['v1.34.1', 'v1.35.4', '3.6.4-0', '3.6.6-0', 'v1.12.1', 'v1.13.1'],
    ['v1.35.4', 'v1.36.0', '3.6.6-0', '3.6.8-0', 'v1.13.1', 'v1.14.2'],
    ['v1.36.0', 'v1.37.0', '3.6.8-0', '3.7.0-0', 'v1.14.2', 'v1.14.6'],
  ])('%s → %s: every row, allowed', (from, to, etcdFrom, etcdTo, dnsFrom, dnsTo) => {
    const minor = to.split('.').slice(0, 2).join('.');
    expect(computeUpgrades(at(from, etcdFrom, dnsFrom), { ...request, version: to })).toEqual([{
      description: `version in the ${minor} series`,
      targetVersion: to,
      verdict: 'allowed',
      reasons: [],
      components: [
        { name: 'kubelet', currentVersion: `1 x ${from}`, newVersion: to },
        { name: 'kube-apiserver', currentVersion: from, newVersion: to },
        { name: 'kube-controller-manager', currentVersion: from, newVersion: to },
        { name: 'kube-scheduler', currentVersion: from, newVersion: to },
        { name: 'kube-proxy', currentVersion: from, newVersion: to },
        { name: 'CoreDNS', currentVersion: dnsFrom, newVersion: dnsTo },
        { name: 'etcd', currentVersion: etcdFrom, newVersion: etcdTo },
      ],
    }]);
  });

  test('1.34 → 1.36 is refused (a skipped minor); 1.37 → a named 1.38 pre-release shows the 1.38 preview row\'s etcd and CoreDNS', () => {
    const [skip] = computeUpgrades(at('v1.34.1', '3.6.4-0', 'v1.12.1'), { ...request, version: 'v1.36.0' });
    expect(skip?.verdict).toBe('refused');
    expect(skip?.reasons).toEqual(['the version to upgrade to v1.36.0 skips a minor: the cluster is at v1.34.1 and can go up only 1 minor version at a time']);
    const [next] = computeUpgrades(at('v1.37.0', '3.7.0-0', 'v1.14.6'), { allowExperimentalUpgrades: true, allowRCUpgrades: false, version: 'v1.38.0-alpha.1' });
    expect(next?.verdict).toBe('allowed');
    expect(next?.reasons).toEqual([]);
    // CHANGELOG-1.38.md, v1.38.0-alpha.1: CoreDNS v1.14.7 (PR #141462), etcd 3.7.1 (PR #141032).
    expect(next?.components.filter((c) => ['CoreDNS', 'etcd'].includes(c.name)).map((c) => c.newVersion)).toEqual(['v1.14.7', '3.7.1-0']);
    // Not offered unless named: the plan's own targets stay on released minors.
    expect(computeUpgrades(at('v1.37.0', '3.7.0-0', 'v1.14.6'), request).map((u) => u.targetVersion)).not.toContainEqual(expect.stringMatching(/^v1\.38/));
  });

  test('offline offers at v1.34.0 and v1.36.0: the newest patch of the own minor tsadm knows and the next minor', () => {
    expect(planTargets(at('v1.34.0', '3.6.4-0', 'v1.12.1'), request).map((v) => v.split('.').slice(0, 2).join('.'))).toEqual(['v1.34', 'v1.35']);
    expect(planTargets(at('v1.36.0', '3.6.8-0', 'v1.14.2'), request).map((v) => v.split('.').slice(0, 2).join('.'))).toEqual(['v1.37']);
  });
});
