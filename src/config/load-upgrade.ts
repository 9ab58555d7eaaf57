/**
 * The configuration of `tsadm upgrade apply|node|plan|diff`: --config (a v1beta4
 * UpgradeConfiguration, or kubeadm ≤1.30's v1beta2/v1beta3 ClusterConfiguration) → kubeadm's
 * defaults (v1beta4 SetDefaults_UpgradeConfiguration) → the flags on top. Pure, like load.ts.
 *
 * kubeadm's rules reproduced here:
 * - apply, node and plan accept flags together with --config, and a flag given on the command
 *   line wins over the file (cmd/upgrade: cmdutil.ValueFromFlagsOrConfig); kubeadm 1.20's
 *   apply/plan did not call ValidateMixedArguments either. `diff` still does (cmd/upgrade/diff.go),
 *   so diff refuses config-bound flags next to --config, like init.
 * - --ignore-preflight-errors is merged with the file's list (ValidateIgnorePreflightErrors).
 * - the positional [version] wins over `<command>.kubernetesVersion` ("If option was specified in
 *   both args and config file, args will overwrite the config file").
 * - kubeadm ≤1.30 read an InitConfiguration/ClusterConfiguration from --config as a cluster
 *   reconfiguration (cmd/upgrade/common.go loadConfig, "legacyReconfigure"): the file replaces
 *   the cluster's ClusterConfiguration and its kubernetesVersion is the target unless [version] is
 *   given. tsadm keeps that for v1beta2/v1beta3 files (`clusterOverride`); kubeadm 1.31+ ignores
 *   a v1beta4 Init/ClusterConfiguration for upgrade with a warning, and so does tsadm.
 *
 * Fields tsadm reads but cannot honour are refused by name, never ignored: init and a
 * control-plane join pull images in preflight (honouring both fields), but `upgrade apply|node`
 * has no image pull step yet (the kubelet pulls the new images when the new static pods start),
 * so a non-default imagePullPolicy or imagePullSerial: false would promise something that does
 * not happen.
 */
import type { FlagName, FlagValues } from '../flags.js';
import { errorMessage } from '../errors.js';
import { normalizeKubernetesVersion } from '../versions/resolve.js';
import { readConfigDocuments, type ConfigDocuments } from './documents.js';
import { parseDuration } from '../duration.js';
import { UNUSED_TIMEOUTS, unusedTimeoutWarnings } from './defaults.js';
import { flagList, validateMixedArguments } from './flag-overlay.js';
import { isObj, type Obj } from './schema.js';
import type { ResolvedUpgradeConfig, UpgradeCommand } from './types.js';
import type { Findings } from './upconvert.js';
import { configInvalid } from './validate.js';

export interface UpgradeConfigInput {
  /** Content of the --config file, read by the caller. */
  readonly configText?: string;
  /** The --config path, for messages. */
  readonly configPath?: string;
  /** Only the flags the user set. */
  readonly flags: FlagValues;
  /** The positional [version] argument of apply, plan and diff. */
  readonly version?: string;
}

/** kubeadm's `--context-lines` default (cmd/upgrade/diff.go). */
const DEFAULT_CONTEXT_LINES = 3;
/** kubeadm's constants.UpgradeManifestsTimeout and KubernetesAPICallTimeout, the v1beta4 `timeouts` defaults. */
const DEFAULT_UPGRADE_MANIFESTS_MS = 5 * 60_000;
const DEFAULT_API_CALL_MS = 60_000;

type BoolField = 'allowExperimentalUpgrades' | 'allowRCUpgrades' | 'certificateRenewal' | 'dryRun' | 'etcdUpgrade' | 'forceUpgrade' | 'printConfig';

/** The boolean fields of each command's section and the flag bound to each (kubeadm's names). */
const BOOL_FLAGS: Readonly<Record<UpgradeCommand, Partial<Record<BoolField, FlagName>>>> = {
  apply: {
    allowExperimentalUpgrades: 'allow-experimental-upgrades',
    allowRCUpgrades: 'allow-release-candidate-upgrades',
    certificateRenewal: 'certificate-renewal',
    dryRun: 'dry-run',
    etcdUpgrade: 'etcd-upgrade',
    forceUpgrade: 'force',
    printConfig: 'print-config',
  },
  node: { certificateRenewal: 'certificate-renewal', dryRun: 'dry-run', etcdUpgrade: 'etcd-upgrade' },
  plan: {
    allowExperimentalUpgrades: 'allow-experimental-upgrades',
    allowRCUpgrades: 'allow-release-candidate-upgrades',
    // plan has no --dry-run flag; its section's dryRun is accepted (plan never writes anyway).
    dryRun: undefined,
    etcdUpgrade: 'etcd-upgrade',
    printConfig: 'print-config',
  },
  diff: {},
};

/** kubeadm's defaults for the booleans (SetDefaults_UpgradeConfiguration: certificateRenewal and etcdUpgrade are true). */
export const BOOL_DEFAULTS: Readonly<Record<BoolField, boolean>> = {
  allowExperimentalUpgrades: false,
  allowRCUpgrades: false,
  certificateRenewal: true,
  dryRun: false,
  etcdUpgrade: true,
  forceUpgrade: false,
  printConfig: false,
};

/** Sections that have these fields (types.go): others keep the default. */
const HAS_PATCHES_AND_PHASES: readonly UpgradeCommand[] = ['apply', 'node'];
const HAS_VERSION: readonly UpgradeCommand[] = ['apply', 'plan', 'diff'];
/** Commands that took a ClusterConfiguration with --config in kubeadm ≤1.30 (node had no --config). */
const TAKES_CLUSTER_OVERRIDE: readonly UpgradeCommand[] = ['apply', 'plan', 'diff'];

export function resolveUpgradeConfig(input: UpgradeConfigInput, command: UpgradeCommand): ResolvedUpgradeConfig {
  const { flags } = input;
  const hasConfig = input.configText !== undefined || flags.config !== undefined;
  if (command === 'diff') validateMixedArguments(flags, hasConfig);
  const source = input.configPath ?? (typeof flags.config === 'string' ? flags.config : 'config');
  const f: Findings = { errors: [], warnings: [] };
  let docs: ConfigDocuments = {};
  if (hasConfig) {
    const read = readConfigDocuments(input.configText ?? '', source, 'upgrade');
    f.errors.push(...read.errors);
    f.warnings.push(...read.warnings);
    docs = read.docs;
  }

  const clusterOverride = oldStyleCluster(docs, command, input, source, f);
  if (hasConfig && !docs.upgrade && !clusterOverride && docs.cluster === undefined && f.errors.length === 0) {
    f.errors.push('config: no UpgradeConfiguration (kubeadm.k8s.io/v1beta4) was found in the supplied config');
  }
  const section = sectionOf(docs.upgrade, command);

  const bools = {} as Record<BoolField, boolean>;
  for (const field of Object.keys(BOOL_DEFAULTS) as BoolField[]) {
    const flag = BOOL_FLAGS[command][field];
    const fromFlag = flag === undefined ? undefined : flagBool(flags, flag);
    const fromFile = field in BOOL_FLAGS[command] ? section[field] : undefined;
    bools[field] = fromFlag ?? (typeof fromFile === 'boolean' ? fromFile : BOOL_DEFAULTS[field]);
  }

  refuseUnimplemented(section, command, f);

  const fileVersion = HAS_VERSION.includes(command) && typeof section.kubernetesVersion === 'string' && section.kubernetesVersion !== '' ? section.kubernetesVersion : undefined;
  const rawVersion = input.version ?? fileVersion ?? (clusterOverride ? docs.cluster?.kubernetesVersion : undefined);
  const kubernetesVersion = rawVersion === undefined ? undefined : normalizeVersion(rawVersion, input.version !== undefined ? 'the [version] argument' : `${command}.kubernetesVersion`, f);

  const patchesFlag = typeof flags.patches === 'string' ? flags.patches : undefined;
  const patchesFile = HAS_PATCHES_AND_PHASES.includes(command) && isObj(section.patches) && typeof section.patches.directory === 'string' ? section.patches.directory : undefined;
  const patchesDir = patchesFlag ?? patchesFile;

  const skipFlag = flagList(flags, 'skip-phases');
  const skipFile = HAS_PATCHES_AND_PHASES.includes(command) ? stringList(section.skipPhases) : [];

  const contextFlag = flags['context-lines'];
  const contextFile = command === 'diff' && typeof section.contextLines === 'number' ? section.contextLines : undefined;
  const diffContextLines = contextFlag !== undefined ? Number(contextFlag) : contextFile ?? DEFAULT_CONTEXT_LINES;
  if (!Number.isInteger(diffContextLines) || diffContextLines < 0) {
    f.errors.push(`${contextFlag !== undefined ? '--context-lines' : 'diff.contextLines'}: must be a non-negative integer, got ${String(contextFlag ?? contextFile)}`);
  }

  const timeouts = isObj(docs.upgrade?.timeouts) ? docs.upgrade.timeouts : {};
  f.warnings.push(...unusedTimeoutWarnings('UpgradeConfiguration', 'upgrade', timeouts, UNUSED_TIMEOUTS.upgrade));
  const manifestsTimeout = typeof timeouts.upgradeManifests === 'string' ? parseDuration(timeouts.upgradeManifests) : undefined;
  const upgradeManifestsTimeoutMs = manifestsTimeout ?? DEFAULT_UPGRADE_MANIFESTS_MS;
  if (upgradeManifestsTimeoutMs <= 0) f.errors.push('timeouts.upgradeManifests: must be greater than 0');

  const apiCallTimeout = typeof timeouts.kubernetesAPICall === 'string' ? parseDuration(timeouts.kubernetesAPICall) : undefined;

  const resolved: ResolvedUpgradeConfig = {
    kind: 'upgrade',
    command,
    upgrade: {
      kubernetesVersion,
      allowExperimentalUpgrades: bools.allowExperimentalUpgrades,
      allowRCUpgrades: bools.allowRCUpgrades,
      certificateRenewal: bools.certificateRenewal,
      etcdUpgrade: bools.etcdUpgrade,
      force: bools.forceUpgrade,
      // --yes has no config field; --force implies it (kubeadm's sessionIsInteractive).
      yes: flagBool(flags, 'yes') ?? false,
      dryRun: bools.dryRun,
      ignorePreflightErrors: mergeIgnorePreflightErrors(stringList(section.ignorePreflightErrors), flags),
      skipPhases: skipFlag !== undefined && skipFlag.length > 0 ? skipFlag : skipFile,
      ...(patchesDir !== undefined ? { patches: { directory: patchesDir } } : {}),
      upgradeManifestsTimeoutMs,
      kubernetesAPICallMs: apiCallTimeout ?? DEFAULT_API_CALL_MS,
      printConfig: bools.printConfig,
      diffContextLines,
    },
    ...(clusterOverride ? { clusterOverride } : {}),
    warnings: f.warnings,
  };
  if (f.errors.length > 0) throw configInvalid(f.errors, hasConfig ? source : undefined);
  return resolved;
}

/** The command's own section of the UpgradeConfiguration (kubeadm reads only that one). */
function sectionOf(upgrade: Obj | undefined, command: UpgradeCommand): Obj {
  const section = upgrade?.[command];
  return isObj(section) ? section : {};
}

/**
 * A v1beta2/v1beta3 ClusterConfiguration given with --config (kubeadm ≤1.30's reconfiguration):
 * the file's text, schema-checked here, for the cluster view to use in place of the stored one;
 * a v1beta4 one is ignored with kubeadm 1.31's warning.
 */
function oldStyleCluster(docs: ConfigDocuments, command: UpgradeCommand, input: UpgradeConfigInput, source: string, f: Findings): { text: string; source: string } | undefined {
  if (docs.cluster === undefined) return undefined;
  if (docs.clusterVersion === 'v1beta4') {
    f.warnings.push('ClusterConfiguration kubeadm.k8s.io/v1beta4 is ignored for upgrade: the cluster keeps its stored configuration; use an UpgradeConfiguration for upgrade options');
    return undefined;
  }
  if (!TAKES_CLUSTER_OVERRIDE.includes(command)) {
    f.errors.push(`ClusterConfiguration: "upgrade ${command}" does not take a ClusterConfiguration (kubeadm's "upgrade node" never did); use a kubeadm.k8s.io/v1beta4 UpgradeConfiguration`);
    return undefined;
  }
  if (docs.upgrade !== undefined) {
    f.errors.push('config: an UpgradeConfiguration and an old-style ClusterConfiguration were both given; give one of them');
    return undefined;
  }
  f.warnings.push('--config with a ClusterConfiguration reconfigures the cluster during the upgrade (kubeadm ≤1.30 behaviour, "not recommended" by kubeadm): it replaces the stored ClusterConfiguration');
  return { text: input.configText ?? '', source };
}

/** Fields of UpgradeConfiguration that tsadm parses but cannot honour: refused by name. */
function refuseUnimplemented(section: Obj, command: UpgradeCommand, f: Findings): void {
  if (!HAS_PATCHES_AND_PHASES.includes(command)) return;
  // The schema made it a string (or dropped it with an error).
  const policy = typeof section.imagePullPolicy === 'string' ? section.imagePullPolicy : undefined;
  if (policy !== undefined && policy !== 'IfNotPresent') {
    const known = ['Always', 'IfNotPresent', 'Never'].includes(policy);
    f.errors.push(known
      ? `${command}.imagePullPolicy: "${policy}" is not supported: tsadm upgrade does not pull images before upgrading (the kubelet pulls them with the manifests' IfNotPresent policy; 'tsadm config images pull' pulls them beforehand); remove the field or set it to IfNotPresent`
      : `${command}.imagePullPolicy: Unsupported value: "${policy}": supported values: "Always", "IfNotPresent", "Never"`);
  }
  if (section.imagePullSerial === false) {
    f.errors.push(`${command}.imagePullSerial: false is not supported: tsadm upgrade does not pull images before upgrading, so there are no pulls to run in parallel; remove the field`);
  }
}

function normalizeVersion(raw: string, where: string, f: Findings): string | undefined {
  try {
    return normalizeKubernetesVersion(raw);
  } catch (err) {
    f.errors.push(`${where}: ${errorMessage(err)}`);
    return undefined;
  }
}

/** kubeadm's ValidateIgnorePreflightErrors: union of file and flag, lowercased, deduplicated, sorted. */
function mergeIgnorePreflightErrors(fromConfig: readonly string[], flags: FlagValues): string[] {
  const all = [...fromConfig, ...(flagList(flags, 'ignore-preflight-errors') ?? [])].map((s) => s.toLowerCase());
  return [...new Set(all)].sort();
}

function flagBool(flags: FlagValues, name: FlagName): boolean | undefined {
  const v = flags[name];
  return typeof v === 'boolean' ? v : v === undefined ? undefined : String(v) === 'true';
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}
