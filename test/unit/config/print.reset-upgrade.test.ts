/**
 * `config print reset-defaults` and `upgrade-defaults`: the expected documents are derived by hand
 * from kubeadm's source (v1beta4 defaults.go SetDefaults_ResetConfiguration,
 * SetDefaults_UpgradeConfiguration, SetDefaults_Timeouts with constants.go's timeouts;
 * util/config/resetconfiguration.go SetResetDynamicDefaults with CRI detection skipped →
 * constants.DefaultCRISocket; types.go's json tags for what is omitted; keys sorted as
 * sigs.k8s.io/yaml writes them).
 */
import { expect } from '@jest/globals';
import { printResetDefaults, printUpgradeDefaults } from '../../../src/config/print.js';
import { TsadmError } from '../../../src/errors.js';

function expectTsadmError(fn: () => unknown, code: string, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(TsadmError);
  expect((caught as TsadmError).code).toBe(code);
  expect((caught as TsadmError).message).toMatch(message);
}

const TIMEOUTS = `timeouts:
  controlPlaneComponentHealthCheck: 4m0s
  discovery: 5m0s
  etcdAPICall: 2m0s
  kubeletHealthCheck: 4m0s
  kubernetesAPICall: 1m0s
  tlsBootstrap: 5m0s
  upgradeManifests: 5m0s
`;

describe('print reset-defaults', () => {
  test('the default version prints kubeadm 1.31+\'s defaulted ResetConfiguration', () => {
    expect(printResetDefaults()).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
certificatesDir: /etc/kubernetes/pki
criSocket: unix:///var/run/containerd/containerd.sock
kind: ResetConfiguration
${TIMEOUTS}`);
  });

  test('1.31 (v1beta4 GA) prints the same document', () => {
    expect(printResetDefaults({ version: '1.31.0' })).toBe(printResetDefaults());
  });

  test('before 1.31 the kind does not exist in the config API of that version', () => {
    expectTsadmError(() => printResetDefaults({ version: '1.30.0' }), 'E_USAGE', /ResetConfiguration does not exist in kubeadm.k8s.io\/v1beta3/);
  });
});

describe('print upgrade-defaults', () => {
  const section = `  certificateRenewal: true
  etcdUpgrade: true
  imagePullPolicy: IfNotPresent
  imagePullSerial: true
`;

  test('1.33+ (PR #130023) defaults plan.etcdUpgrade to true', () => {
    const expected = `apiVersion: kubeadm.k8s.io/v1beta4
apply:
${section}diff: {}
kind: UpgradeConfiguration
node:
${section}plan:
  etcdUpgrade: true
${TIMEOUTS}`;
    expect(printUpgradeDefaults({ version: '1.33.0' })).toBe(expected);
    expect(printUpgradeDefaults()).toBe(expected);
  });

  test('1.31 and 1.32 have no plan.etcdUpgrade: plan is empty', () => {
    const expected = `apiVersion: kubeadm.k8s.io/v1beta4
apply:
${section}diff: {}
kind: UpgradeConfiguration
node:
${section}plan: {}
${TIMEOUTS}`;
    expect(printUpgradeDefaults({ version: '1.31.2' })).toBe(expected);
    expect(printUpgradeDefaults({ version: '1.32.0' })).toBe(expected);
  });

  // kubeadm 1.35–1.37 changed neither kind's defaults (no such change among their kubeadm PRs);
  // printed without --kubernetes-version, the default target is 1.37.
  test.each(['1.35.0', '1.36.0', '1.37.0'])('%s prints the 1.33+ documents', (version) => {
    expect(printUpgradeDefaults({ version })).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
apply:
${section}diff: {}
kind: UpgradeConfiguration
node:
${section}plan:
  etcdUpgrade: true
${TIMEOUTS}`);
    expect(printResetDefaults({ version })).toBe(`apiVersion: kubeadm.k8s.io/v1beta4
certificatesDir: /etc/kubernetes/pki
criSocket: unix:///var/run/containerd/containerd.sock
kind: ResetConfiguration
${TIMEOUTS}`);
  });

  test('before 1.31 the kind does not exist', () => {
    expectTsadmError(() => printUpgradeDefaults({ version: '1.22.0' }), 'E_USAGE', /UpgradeConfiguration does not exist in kubeadm.k8s.io\/v1beta3/);
  });
});
