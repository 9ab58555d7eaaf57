/**
 * The configuration of `tsadm upgrade apply|node|plan|diff`: the flags, and (v1beta4) the
 * UpgradeConfiguration section of the command, flags winning as in kubeadm.
 */
import type { FlagValues } from '../cli/flags.js';
import { TsadmError } from '../errors.js';
import { flagList } from './flag-overlay.js';
import type { ResolvedUpgradeConfig, UpgradeCommand } from './types.js';

export interface UpgradeConfigInput {
  /** Content of the --config file, read by the caller. */
  readonly configText?: string;
  readonly configPath?: string;
  /** Only the flags the user set. */
  readonly flags: FlagValues;
  /** The [version] argument of apply, plan and diff. */
  readonly version?: string;
}

/** kubeadm's UpgradeManifestTimeout (5 min) and defaultKubernetesAPICallTimeout (1 min). */
const DEFAULT_UPGRADE_MANIFESTS_MS = 5 * 60_000;
const DEFAULT_API_CALL_MS = 60_000;

export function resolveUpgradeConfig(input: UpgradeConfigInput, command: UpgradeCommand): ResolvedUpgradeConfig {
  if (input.configText !== undefined) {
    throw new TsadmError('E_CONFIG_INVALID', `upgrade ${command} does not read --config yet`, { hint: 'pass the settings as flags' });
  }
  const f = input.flags;
  const bool = (name: keyof FlagValues, dflt: boolean): boolean => {
    const v = f[name];
    return typeof v === 'boolean' ? v : dflt;
  };
  const ignore = (flagList(f, 'ignore-preflight-errors') ?? []).map((s) => s.toLowerCase());
  return {
    kind: 'upgrade',
    command,
    upgrade: {
      kubernetesVersion: input.version,
      allowExperimentalUpgrades: bool('allow-experimental-upgrades', false),
      allowRCUpgrades: bool('allow-release-candidate-upgrades', false),
      certificateRenewal: bool('certificate-renewal', true),
      etcdUpgrade: bool('etcd-upgrade', true),
      force: bool('force', false),
      yes: bool('yes', false),
      dryRun: bool('dry-run', false),
      ignorePreflightErrors: [...new Set(ignore)].sort(),
      skipPhases: flagList(f, 'skip-phases') ?? [],
      ...(typeof f.patches === 'string' ? { patches: { directory: f.patches } } : {}),
      upgradeManifestsTimeoutMs: DEFAULT_UPGRADE_MANIFESTS_MS,
      kubernetesAPICallMs: DEFAULT_API_CALL_MS,
      printConfig: bool('print-config', false),
    },
    warnings: [],
  };
}
