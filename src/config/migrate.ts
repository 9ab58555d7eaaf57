/**
 * `tsadm config migrate`: a config file of an older kubeadm API version → the same configuration
 * in the newest one, as kubeadm 1.31+'s MigrateOldConfig (util/config/common.go) does: each
 * command's documents are read, defaulted (static and dynamic defaults: a generated bootstrap
 * token, the node name, the advertise address, an InitConfiguration's control-plane taint),
 * validated and written again in v1beta4. The
 * conversions are the loader's (./upconvert.ts, ./defaults.ts): extraArgs maps become sorted
 * lists; `apiServer.timeoutForControlPlane` becomes `timeouts.controlPlaneComponentHealthCheck`
 * and `discovery.timeout` becomes `timeouts.discovery` (kubeadm's defaultMigrateMutators).
 * Only kubeadm kinds are written: component configs and ClusterStatus are left out, each with a
 * warning; an UpgradeConfiguration (v1beta4 only) is validated and written with its defaults
 * (kubeadm 1.36+, PR #135148; older kubeadm left it out). Input versions: v1beta3 and v1beta4 as kubeadm 1.31+; v1beta2 and
 * v1beta1 as kubeadm 1.20/1.21 read them (kubeadm 1.31+ refuses both; tsadm, which targets 1.20+,
 * migrates them in one step). Pure: the caller reads the file and detects the ConfigEnv.
 */
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../versions/resolve.js';
import { isTsadmError } from '../errors.js';
import { toKubeYaml, toKubeYamlDocuments } from '../yaml/write.js';
import { fileKinds } from './config-file-kinds.js';
import { defaultTimeouts } from './defaults.js';
import { readConfigDocuments } from './documents.js';
import { resolveInitConfig, resolveJoinConfig, resolveResetConfig, type ConfigEnv } from './load.js';
import { resolveUpgradeConfig } from './load-upgrade.js';
import { defaultedUpgradeConfiguration, parseTaint } from './print.js';
import { isPlainObject } from '../util/plain-object.js';
import { COMPONENT_KINDS } from './schema-kubeadm.js';
import { clusterToExternal, initToExternal, joinToExternal, resetToExternal } from './serialize.js';
import { v1beta1AsV1beta2 } from './v1beta1.js';
import { configInvalid } from './validate.js';

export interface MigrateResult {
  /** The new documents (kubeadm's order: Init + Cluster, Join, Reset, Upgrade). */
  readonly text: string;
  readonly warnings: readonly string[];
}

export function migrateConfig(original: string, source: string, env: ConfigEnv): MigrateResult {
  // kubeadm 1.20/1.21's migrate read v1beta1 too: it is read here as the v1beta2 it equals.
  const text = v1beta1AsV1beta2(original, source);
  // The newest config API version tsadm writes, from the version table (v1beta4 since kubeadm 1.31).
  const newest = profileFor(DEFAULT_KUBERNETES_VERSION);
  const apiVersion = newest.configApiVersion;
  const kinds = fileKinds(text, source);
  // kubeadm's SplitYAMLDocuments and validateKnownGVKs: every document must be a known kind of a
  // known API version, whichever command reads it.
  const documentErrors = readConfigDocuments(text, source, 'init').errors;
  if (documentErrors.length > 0) throw configInvalid(documentErrors, source);
  const warnings: string[] = [];
  for (const d of kinds.documents) {
    if (d.kind in COMPONENT_KINDS) warnings.push(`${d.kind} is not migrated: kubeadm config migrate writes kubeadm kinds only; keep the ${d.kind} document of ${source} as it is`);
    else if (d.kind === 'ClusterStatus') warnings.push('ClusterStatus is dropped: the kind left the kubeadm API in v1beta3 (the API endpoints are read from the cluster)');
  }
  // migrate exists to read old API versions: none is refused for the file's target here.
  const input = { configText: text, configPath: source, flags: {}, env, apiVersionCheck: 'any' as const };
  const docs: unknown[] = [];
  const keep = (ws: readonly string[]): void => {
    // Each command reads its own kinds and names the others "ignored": here every kind is migrated.
    for (const w of ws) if (!w.startsWith('ignored ')) warnings.push(w);
  };
  if (kinds.hasInit) {
    const r = resolveInitConfig(input);
    keep(r.warnings);
    // kubeadm's SetNodeRegistrationDynamicDefaults writes the control-plane taint when `taints`
    // is unset; tsadm writes the default of the file's Kubernetes version (what init applies).
    const nr = r.init.nodeRegistration;
    const taints = nr.taints ?? profileFor(r.cluster.kubernetesVersion).controlPlane.markTaints.map(parseTaint);
    docs.push(initToExternal({ ...r.init, nodeRegistration: { ...nr, taints } }, apiVersion), clusterToExternal(r.cluster, apiVersion));
  }
  if (kinds.has('JoinConfiguration')) {
    const r = resolveJoinConfig(input);
    keep(r.warnings);
    docs.push(joinToExternal(r.join, apiVersion));
  }
  if (kinds.has('ResetConfiguration')) {
    const r = resolveResetConfig(input);
    keep(r.warnings);
    const raw = kinds.documents.find((d) => d.kind === 'ResetConfiguration')?.value.timeouts;
    docs.push(resetToExternal(r.reset, defaultTimeouts(isPlainObject(raw) ? raw : undefined)));
  }
  const upgrade = kinds.documents.find((d) => d.kind === 'UpgradeConfiguration');
  if (upgrade) {
    // kubeadm 1.36+ (PR #135148) migrates it too: validated as each `upgrade` subcommand reads it,
    // then written with its defaults filled in.
    const only = { configText: toKubeYaml(upgrade.value), configPath: source, flags: {} };
    const problems: string[] = [];
    for (const command of ['apply', 'node', 'plan', 'diff'] as const) {
      try {
        keep(resolveUpgradeConfig(only, command).warnings);
      } catch (err) {
        if (!isTsadmError(err) || err.code !== 'E_CONFIG_INVALID') throw err;
        problems.push(...(err.details.length > 0 ? err.details : [err.message]));
      }
    }
    if (problems.length > 0) throw configInvalid([...new Set(problems)], source);
    docs.push(defaultedUpgradeConfiguration(upgrade.value, newest));
  }
  // An empty file (or one without kubeadm kinds) migrates to nothing, as in kubeadm.
  if (docs.length === 0) warnings.push(`${source} has no InitConfiguration, ClusterConfiguration, JoinConfiguration, ResetConfiguration or UpgradeConfiguration: nothing to migrate`);
  return { text: toKubeYamlDocuments(docs), warnings: [...new Set(warnings)] };
}
