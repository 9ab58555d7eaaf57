/**
 * What `tsadm upgrade plan` offers, pure: from the versions read off the cluster to the list of
 * possible upgrades with each component's CURRENT and AVAILABLE version, as kubeadm's
 * phases/upgrade/compute.go (GetAvailableUpgrades) and cmd/upgrade/plan.go (genUpgradePlan) do.
 *
 * Where tsadm differs, on purpose (docs/upgrade.md):
 * - kubeadm asks dl.k8s.io for "stable" and "stable-1.X"; tsadm never goes to the internet. With
 *   no [version] it offers the newest patch it knows (DEFAULT_PATCH) of the cluster's minor and
 *   of the next minor; with a [version], that version only (kubeadm's offline version getter).
 * - kubeadm describes the next-minor offer as "stable version"; tsadm says which series it is
 *   ("version in the v1.21 series"), since it is the newest tsadm knows, not a fetched label.
 * - every offer goes through the version policy (policy.ts) and carries its verdict and reasons,
 *   so the plan says why an upgrade would be refused or needs --force; kubeadm's plan does not.
 * - a [version] at or below the cluster's is listed too (as a refused or --force downgrade,
 *   or as nothing to do), where kubeadm's plan prints nothing.
 */
import semver from 'semver';
import { isReleasedMinor, minorOf, profileFor } from '../versions/resolve.js';
import { DEFAULT_PATCH } from '../versions/minors.js';
import type { VersionProfile } from '../versions/table-types.js';
import { checkVersionPolicy } from './policy.js';

/** The versions running now, as read from the cluster and this node. */
export interface ClusterVersions {
  /** The API server's gitVersion (kubeadm: the cluster version). */
  readonly clusterVersion: string;
  /** Node.status.nodeInfo.kubeletVersion of every Node; undefined when they could not be read. */
  readonly kubeletVersions: readonly string[] | undefined;
  readonly kubeApiServer: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  /** The kube-proxy DaemonSet's image tag; undefined when there is no kube-proxy. */
  readonly kubeProxy?: string;
  /** The CoreDNS Deployment's image tag; undefined when there is no CoreDNS. */
  readonly coreDNS?: string;
  /** The local etcd static pod's image tag; undefined with external etcd. */
  readonly etcd?: string;
  readonly externalEtcd: boolean;
  /** The target configuration disables these addons (v1beta4 dns.disabled, proxy.disabled). */
  readonly dnsDisabled?: boolean;
  readonly proxyDisabled?: boolean;
}

export interface PlanRequest {
  /** The [version] argument (or the file's plan.kubernetesVersion), normalised; undefined: offer what tsadm knows. */
  readonly version?: string;
  readonly allowExperimentalUpgrades: boolean;
  readonly allowRCUpgrades: boolean;
  /**
   * `upgrade plan --etcd-upgrade` (kubeadm 1.33, PR #130023; default true). False: etcd is not
   * offered, as with external etcd (no etcd row).
   */
  readonly etcdUpgrade?: boolean;
}

/** kubeadm's output API ComponentUpgradePlan. */
interface ComponentUpgradePlan {
  readonly name: string;
  readonly currentVersion: string;
  readonly newVersion: string;
}

type UpgradeVerdict = 'allowed' | 'needs-force' | 'refused' | 'nothing-to-do';

export interface AvailableUpgrade {
  /** "version in the v1.20 series" (kubeadm's Upgrade.Description). */
  readonly description: string;
  readonly targetVersion: string;
  readonly components: readonly ComponentUpgradePlan[];
  readonly verdict: UpgradeVerdict;
  /** Why the policy refuses the upgrade or needs --force (empty when allowed). */
  readonly reasons: readonly string[];
  /** kubeadm's unstableVersionFlag: the flag a pre-release target needs on `upgrade apply`. */
  readonly unstableFlag?: '--allow-release-candidate-upgrades' | '--allow-experimental-upgrades';
}

// kubeadm's constants: component names as the plan prints them.
const KUBELET = 'kubelet';
const CONTROL_PLANE = [
  ['kube-apiserver', 'kubeApiServer'],
  ['kube-controller-manager', 'kubeControllerManager'],
  ['kube-scheduler', 'kubeScheduler'],
] as const;

/** The versions the plan offers, oldest first (kubeadm: the patch series before the next minor). */
export function planTargets(cluster: ClusterVersions, request: PlanRequest): string[] {
  if (request.version !== undefined) return [request.version];
  const current = semver.parse(cluster.clusterVersion.replace(/^v/, ''));
  if (!current) return [];
  const targets: string[] = [];
  for (const minor of [`${current.major}.${current.minor}`, `${current.major}.${current.minor + 1}`]) {
    // A preview minor (pre-releases only) is never offered; kubeadm offers one only with --allow-release-candidate-upgrades.
    if (!isReleasedMinor(minor)) continue;
    const newest = DEFAULT_PATCH[minor];
    if (semver.gt(newest.replace(/^v/, ''), current)) targets.push(newest);
  }
  return targets;
}

export function computeUpgrades(cluster: ClusterVersions, request: PlanRequest): AvailableUpgrade[] {
  return planTargets(cluster, request).map((target) => upgradeTo(cluster, request, target));
}

function upgradeTo(cluster: ClusterVersions, request: PlanRequest, target: string): AvailableUpgrade {
  const verdict = checkVersionPolicy({
    clusterVersion: cluster.clusterVersion,
    kubeletVersions: cluster.kubeletVersions,
    targetVersion: target,
    allowExperimentalUpgrades: request.allowExperimentalUpgrades,
    allowRCUpgrades: request.allowRCUpgrades,
  });
  // A pre-release without its --allow-* flag is not a --force matter: the apply line carries the
  // flag it needs, as kubeadm's unstableVersionFlag does.
  const skippable = verdict.skippable.filter((v) => v.code !== 'unstable-not-allowed');
  const reasons = [...verdict.mandatory, ...skippable].map((v) => v.message);
  const outcome: UpgradeVerdict = verdict.mandatory.length > 0 ? 'refused' : skippable.length > 0 ? 'needs-force' : verdict.change === 'none' ? 'nothing-to-do' : 'allowed';
  const profile = profileOrUndefined(target);
  const prerelease = semver.parse(target.replace(/^v/, ''))?.prerelease ?? [];
  const unstableFlag = prerelease.length === 0 ? undefined : String(prerelease[0]).startsWith('rc') ? '--allow-release-candidate-upgrades' : '--allow-experimental-upgrades';
  return {
    description: describe(target),
    targetVersion: target,
    components: components(cluster, target, profile, request.etcdUpgrade !== false),
    verdict: outcome,
    reasons,
    ...(unstableFlag ? { unstableFlag } : {}),
  };
}

/** kubeadm's genUpgradePlan: kubelets (if any would change), the control plane, the addons, etcd. */
function components(cluster: ClusterVersions, target: string, profile: VersionProfile | undefined, etcdUpgrade: boolean): ComponentUpgradePlan[] {
  const out: ComponentUpgradePlan[] = [];
  const counts = kubeletCounts(cluster.kubeletVersions);
  if (canUpgradeKubelets(counts, target)) {
    // kubeadm: sort.Strings over the distinct versions, "N x vX" each.
    for (const version of [...counts.keys()].sort()) out.push({ name: KUBELET, currentVersion: `${counts.get(version) ?? 0} x ${version}`, newVersion: target });
  }
  for (const [name, key] of CONTROL_PLANE) out.push({ name, currentVersion: cluster[key], newVersion: target });
  addUnlessAbsent(out, 'kube-proxy', cluster.kubeProxy, cluster.proxyDisabled ? undefined : target);
  // kubeadm's appendDNSComponent: a row when either side has a version. Unknown target minor: "N/A" as kubeadm's etcd.
  addUnlessAbsent(out, 'CoreDNS', cluster.coreDNS, cluster.dnsDisabled ? undefined : profile?.images.corednsTag ?? 'N/A');
  if (!cluster.externalEtcd && etcdUpgrade) out.push({ name: 'etcd', currentVersion: cluster.etcd ?? '', newVersion: profile?.images.etcdTag ?? 'N/A' });
  return out;
}

function addUnlessAbsent(out: ComponentUpgradePlan[], name: string, current: string | undefined, next: string | undefined): void {
  if ((current ?? '') === '' && (next ?? '') === '') return;
  out.push({ name, currentVersion: current ?? '', newVersion: next ?? '' });
}

function kubeletCounts(versions: readonly string[] | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of versions ?? []) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/** kubeadm's Upgrade.CanUpgradeKubelets. */
function canUpgradeKubelets(counts: ReadonlyMap<string, number>, target: string): boolean {
  if (counts.size > 1) return true;
  if (counts.size === 0) return false;
  return !counts.has(target);
}

function describe(target: string): string {
  try {
    return `version in the v${minorOf(target)} series`;
  } catch {
    return `version ${target}`;
  }
}

function profileOrUndefined(version: string): VersionProfile | undefined {
  try {
    return profileFor(version);
  } catch {
    return undefined;
  }
}
