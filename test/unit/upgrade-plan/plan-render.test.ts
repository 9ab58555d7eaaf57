/**
 * The plan's text against kubeadm v1.20's own expectations (cmd/upgrade/plan_test.go,
 * TestPrintAvailableUpgrades "coredns" and "multiple kubelet versions"; the "Note: … update
 * kubeadm" line has no tsadm counterpart, one tsadm knows every minor) with "kubeadm" → "tsadm".
 */
import { toKyaml } from '../../../src/yaml/kyaml.js';
import type { AvailableUpgrade } from '../../../src/upgrade-plan/plan-compute.js';
import { configVersionStates, formatPlan } from '../../../src/upgrade-plan/plan-render.js';
import * as yaml from 'js-yaml';

const coredns: AvailableUpgrade = {
  description: 'coredns',
  targetVersion: 'v1.11.0',
  verdict: 'allowed',
  reasons: [],
  components: [
    { name: 'kubelet', currentVersion: '1 x v1.10.2', newVersion: 'v1.11.0' },
    { name: 'kube-apiserver', currentVersion: 'v1.10.2', newVersion: 'v1.11.0' },
    { name: 'kube-controller-manager', currentVersion: 'v1.10.2', newVersion: 'v1.11.0' },
    { name: 'kube-scheduler', currentVersion: 'v1.10.2', newVersion: 'v1.11.0' },
    { name: 'kube-proxy', currentVersion: 'v1.10.2', newVersion: 'v1.11.0' },
    { name: 'CoreDNS', currentVersion: '1.0.5', newVersion: '1.0.6' },
    { name: 'etcd', currentVersion: '3.1.11', newVersion: '3.2.18' },
  ],
};

const KUBEADM_COREDNS = `Components that must be upgraded manually after you have upgraded the control plane with 'kubeadm upgrade apply':
COMPONENT   CURRENT       AVAILABLE
kubelet     1 x v1.10.2   v1.11.0

Upgrade to the latest coredns:

COMPONENT                 CURRENT   AVAILABLE
kube-apiserver            v1.10.2   v1.11.0
kube-controller-manager   v1.10.2   v1.11.0
kube-scheduler            v1.10.2   v1.11.0
kube-proxy                v1.10.2   v1.11.0
CoreDNS                   1.0.5     1.0.6
etcd                      3.1.11    3.2.18

You can now apply the upgrade by executing the following command:

	kubeadm upgrade apply v1.11.0

_____________________________________________________________________

`;

/** kubeadm's printComponentConfigVersionStates for a kubeadm-made cluster (observed kubeadm output). */
const KUBEADM_CONFIG_STATES = `
The table below shows the current state of component configs as understood by this version of kubeadm.
Configs that have a "yes" mark in the "MANUAL UPGRADE REQUIRED" column require manual config upgrade or
resetting to kubeadm defaults before a successful upgrade can be performed. The version to manually
upgrade to is denoted in the "PREFERRED VERSION" column.

API GROUP                 CURRENT VERSION   PREFERRED VERSION   MANUAL UPGRADE REQUIRED
kubeproxy.config.k8s.io   v1alpha1          v1alpha1            no
kubelet.config.k8s.io     v1beta1           v1beta1             no
_____________________________________________________________________

`;

const states = configVersionStates({ kubeProxy: 'kubeproxy.config.k8s.io/v1alpha1', kubelet: 'kubelet.config.k8s.io/v1beta1' });

test('text: kubeadm\'s tables, apply line and component-config table', () => {
  const text = formatPlan({ clusterVersion: 'v1.10.2', availableUpgrades: [coredns], configVersions: states }, 'text');
  expect(text).toBe((KUBEADM_COREDNS + KUBEADM_CONFIG_STATES).replaceAll('kubeadm', 'tsadm'));
});

test('text: several kubelet versions share one kubelet row name (kubeadm\'s "multiple kubelet versions")', () => {
  const up: AvailableUpgrade = {
    ...coredns,
    description: 'version in the v1.9 series',
    targetVersion: 'v1.9.3',
    components: [
      { name: 'kubelet', currentVersion: '1 x v1.9.2', newVersion: 'v1.9.3' },
      { name: 'kubelet', currentVersion: '2 x v1.9.3', newVersion: 'v1.9.3' },
      { name: 'kube-apiserver', currentVersion: 'v1.9.2', newVersion: 'v1.9.3' },
    ],
  };
  const text = formatPlan({ clusterVersion: 'v1.9.2', availableUpgrades: [up], configVersions: [] }, 'text');
  expect(text.split('\n').slice(0, 5)).toEqual([
    "Components that must be upgraded manually after you have upgraded the control plane with 'tsadm upgrade apply':",
    'COMPONENT   CURRENT      AVAILABLE',
    'kubelet     1 x v1.9.2   v1.9.3',
    '            2 x v1.9.3   v1.9.3',
    '',
  ]);
  expect(text.endsWith('No information available on component configs.\n')).toBe(true);
});

test('text: without kubelet rows the output starts with kubeadm\'s empty line', () => {
  const up: AvailableUpgrade = { ...coredns, components: coredns.components.filter((c) => c.name !== 'kubelet') };
  expect(formatPlan({ clusterVersion: 'v1.10.2', availableUpgrades: [up], configVersions: [] }, 'text').startsWith('\nUpgrade to the latest coredns:\n\n')).toBe(true);
});

test('text: a refused upgrade says why and offers no command; a --force one says which flag', () => {
  const refused: AvailableUpgrade = { ...coredns, verdict: 'refused', reasons: ['the version to upgrade to v1.22.0 skips a minor'] };
  const text = formatPlan({ clusterVersion: 'v1.10.2', availableUpgrades: [refused], configVersions: [] }, 'text');
  expect(text).toContain("tsadm's version policy refuses this upgrade:\n\t- the version to upgrade to v1.22.0 skips a minor\n");
  expect(text).not.toContain('\ttsadm upgrade apply');
  const forced = formatPlan({ clusterVersion: 'v1.10.2', availableUpgrades: [{ ...coredns, verdict: 'needs-force', reasons: ['a downgrade'] }], configVersions: [] }, 'text');
  expect(forced).toContain('\ttsadm upgrade apply v1.11.0 --force\n');
});

test('text: a pre-release target carries kubeadm\'s unstable flag on the apply line', () => {
  const rc: AvailableUpgrade = { ...coredns, targetVersion: 'v1.11.0-rc.1', unstableFlag: '--allow-release-candidate-upgrades' };
  expect(formatPlan({ clusterVersion: 'v1.10.2', availableUpgrades: [rc], configVersions: [] }, 'text')).toContain('\ttsadm upgrade apply v1.11.0-rc.1 --allow-release-candidate-upgrades\n');
});

test('json and yaml: one UpgradePlan document of kubeadm\'s output API', () => {
  const report = { clusterVersion: 'v1.10.2', availableUpgrades: [coredns], configVersions: states };
  const json = JSON.parse(formatPlan(report, 'json')) as Record<string, unknown>;
  expect(json).toMatchObject({
    kind: 'UpgradePlan',
    apiVersion: 'output.kubeadm.k8s.io/v1alpha3',
    availableUpgrades: [{ description: 'coredns', targetVersion: 'v1.11.0', verdict: 'allowed', reasons: [] }],
    configVersions: [
      { group: 'kubeproxy.config.k8s.io', currentVersion: 'v1alpha1', preferredVersion: 'v1alpha1', manualUpgradeRequired: false },
      { group: 'kubelet.config.k8s.io', currentVersion: 'v1beta1', preferredVersion: 'v1beta1', manualUpgradeRequired: false },
    ],
  });
  expect((json.availableUpgrades as { components: unknown[] }[])[0]?.components[0]).toEqual({ name: 'kubelet', currentVersion: '1 x v1.10.2', newVersion: 'v1.11.0' });
  expect(yaml.load(formatPlan(report, 'yaml'))).toEqual(json);
});

test('config states: a missing config prints "-", another version needs a manual upgrade', () => {
  expect(configVersionStates({ kubelet: 'kubelet.config.k8s.io/v1alpha9' })).toEqual([
    { group: 'kubeproxy.config.k8s.io', currentVersion: '', preferredVersion: 'v1alpha1', manualUpgradeRequired: false },
    { group: 'kubelet.config.k8s.io', currentVersion: 'v1alpha9', preferredVersion: 'v1beta1', manualUpgradeRequired: true },
  ]);
});

test('kyaml (kubeadm 1.35+): the UpgradePlan object of -o json, rendered as KYAML in the same field order', () => {
  const report = { clusterVersion: 'v1.10.2', availableUpgrades: [coredns], configVersions: states };
  const json = JSON.parse(formatPlan(report, 'json')) as Record<string, unknown>;
  const out = formatPlan(report, 'kyaml');
  expect(out).toBe(toKyaml(json));
  expect(out.startsWith('---\n{\n')).toBe(true);
});
