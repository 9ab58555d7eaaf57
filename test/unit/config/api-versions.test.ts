/**
 * Which kubeadm.k8s.io API versions kubeadm of each minor reads, and what it says about the rest.
 * The facts, from kubeadm's source and release notes: v1beta3 is deprecated from 1.31 (PR #125029)
 * and removed in 1.37 (PR #136016: "The 1.35 kubeadm binary can be used to migrate to v1beta4");
 * kubeadm 1.27+ no longer reads v1beta2 (tsadm reads it up to 1.34 for its 1.20/1.21 users, a
 * documented difference); the deprecation warning is util/config's validateSupportedVersion text
 * with tsadm's command name. The profiles are the version table's rows under test.
 */
import { expect } from '@jest/globals';
import { apiVersionFindings, refuseUnreadApiVersions, type ApiVersionUse } from '../../../src/config/api-versions.js';
import { TsadmError } from '../../../src/errors.js';
import { profileFor } from '../../../src/versions/resolve.js';

const target = (kubernetesVersion: string, source?: string) => ({ kubernetesVersion, profile: profileFor(kubernetesVersion), ...(source !== undefined ? { source } : {}) });
const V3: ApiVersionUse[] = [{ kind: 'InitConfiguration', version: 'v1beta3' }, { kind: 'ClusterConfiguration', version: 'v1beta3' }];
const deprecated = (kind: string): string =>
  `your configuration file uses a deprecated API spec: "kubeadm.k8s.io/v1beta3" (kind: "${kind}"). Please use 'tsadm config migrate --old-config old-config-file --new-config new-config-file', which will write the new, similar spec using a newer API version.`;

describe('kubeadm.k8s.io versions per target minor', () => {
  test('1.37 reads only v1beta4: v1beta3 is refused, once for the file, naming the kinds and tsadm config migrate', () => {
    expect(apiVersionFindings(V3, target('v1.37.0', 'kubeadm.yaml'))).toEqual({
      errors: ["kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (InitConfiguration, ClusterConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config kubeadm.yaml --new-config NEW'"],
      warnings: [],
    });
  });

  test('without a file name the hint says FILE', () => {
    expect(apiVersionFindings([{ kind: 'JoinConfiguration', version: 'v1beta3' }], target('v1.37.0')).errors).toEqual([
      "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (JoinConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config FILE --new-config NEW'",
    ]);
  });

  test.each(['v1.35.0', 'v1.36.0'])('%s reads v1beta3, deprecated: one warning per document, as kubeadm', (version) => {
    expect(apiVersionFindings(V3, target(version))).toEqual({ errors: [], warnings: [deprecated('InitConfiguration'), deprecated('ClusterConfiguration')] });
  });

  test('allowDeprecated (config validate --allow-deprecated-api) silences the warning, not the refusal', () => {
    expect(apiVersionFindings(V3, target('v1.36.0'), true)).toEqual({ errors: [], warnings: [] });
    expect(apiVersionFindings(V3, target('v1.37.0'), true).errors).toHaveLength(1);
  });

  test('1.35 and 1.36 no longer read v1beta2 (kubeadm since 1.27); the message lists what they read', () => {
    expect(apiVersionFindings([{ kind: 'ClusterConfiguration', version: 'v1beta2' }], target('v1.36.0', 'old.yaml')).errors).toEqual([
      "kubeadm.k8s.io/v1beta2 is not supported for Kubernetes v1.36.0 (ClusterConfiguration): kubeadm 1.36 reads kubeadm.k8s.io/v1beta3 and kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config old.yaml --new-config NEW'",
    ]);
  });

  test('a file mixing versions gets one line per refused version', () => {
    const uses: ApiVersionUse[] = [{ kind: 'ClusterConfiguration', version: 'v1beta2' }, { kind: 'InitConfiguration', version: 'v1beta3' }, { kind: 'JoinConfiguration', version: 'v1beta4' }];
    expect(apiVersionFindings(uses, target('v1.37.0')).errors).toEqual([
      "kubeadm.k8s.io/v1beta2 is not supported for Kubernetes v1.37.0 (ClusterConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config FILE --new-config NEW'",
      "kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (InitConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config FILE --new-config NEW'",
    ]);
  });

  test.each(['v1.20.2', 'v1.30.14', 'v1.34.1'])('%s: v1beta2, v1beta3 and v1beta4 are read without a word (tsadm before issue 26)', (version) => {
    const all: ApiVersionUse[] = [...V3, { kind: 'ClusterConfiguration', version: 'v1beta2' }, { kind: 'JoinConfiguration', version: 'v1beta4' }];
    expect(apiVersionFindings(all, target(version))).toEqual({ errors: [], warnings: [] });
  });

  test('v1beta4 is read by every minor, 1.37 included', () => {
    for (const version of ['v1.20.2', 'v1.35.0', 'v1.36.0', 'v1.37.0']) {
      expect(apiVersionFindings([{ kind: 'InitConfiguration', version: 'v1beta4' }], target(version))).toEqual({ errors: [], warnings: [] });
    }
  });
});

describe('refuseUnreadApiVersions (join, after discovery)', () => {
  test('a version the cluster\'s minor no longer reads is E_CONFIG_INVALID with the line', () => {
    let caught: unknown;
    try {
      refuseUnreadApiVersions([{ kind: 'JoinConfiguration', version: 'v1beta3' }], target('v1.37.0', 'join.yaml'));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TsadmError);
    expect((caught as TsadmError).code).toBe('E_CONFIG_INVALID');
    expect((caught as TsadmError).message).toBe("kubeadm.k8s.io/v1beta3 is not supported for Kubernetes v1.37.0 (JoinConfiguration): kubeadm 1.37 reads only kubeadm.k8s.io/v1beta4; convert the file with 'tsadm config migrate --old-config join.yaml --new-config NEW'");
  });

  test('a deprecated version is returned as a warning; an older cluster reads v1beta3 silently', () => {
    expect(refuseUnreadApiVersions([{ kind: 'JoinConfiguration', version: 'v1beta3' }], target('v1.35.0'))).toEqual([deprecated('JoinConfiguration')]);
    expect(refuseUnreadApiVersions([{ kind: 'JoinConfiguration', version: 'v1beta3' }], target('v1.30.14'))).toEqual([]);
  });
});
