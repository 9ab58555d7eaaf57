/**
 * How `tsadm upgrade plan` prints, pure. The text is kubeadm's (cmd/upgrade/plan.go
 * printUpgradePlan and printComponentConfigVersionStates: tabwriter minwidth 10, padding 3, the
 * kubelet table first, the separator line), with "tsadm" for "kubeadm" and the version policy's
 * verdict where kubeadm only prints the apply command. json and yaml are kubeadm's
 * output.kubeadm.k8s.io/v1alpha3 UpgradePlan (availableUpgrades, configVersions) plus tsadm's
 * fields `targetVersion`, `verdict` and `reasons` on each upgrade.
 */
import { KUBELET_API_VERSION, KUBE_PROXY_API_VERSION } from '../config/schema-kubeadm.js';
import { tabwrite } from '../token/list-format.js';
import { toKubeYaml } from '../yaml/write.js';
import { toKyaml } from '../yaml/kyaml.js';
import type { AvailableUpgrade } from './plan-compute.js';

export type PlanFormat = 'text' | 'json' | 'yaml' | 'kyaml';

const OUTPUT_API_VERSION = 'output.kubeadm.k8s.io/v1alpha3';
const TAB = { minwidth: 10, padding: 3 };
const SEPARATOR = '_____________________________________________________________________\n\n';

/** kubeadm's output API ComponentConfigVersionState. */
export interface ComponentConfigVersionState {
  readonly group: string;
  /** Empty when the cluster has no such config (printed "-"). */
  readonly currentVersion: string;
  readonly preferredVersion: string;
  readonly manualUpgradeRequired: boolean;
}

export interface UpgradePlanReport {
  readonly clusterVersion: string;
  readonly availableUpgrades: readonly AvailableUpgrade[];
  readonly configVersions: readonly ComponentConfigVersionState[];
}

/**
 * kubeadm's componentconfigs.GetVersionStates, from the apiVersion of the kube-proxy and kubelet
 * configs stored in the cluster (undefined: not there). kubeadm lists kube-proxy, then the kubelet
 * (its `known` handlers); a config in another version than the one kubeadm writes needs a manual
 * upgrade.
 */
export function configVersionStates(stored: { readonly kubeProxy?: string; readonly kubelet?: string }): ComponentConfigVersionState[] {
  return [
    state(KUBE_PROXY_API_VERSION, stored.kubeProxy),
    state(KUBELET_API_VERSION, stored.kubelet),
  ];
}

function state(preferred: string, current: string | undefined): ComponentConfigVersionState {
  const [group = '', preferredVersion = ''] = preferred.split('/');
  const currentVersion = current === undefined ? '' : (current.split('/')[1] ?? '');
  return { group, currentVersion, preferredVersion, manualUpgradeRequired: currentVersion !== '' && currentVersion !== preferredVersion };
}

export function formatPlan(report: UpgradePlanReport, format: PlanFormat): string {
  switch (format) {
    case 'text':
      return planText(report);
    case 'json':
      return `${JSON.stringify(planObject(report), null, 4)}\n`;
    case 'yaml':
      return toKubeYaml(planObject(report));
    case 'kyaml':
      return toKyaml(planObject(report));
  }
}

function planText(report: UpgradePlanReport): string {
  if (report.availableUpgrades.length === 0) {
    return `[upgrade/versions] Nothing to upgrade: the cluster is at ${report.clusterVersion} and tsadm knows no newer patch of its minor nor a next minor to offer.\n`;
  }
  return report.availableUpgrades.map(upgradeText).join('') + configStatesText(report.configVersions);
}

/** kubeadm's printUpgradePlan for one upgrade. */
function upgradeText(up: AvailableUpgrade): string {
  let out = '';
  const kubelets = up.components.filter((c) => c.name === 'kubelet');
  const others = up.components.filter((c) => c.name !== 'kubelet');
  if (kubelets.length > 0) {
    out += "Components that must be upgraded manually after you have upgraded the control plane with 'tsadm upgrade apply':\n";
    out += tabwrite([['COMPONENT', 'CURRENT', 'AVAILABLE'], ...kubelets.map((c, i) => [i === 0 ? c.name : '', c.currentVersion, c.newVersion])], TAB);
  }
  // kubeadm flushes the (possibly empty) kubelet table and prints an empty line before the next one.
  out += '\n';
  out += `Upgrade to the latest ${up.description}:\n\n`;
  out += tabwrite([['COMPONENT', 'CURRENT', 'AVAILABLE'], ...others.map((c) => [c.name, c.currentVersion, c.newVersion])], TAB);
  out += '\n';
  out += verdictText(up);
  return out + SEPARATOR;
}

function verdictText(up: AvailableUpgrade): string {
  const command = `\ttsadm upgrade apply ${up.targetVersion}${up.unstableFlag ? ` ${up.unstableFlag}` : ''}`;
  const reasons = up.reasons.map((r) => `\t- ${r}\n`).join('');
  switch (up.verdict) {
    case 'allowed':
      return `You can now apply the upgrade by executing the following command:\n\n${command}\n\n`;
    case 'needs-force':
      return `tsadm's version policy lets this upgrade through only with --force:\n${reasons}\nYou can apply it anyway (not recommended) by executing the following command:\n\n${command} --force\n\n`;
    case 'refused':
      return `tsadm's version policy refuses this upgrade:\n${reasons}\n`;
    case 'nothing-to-do':
      return `The cluster is already at ${up.targetVersion}: there is nothing to upgrade.\n\n`;
  }
}

/** kubeadm's printComponentConfigVersionStates (its dedent.Dedent text keeps the leading and trailing newline). */
function configStatesText(states: readonly ComponentConfigVersionState[]): string {
  if (states.length === 0) return 'No information available on component configs.\n';
  const intro = [
    '',
    'The table below shows the current state of component configs as understood by this version of tsadm.',
    'Configs that have a "yes" mark in the "MANUAL UPGRADE REQUIRED" column require manual config upgrade or',
    'resetting to tsadm defaults before a successful upgrade can be performed. The version to manually',
    'upgrade to is denoted in the "PREFERRED VERSION" column.',
    '',
    '',
  ].join('\n');
  const table = tabwrite([
    ['API GROUP', 'CURRENT VERSION', 'PREFERRED VERSION', 'MANUAL UPGRADE REQUIRED'],
    ...states.map((s) => [s.group, s.currentVersion || '-', s.preferredVersion || '-', s.manualUpgradeRequired ? 'yes' : 'no']),
  ], TAB);
  return `${intro}${table}${SEPARATOR}`;
}

/** kubeadm's output API UpgradePlan (field order as Go marshals it) plus tsadm's fields. */
function planObject(report: UpgradePlanReport): Record<string, unknown> {
  return {
    kind: 'UpgradePlan',
    apiVersion: OUTPUT_API_VERSION,
    availableUpgrades: report.availableUpgrades.map((up) => ({
      description: up.description,
      components: up.components.map((c) => ({ name: c.name, currentVersion: c.currentVersion, newVersion: c.newVersion })),
      targetVersion: up.targetVersion,
      verdict: up.verdict,
      reasons: [...up.reasons],
    })),
    configVersions: report.configVersions.map((s) => ({
      group: s.group,
      currentVersion: s.currentVersion,
      preferredVersion: s.preferredVersion,
      manualUpgradeRequired: s.manualUpgradeRequired,
    })),
  };
}
