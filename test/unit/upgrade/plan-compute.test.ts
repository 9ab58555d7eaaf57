/**
 * What the plan offers. Expected component versions are kubeadm's own: v1.20's
 * constants (etcd 3.4.13-0, CoreDNS 1.7.0), v1.21's (etcd 3.4.13-0, CoreDNS v1.8.0), and the
 * kubelet rules of phases/upgrade/compute.go (CanUpgradeKubelets) and cmd/upgrade/plan.go.
 */
import { computeUpgrades, planTargets, type ClusterVersions } from '../../../src/upgrade/plan-compute.js';

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
  expect(planTargets({ ...cluster, clusterVersion: 'v1.34.999' }, request)).toEqual([]);
  // A given version is the only offer.
  expect(planTargets(cluster, { ...request, version: 'v1.20.3' })).toEqual(['v1.20.3']);
});
