/**
 * `tsadm upgrade plan [version]`: read the cluster (cluster-view.ts, plan-read.ts), compute the
 * offers (plan-compute.ts), print them (plan-render.ts). It only reads: GETs through the API seam
 * and file reads through the host seam; nothing is written, to the cluster or the machine.
 */
import type { ResolvedUpgradeConfig } from '../config/types.js';
import { DEFAULT_RETRY } from '../kube/retry.js';
import { TSADM_VERSION } from '../version.js';
import type { PhaseLogger } from '../log/logger.js';
import type { Runtime } from '../run/runtime.js';
import { readUpgradeCluster } from './cluster-view.js';
import { computeUpgrades } from './plan-compute.js';
import { readPlanInputs } from './plan-read.js';
import { formatPlan, type PlanFormat } from './plan-render.js';

export interface PlanOptions {
  readonly cfg: ResolvedUpgradeConfig;
  readonly kubeconfigPath: string;
  readonly format: PlanFormat;
  /** --etcd-upgrade (default true): false leaves etcd out of the plan. */
  readonly etcdUpgrade?: boolean;
  readonly hostname: string;
  /** Where the plan goes (stdout); progress lines go through the runtime's reporter. */
  readonly out: NodeJS.WritableStream;
}

export async function runUpgradePlan(rt: Runtime, o: PlanOptions): Promise<void> {
  const { upgrade } = o.cfg;
  rt.log.info('Making sure the configuration is correct:', { prefix: 'upgrade/config' });
  const api = await rt.api.open({ path: o.kubeconfigPath }, { log: rt.log, retry: { ...DEFAULT_RETRY, deadlineMs: upgrade.kubernetesAPICallMs } });
  const view = await readUpgradeCluster(api, rt.host, o.hostname);
  const clusterText = o.cfg.clusterOverride?.text ?? view.texts.clusterConfigurationYaml;
  if (upgrade.printConfig) printConfiguration(rt.log, clusterText);
  const reading = await readPlanInputs(api, rt.host, view, clusterText);
  rt.log.info(`Cluster version: ${view.serverVersion}`, { prefix: 'upgrade/versions' });
  rt.log.info(`tsadm version: v${TSADM_VERSION}`, { prefix: 'upgrade/versions' });
  const upgrades = computeUpgrades(reading.versions, {
    ...(upgrade.kubernetesVersion !== undefined ? { version: upgrade.kubernetesVersion } : {}),
    allowExperimentalUpgrades: upgrade.allowExperimentalUpgrades,
    allowRCUpgrades: upgrade.allowRCUpgrades,
    etcdUpgrade: o.etcdUpgrade ?? upgrade.etcdUpgrade,
  });
  for (const up of upgrades) rt.log.info(`Target ${up.description}: ${up.targetVersion}`, { prefix: 'upgrade/versions' });
  o.out.write(formatPlan({ clusterVersion: view.serverVersion, availableUpgrades: upgrades, configVersions: reading.configVersions }, o.format));
}

/** kubeadm's printConfiguration (plan and apply --print-config): the ClusterConfiguration used, each line tab-indented. */
export function printConfiguration(log: PhaseLogger, text: string): void {
  log.info('Configuration used:', { prefix: 'upgrade/config' });
  for (const line of text.replace(/\n$/, '').split('\n')) log.info(`\t${line}`);
}
