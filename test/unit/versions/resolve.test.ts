import { TsadmError } from '../../../src/errors.js';
import { DEFAULT_KUBERNETES_VERSION, isReleasedMinor, isSupportedMinor, minorOf, normalizeKubernetesVersion, prereleaseWarning, profileFor, supportedProfile } from '../../../src/versions/resolve.js';

function errorOf(f: () => unknown): TsadmError {
  try {
    f();
  } catch (err) {
    return err as TsadmError;
  }
  throw new Error('expected an error');
}

describe('normalizeKubernetesVersion', () => {
  test.each([
    ['1.20.2', 'v1.20.2'],
    ['v1.20.2', 'v1.20.2'],
    [' v1.31.0 ', 'v1.31.0'],
    ['1.34.0-rc.1', 'v1.34.0-rc.1'],
  ])('%j → %s', (input, expected) => {
    expect(normalizeKubernetesVersion(input)).toBe(expected);
  });

  test('a minor or a stable-<minor> label picks a patch of that minor; stable and latest the newest minor', () => {
    for (const input of ['1.24', 'v1.24', 'stable-1.24']) expect(minorOf(normalizeKubernetesVersion(input))).toBe('1.24');
    for (const input of ['stable', 'latest', 'stable-1']) expect(normalizeKubernetesVersion(input)).toBe(DEFAULT_KUBERNETES_VERSION);
    // Kubernetes supports the three newest minors (1.35, 1.36, 1.37 on 2026-11-27); the default is the newest.
    expect(minorOf(DEFAULT_KUBERNETES_VERSION)).toBe('1.37');
  });

  test('a minor outside 1.20–1.37 is refused with the supported range; garbage is refused as invalid', () => {
    for (const input of ['1.19', 'v1.39', 'stable-1.39', 'v1.38']) {
      const err = errorOf(() => normalizeKubernetesVersion(input));
      expect(err).toBeInstanceOf(TsadmError);
      expect(err.code).toBe('E_CONFIG_INVALID');
    }
    expect(errorOf(() => normalizeKubernetesVersion('1.19')).message).toContain('tsadm supports v1.20 to v1.37');
    expect(errorOf(() => normalizeKubernetesVersion('one.two')).message).toBe('invalid Kubernetes version "one.two"');
  });
});

describe('profileFor', () => {
  test('the profile of a version is its minor\'s', () => {
    expect(profileFor('v1.24.0').minor).toBe('1.24');
    expect(profileFor('v1.34.1').minor).toBe('1.34');
    for (const m of ['1.35', '1.36', '1.37']) expect(profileFor(`v${m}.2`).minor).toBe(m);
  });

  test('a named 1.38 pre-release (1.38 is in alpha) gets the 1.38 preview row, with a warning; v1.38.0, 1.38 and stable-1.38 are refused until release day', () => {
    for (const v of ['v1.38.0-alpha.2', 'v1.38.0-beta.0', 'v1.38.0-rc.1']) {
      expect(normalizeKubernetesVersion(v)).toBe(v);
      expect(profileFor(v).minor).toBe('1.38');
      expect(supportedProfile(v)?.minor).toBe('1.38');
      expect(prereleaseWarning(v)).toBe(`Kubernetes ${v} is a pre-release of v1.38, which is not released yet: tsadm's facts of v1.38 (images, flags, objects) come from its pre-release notes and may still change before v1.38.0`);
    }
    for (const v of ['v1.38.0', 'v1.38.1']) {
      const err = errorOf(() => profileFor(v));
      expect(err.code).toBe('E_CONFIG_INVALID');
      expect(err.message).toBe(`Kubernetes version "${v}" is not supported: v1.38 is not released yet (only pre-releases exist); the newest minor tsadm supports is v1.37`);
      expect(err.hint).toContain('name a v1.38 pre-release (such as v1.38.0-rc.0)');
      expect(supportedProfile(v)).toBeUndefined();
    }
    for (const input of ['1.38', 'v1.38', 'stable-1.38', 'latest-1.38']) {
      expect(errorOf(() => normalizeKubernetesVersion(input)).message).toContain('v1.38 is not released yet (only pre-releases exist); the newest minor tsadm supports is v1.37');
    }
    // The default and the labels stay on 1.37; a 1.37 version carries no warning.
    expect(normalizeKubernetesVersion('stable')).toBe(DEFAULT_KUBERNETES_VERSION);
    expect(prereleaseWarning(DEFAULT_KUBERNETES_VERSION)).toBeUndefined();
    expect(prereleaseWarning('v1.37.0-rc.0')).toBeUndefined();
  });

  test('a full version of an unsupported minor is refused (not silently the nearest profile)', () => {
    expect(errorOf(() => profileFor('v1.19.16')).message).toContain('"v1.19.16" is not supported');
    expect(errorOf(() => profileFor('v1.39.0')).code).toBe('E_CONFIG_INVALID');
    expect(errorOf(() => profileFor('v1.39.0-alpha.0')).message).toContain('tsadm supports v1.20 to v1.37');
    // 1.38 has a (preview) row but is not released.
    expect([isSupportedMinor('1.20'), isSupportedMinor('1.34'), isSupportedMinor('1.37'), isSupportedMinor('1.38'), isSupportedMinor('1.2')]).toEqual([true, true, true, true, false]);
    expect([isReleasedMinor('1.37'), isReleasedMinor('1.38'), isReleasedMinor('1.39')]).toEqual([true, false, false]);
  });
});

describe('patch-precise facts (src/versions/table.ts PATCH_CHANGES): kubeadm PR #138957 from v1.33.12, v1.34.8, v1.35.5, v1.36.1 and v1.37.0', () => {
  const facts = (version: string): { org: string | undefined; binding: boolean } => {
    const p = profileFor(version);
    return { org: p.pki.apiserverKubeletClientOrg, binding: p.controlPlane.kubeletApiAdminBinding };
  };
  const before = { org: 'kubeadm:cluster-admins', binding: false };
  const after = { org: undefined, binding: true };

  test.each([
    ['v1.33.11', before], ['v1.33.12', after],
    ['v1.34.7', before], ['v1.34.8', after],
    ['v1.35.0', before], ['v1.35.4', before], ['v1.35.5-rc.0', before], ['v1.35.5', after], ['v1.35.8', after],
    ['v1.36.0', before], ['v1.36.1', after], ['v1.36.2', after],
    ['v1.37.0', after],
    // Minors whose branches got no cherry-pick keep their row whatever the patch.
    ['v1.32.99', before], ['v1.31.13', before],
  ])('%s', (version, want) => {
    expect(facts(version)).toEqual(want);
  });

  test('only the facts of the patch change differ from the minor row; one frozen profile per version', () => {
    const row = profileFor('v1.35.4');
    const patched = profileFor('v1.35.5');
    expect(patched).toBe(profileFor('v1.35.5'));
    expect(Object.isFrozen(patched)).toBe(true);
    expect(patched.minor).toBe('1.35');
    const differing = (Object.keys(row) as Array<keyof typeof row>).filter((k) => JSON.stringify(row[k]) !== JSON.stringify(patched[k]));
    expect(differing.sort()).toEqual(['controlPlane', 'pki']);
    expect({ ...patched.controlPlane, kubeletApiAdminBinding: false }).toEqual(row.controlPlane);
    expect(supportedProfile('v1.35.5')).toBe(patched);
    expect(supportedProfile('v1.35.4')).toBe(row);
  });
});

describe('image tags of patch releases (PATCH_CHANGES, from the kubeadm images list of each release as minikube records it)', () => {
  const images = (v: string) => { const i = profileFor(v).images; return [i.etcdTag, i.corednsTag, i.pauseTag]; };
  test.each([
    ['v1.22.16', '3.5.0-0'], ['v1.22.17', '3.5.6-0'],
    ['v1.23.13', '3.5.1-0'], ['v1.23.14', '3.5.5-0'], ['v1.23.15', '3.5.6-0'],
    ['v1.24.7', '3.5.3-0'], ['v1.24.8', '3.5.5-0'], ['v1.24.9', '3.5.6-0'],
    ['v1.25.3', '3.5.4-0'], ['v1.25.4', '3.5.5-0'], ['v1.25.5', '3.5.6-0'], ['v1.25.14', '3.5.6-0'], ['v1.25.15', '3.5.9-0'],
    ['v1.26.9', '3.5.6-0'], ['v1.26.10', '3.5.9-0'], ['v1.26.13', '3.5.10-0'],
    ['v1.27.6', '3.5.7-0'], ['v1.27.7', '3.5.9-0'], ['v1.27.10', '3.5.10-0'], ['v1.27.12', '3.5.12-0'],
    ['v1.28.5', '3.5.9-0'], ['v1.28.6', '3.5.10-0'], ['v1.28.8', '3.5.12-0'], ['v1.28.14', '3.5.15-0'],
    ['v1.29.2', '3.5.10-0'], ['v1.29.3', '3.5.12-0'], ['v1.29.8', '3.5.12-0'], ['v1.29.9', '3.5.15-0'],
    ['v1.33.5', '3.5.21-0'], ['v1.33.6', '3.5.24-0'],
  ])('%s: etcd %s', (version, etcd) => {
    expect(images(version)[0]).toBe(etcd);
  });

  test('CoreDNS v1.11.3 from v1.30.5 and v1.31.1 (PR #126449, cherry-pick #126796); v1.31.0 had v1.11.1', () => {
    expect(images('v1.30.4')).toEqual(['3.5.12-0', 'v1.11.1', '3.9']);
    expect(images('v1.30.5')).toEqual(['3.5.15-0', 'v1.11.3', '3.9']);
    expect(images('v1.31.0')).toEqual(['3.5.15-0', 'v1.11.1', '3.10']);
    expect(images('v1.31.1')).toEqual(['3.5.15-0', 'v1.11.3', '3.10']);
  });
});

