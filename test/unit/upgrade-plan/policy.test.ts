/**
 * The upgrade version policy, table-driven. Each case's verdict comes from kubeadm's own source
 * (see the comment at the table); the check is on the exact violation codes, so a rule that
 * fires in the wrong class (fatal vs --force) or not at all fails the case.
 */
import {
  checkVersionPolicy,
  kubeletSkewLimit,
  versionPolicyError,
  type PolicyViolationCode,
  type VersionChange,
  type VersionPolicyInput,
} from '../../../src/upgrade-plan/policy.js';
import { TsadmError } from '../../../src/errors.js';

interface Case {
  readonly name: string;
  readonly input: VersionPolicyInput;
  readonly change: VersionChange | undefined;
  readonly mandatory: readonly PolicyViolationCode[];
  readonly skippable: readonly PolicyViolationCode[];
}

const base = (clusterVersion: string, kubeletVersions: readonly string[] | undefined, targetVersion: string) => ({
  clusterVersion,
  kubeletVersions,
  targetVersion,
});

// Sources of the verdicts:
// - kubeadm v1.20.2, cmd/kubeadm/app/phases/upgrade/policy_test.go (TestEnforceVersionPolicies):
//   the cases named "kubeadm 1.20: <its name>". kubeadm writes them relative to its constants
//   MinimumControlPlaneVersion (v1.19.0) and CurrentKubernetesVersion (v1.20.0); tsadm's oldest
//   minor is 1.20, so they are shifted up one minor (v1.19.x → v1.20.x, v1.20.0 → v1.21.0).
//   Its "kubeadmVersion" input has no counterpart: one tsadm knows every minor (issue 15), so the
//   rules comparing the target with kubeadm's own version become "beyond the newest minor tsadm
//   knows" (see src/upgrade-plan/policy.ts). Where tsadm's verdict differs from kubeadm's, the case
//   says "tsadm:" and why.
// - kubeadm v1.20.2, cmd/kubeadm/app/phases/upgrade/policy.go: the rules its test does not
//   exercise (pre-release versions relax the minor-distance rules to skippable; unreadable
//   kubelet versions are skippable; an unreadable cluster version stops everything).
// - kubernetes/kubernetes PR 120825 (kubeadm v1.29): MaximumAllowedMinorVersionKubeletSkew 1 → 3.
const CASES: readonly Case[] = [
  {
    name: 'kubeadm 1.20: "minor upgrade" (a patch upgrade) passes',
    input: base('v1.20.3', ['v1.20.3'], 'v1.20.5'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "major upgrade" (one minor up, kubelet a patch behind) passes',
    input: base('v1.20.3', ['v1.20.2'], 'v1.21.0'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "downgrade" (a patch down) — tsadm: needs --force (issue 15), kubeadm allows it',
    input: base('v1.20.3', ['v1.20.0'], 'v1.20.2'),
    change: 'downgrade', mandatory: [], skippable: ['downgrade'],
  },
  {
    name: 'kubeadm 1.20: "same version upgrade" passes, and is reported as no change',
    input: base('v1.20.3', ['v1.20.3'], 'v1.20.3'),
    change: 'none', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "new version must be higher than" the minimum is fatal — tsadm: and a downgrade needs --force',
    // kubeadm's skippable one here is "kubeadm v1.12 can only upgrade to 1.12", which tsadm has not.
    input: base('v1.20.3', ['v1.20.3'], 'v1.19.10'),
    change: 'downgrade', mandatory: ['below-oldest-known'], skippable: ['downgrade'],
  },
  {
    name: 'kubeadm 1.20: "upgrading two minor versions in one go is not supported" (fatal) + kubelet skew (skippable)',
    input: base('v1.20.3', ['v1.20.3'], 'v1.22.0'),
    change: 'upgrade', mandatory: ['minor-skipped'], skippable: ['kubelets-too-old'],
  },
  {
    name: 'kubeadm 1.20: "downgrading two minor versions in one go is not supported" — tsadm: plus the downgrade itself',
    input: base('v1.22.0', ['v1.22.0'], 'v1.20.0'),
    change: 'downgrade', mandatory: ['downgrade-too-far'], skippable: ['downgrade'],
  },
  {
    name: 'kubeadm 1.20: "patch version skews may be forced" (target patch newer than kubeadm) — tsadm: passes, patches change no facts',
    input: base('v1.20.3', ['v1.20.3'], 'v1.20.5'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    // One minor beyond the newest tsadm knows (1.37): 1.38.
    name: 'kubeadm 1.20: a target minor newer than the tool knows "should never be supported" (fatal)',
    input: base('v1.37.1', ['v1.37.1'], 'v1.38.0'),
    change: 'upgrade', mandatory: ['beyond-newest-known'], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "the maximum skew between the cluster version and the kubelet versions should be one minor version" (skippable)',
    input: base('v1.20.3', ['v1.19.8'], 'v1.21.0'),
    change: 'upgrade', mandatory: [], skippable: ['kubelets-too-old'],
  },
  {
    name: 'kubeadm 1.20: "experimental upgrades supported if the flag is set"',
    input: { ...base('v1.20.3', ['v1.20.3'], 'v1.21.0-beta.1'), allowExperimentalUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "release candidate upgrades supported if the flag is set" (--allow-release-candidate-upgrades)',
    input: { ...base('v1.20.3', ['v1.20.3'], 'v1.21.0-rc.1'), allowRCUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "release candidate upgrades supported if the flag is set" (--allow-experimental-upgrades)',
    input: { ...base('v1.20.3', ['v1.20.3'], 'v1.21.0-rc.1'), allowExperimentalUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "not able to upgrade to an experimental version if they haven\'t opted into that" (rc flag only)',
    input: { ...base('v1.20.3', ['v1.20.3'], 'v1.21.0-beta.1'), allowRCUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: ['unstable-not-allowed'],
  },
  {
    name: 'kubeadm 1.20: "not able to upgrade to an release candidate version if they haven\'t opted into that"',
    input: base('v1.20.3', ['v1.20.3'], 'v1.21.0-rc.1'),
    change: 'upgrade', mandatory: [], skippable: ['unstable-not-allowed'],
  },
  {
    name: 'kubeadm 1.20: "can\'t use a newer minor version of kubeadm to upgrade an older version" (skippable) — tsadm: passes, it knows every minor',
    input: base('v1.20.3', ['v1.20.3'], 'v1.20.6'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20: "build release supported at MinimumControlPlaneVersion"',
    input: base('v1.20.0', ['v1.20.0'], 'v1.20.0+build'),
    change: 'none', mandatory: [], skippable: [],
  },
  // policy.go rules its test leaves out.
  {
    name: 'kubeadm 1.20 policy.go: skipping a minor to a pre-release is skippable, not fatal',
    input: { ...base('v1.20.3', ['v1.21.0'], 'v1.22.0-alpha.1'), allowExperimentalUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: ['minor-skipped'],
  },
  {
    name: 'kubeadm 1.20 policy.go: downgrading two minors to a pre-release is skippable, not fatal',
    input: { ...base('v1.22.3', ['v1.20.0'], 'v1.20.0-rc.0'), allowRCUpgrades: true },
    change: 'downgrade', mandatory: [], skippable: ['downgrade-too-far', 'downgrade'],
  },
  {
    name: 'kubeadm 1.20 policy.go: a pre-release of a minor newer than the tool knows is skippable, not fatal (1.39: 1.38 has a preview row)',
    input: { ...base('v1.38.0-rc.0', ['v1.38.0-rc.0'], 'v1.39.0-alpha.2'), allowExperimentalUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: ['beyond-newest-known'],
  },
  {
    name: 'issue 36: a named v1.38 pre-release has tsadm\'s 1.38 preview row: with --allow-experimental-upgrades it passes, as in kubeadm 1.38',
    input: { ...base('v1.37.1', ['v1.37.1'], 'v1.38.0-alpha.2'), allowExperimentalUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.20 policy.go: a pre-release two minors beyond is skippable twice over (unknown minor, skipped minor)',
    input: { ...base('v1.37.1', ['v1.37.1'], 'v1.39.0-alpha.0'), allowExperimentalUpgrades: true },
    change: 'upgrade', mandatory: [], skippable: ['beyond-newest-known', 'minor-skipped'],
  },
  {
    name: 'kubeadm 1.20 policy.go: an alpha without any --allow flag is skippable',
    input: base('v1.20.3', ['v1.20.3'], 'v1.21.0-alpha.3'),
    change: 'upgrade', mandatory: [], skippable: ['unstable-not-allowed'],
  },
  {
    name: 'kubeadm 1.20 policy.go: kubelet versions that cannot be read are skippable, the rest is still judged',
    input: base('v1.20.3', undefined, 'v1.22.0'),
    change: 'upgrade', mandatory: ['minor-skipped'], skippable: ['kubelet-versions-unreadable'],
  },
  {
    name: 'kubeadm 1.20 policy.go: an unparseable kubelet version is skippable',
    input: base('v1.20.3', ['v1.20.3', 'not-a-version'], 'v1.21.0'),
    change: 'upgrade', mandatory: [], skippable: ['kubelet-versions-unreadable'],
  },
  {
    name: 'kubeadm 1.20 policy.go: an unreadable cluster version is fatal and ends the check',
    input: base('unknown', ['v1.10.0'], 'v1.30.0-alpha.0'),
    change: undefined, mandatory: ['cluster-version-unreadable'], skippable: [],
  },
  {
    name: 'tsadm: a target that does not parse is fatal',
    input: base('v1.20.3', ['v1.20.3'], 'v1.twenty'),
    change: undefined, mandatory: ['target-version-invalid'], skippable: [],
  },
  // The kubelet skew of the release that upgrades: 1 minor up to kubeadm 1.28, 3 from 1.29.
  {
    name: 'kubeadm 1.28 (skew 1): kubelets one minor behind the cluster are too old for the next minor',
    input: base('v1.27.3', ['v1.27.3', 'v1.26.9'], 'v1.28.0'),
    change: 'upgrade', mandatory: [], skippable: ['kubelets-too-old'],
  },
  {
    name: 'kubeadm 1.29 (skew 3, PR 120825): kubelets three minors behind the target pass',
    input: base('v1.28.5', ['v1.28.5', 'v1.26.0'], 'v1.29.0'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'kubeadm 1.29 (skew 3, PR 120825): kubelets four minors behind the target are too old',
    input: base('v1.28.5', ['v1.28.5', 'v1.25.16'], 'v1.29.0'),
    change: 'upgrade', mandatory: [], skippable: ['kubelets-too-old'],
  },
  // The upgrade paths of the current minors (issue 26): one minor at a time, 1.34 → 1.35 → 1.36 →
  // 1.37. Kubelet floors per target from the golden facts (test/fixtures/versions/1.3x.yaml skew:
  // MinimumKubeletVersion = getSkewedKubernetesVersion(-3): 1.32 for 1.35, 1.33 for 1.36, 1.34 for 1.37).
  {
    name: 'issue 26: v1.34 → v1.35 is allowed, kubelets down to 1.32 stay within the skew',
    input: base('v1.34.1', ['v1.34.1', 'v1.32.9'], 'v1.35.4'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'issue 26: v1.34 → v1.35 with a 1.31 kubelet (below 1.35\'s minimum 1.32) needs --force',
    input: base('v1.34.1', ['v1.34.1', 'v1.31.13'], 'v1.35.4'),
    change: 'upgrade', mandatory: [], skippable: ['kubelets-too-old'],
  },
  {
    name: 'issue 26: v1.34 → v1.36 skips a minor (fatal)',
    input: base('v1.34.1', ['v1.34.1'], 'v1.36.0'),
    change: 'upgrade', mandatory: ['minor-skipped'], skippable: [],
  },
  {
    name: 'issue 26: v1.35 → v1.36 is allowed with a 1.33 kubelet',
    input: base('v1.35.4', ['v1.35.4', 'v1.33.5'], 'v1.36.0'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'issue 26: v1.35 → v1.36 with a 1.32 kubelet (below 1.36\'s minimum 1.33) needs --force',
    input: base('v1.35.4', ['v1.35.4', 'v1.32.9'], 'v1.36.0'),
    change: 'upgrade', mandatory: [], skippable: ['kubelets-too-old'],
  },
  {
    name: 'issue 26: v1.36 → v1.37 is allowed with a 1.34 kubelet',
    input: base('v1.36.0', ['v1.36.0', 'v1.34.1'], 'v1.37.0'),
    change: 'upgrade', mandatory: [], skippable: [],
  },
  {
    name: 'issue 26: v1.36 → v1.37 with a 1.33 kubelet (below 1.37\'s minimum 1.34) needs --force',
    input: base('v1.36.0', ['v1.36.0', 'v1.33.5'], 'v1.37.0'),
    change: 'upgrade', mandatory: [], skippable: ['kubelets-too-old'],
  },
  {
    name: 'issue 26: v1.35 → v1.37 skips a minor (fatal)',
    input: base('v1.35.4', ['v1.35.4'], 'v1.37.0'),
    change: 'upgrade', mandatory: ['minor-skipped'], skippable: [],
  },
  {
    name: 'issue 36: v1.37 → a v1.38 pre-release without flags: an unstable version, which needs --allow-experimental-upgrades (1.38 has a preview row)',
    input: base('v1.37.0', ['v1.37.0'], 'v1.38.0-alpha.1'),
    change: 'upgrade', mandatory: [], skippable: ['unstable-not-allowed'],
  },
];

describe('checkVersionPolicy', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const verdict = checkVersionPolicy(c.input);
    expect(verdict.change).toBe(c.change);
    expect(verdict.mandatory.map((v) => v.code)).toEqual(c.mandatory);
    expect(verdict.skippable.map((v) => v.code)).toEqual(c.skippable);
    for (const v of [...verdict.mandatory, ...verdict.skippable]) {
      expect(v.message).not.toContain('\n');
      expect(v.message.length).toBeGreaterThan(10);
    }
  });

  it('names the too-old kubelet versions once each, sorted', () => {
    const verdict = checkVersionPolicy(base('v1.20.3', ['v1.19.8', 'v1.20.3', 'v1.18.0', 'v1.19.8'], 'v1.21.0'));
    expect(verdict.skippable).toHaveLength(1);
    expect(verdict.skippable[0]?.message).toContain('v1.18.0, v1.19.8');
    expect(verdict.skippable[0]?.message).not.toContain('v1.20.3');
  });

  it('points an unstable target at the flag that allows it', () => {
    const rc = checkVersionPolicy(base('v1.20.3', [], 'v1.21.0-rc.1')).skippable[0]?.message;
    const beta = checkVersionPolicy(base('v1.20.3', [], 'v1.21.0-beta.1')).skippable[0]?.message;
    expect(rc).toContain('--allow-release-candidate-upgrades');
    expect(beta).toContain('--allow-experimental-upgrades');
    expect(beta).not.toContain('--allow-release-candidate-upgrades');
  });
});

describe('v1.38 (issue 36: 1.38 exists only as alpha/beta/rc; tsadm has a preview row for named pre-releases)', () => {
  it('a final v1.38.0 is stopped with a message that names 1.38 as unreleased and 1.37 as the newest minor', () => {
    const verdict = checkVersionPolicy(base('v1.37.0', ['v1.37.0'], 'v1.38.0'));
    const beyond = verdict.mandatory.find((v) => v.code === 'beyond-newest-known');
    expect(beyond?.message).toBe('the version to upgrade to v1.38.0 is newer than v1.37, the newest minor tsadm knows: v1.38 is not released yet (only pre-releases exist)');
    const err = versionPolicyError(verdict, true);
    expect(err?.message).toBe('version policy: the version to upgrade to v1.38.0 is newer than v1.37, the newest minor tsadm knows: v1.38 is not released yet (only pre-releases exist)');
  });

  it('a named pre-release is judged as kubeadm judges an unstable version only', () => {
    const verdict = checkVersionPolicy(base('v1.37.0', ['v1.37.0'], 'v1.38.0-rc.0'));
    expect(verdict.skippable.map((v) => v.code)).toEqual(['unstable-not-allowed']);
    expect(checkVersionPolicy({ ...base('v1.37.0', ['v1.37.0'], 'v1.38.0-rc.0'), allowRCUpgrades: true }).skippable).toEqual([]);
  });

  it('names no release state for a minor further out (1.39)', () => {
    const verdict = checkVersionPolicy(base('v1.37.0', ['v1.37.0'], 'v1.39.0'));
    expect(verdict.mandatory.find((v) => v.code === 'beyond-newest-known')?.message).toBe('the version to upgrade to v1.39.0 is newer than v1.37, the newest minor tsadm knows');
  });
});

describe('kubeletSkewLimit', () => {
  it.each([
    [20, 1],
    [28, 1],
    [29, 3],
    [34, 3],
    // 1.35–1.37: getSkewedKubernetesVersion(-3) unchanged (golden facts' skew.minKubelet).
    [35, 3],
    [36, 3],
    [37, 3],
  ])('kubeadm 1.%i allows kubelets %i minor(s) behind', (minor, limit) => {
    expect(kubeletSkewLimit(minor)).toBe(limit);
  });
});

describe('versionPolicyError', () => {
  it('is undefined when nothing is violated', () => {
    expect(versionPolicyError(checkVersionPolicy(base('v1.20.2', ['v1.20.2'], 'v1.20.3')), false)).toBeUndefined();
  });

  it('stops on a skippable violation without --force and lets it through with --force', () => {
    const verdict = checkVersionPolicy(base('v1.20.3', ['v1.20.3'], 'v1.20.2'));
    const err = versionPolicyError(verdict, false);
    expect(err).toBeInstanceOf(TsadmError);
    expect(err?.code).toBe('E_PRECONDITION');
    expect(err?.message).toContain('downgrade');
    expect(err?.message).not.toContain('\n');
    expect(err?.hint).toContain('--force');
    expect(versionPolicyError(verdict, true)).toBeUndefined();
  });

  it('stops on a mandatory violation even with --force, and lists every violation in the details', () => {
    const verdict = checkVersionPolicy(base('v1.20.3', ['v1.20.3'], 'v1.22.0'));
    const forced = versionPolicyError(verdict, true);
    expect(forced?.message).toContain('skips a minor');
    expect(forced?.details).toHaveLength(1);
    expect(forced?.hint).not.toContain('--force');
    const unforced = versionPolicyError(verdict, false);
    expect(unforced?.message).toContain('(and 1 more)');
    expect(unforced?.details).toEqual([
      expect.stringMatching(/^fatal: .*skips a minor/),
      expect.stringMatching(/^needs --force: kubelets too old/),
    ]);
  });
});
