/**
 * `tsadm config validate`: every problem of a config file, as kubeadm 1.30+'s ValidateConfig
 * (util/config/common.go) checks it: the documents must be known kinds of known API versions
 * without unknown fields, and each command's documents present in the file (Init/Cluster, Join,
 * Reset) are defaulted and validated as that command would. Unlike kubeadm, which stops at the
 * first error, every problem is collected. UpgradeConfiguration is checked against its schema and
 * with the rules of each `upgrade` subcommand. The file's kubeadm API versions are judged by the
 * target minor (src/config/api-versions.ts): one it no longer reads is a problem naming
 * `tsadm config migrate`, a deprecated one a warning unless --allow-deprecated-api (kubeadm 1.36,
 * PR #135148: ValidateConfig's allowDeprecated). Pure: the caller reads the file.
 */
import { isTsadmError } from '../errors.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../versions/resolve.js';
import { apiVersionFindings } from './api-versions.js';
import { fileKinds } from './config-file-kinds.js';
import { readConfigDocuments } from './documents.js';
import { resolveInitConfig, resolveJoinConfig, resolveResetConfig, type ConfigEnv } from './load.js';
import { resolveUpgradeConfig } from './load-upgrade.js';
import { toKubeYaml } from '../yaml/write.js';

export interface FileValidation {
  /** One line per problem; empty when the file is valid. */
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

export interface ValidateOptions {
  /**
   * --allow-deprecated-api (kubeadm 1.36, PR #135148): no warning for an API version the target
   * minor reads but has deprecated. A version it no longer reads is a problem either way.
   */
  readonly allowDeprecatedApi?: boolean;
}

export function validateConfigFile(text: string, source: string, env: ConfigEnv, opts: ValidateOptions = {}): FileValidation {
  const problems: string[] = [];
  const warnings: string[] = [];
  let kinds;
  try {
    kinds = fileKinds(text, source);
  } catch (err) {
    return { problems: problemsOf(err), warnings };
  }
  // Document-level problems (apiVersion, kind, unknown fields, types) of every document, once.
  const read = readConfigDocuments(text, source, 'init');
  problems.push(...read.errors);
  if (kinds.documents.length === 0 && problems.length === 0) problems.push(`${source}: no configuration document (apiVersion and kind) was found`);
  const apiVersionCheck = opts.allowDeprecatedApi === true ? 'allow-deprecated' as const : 'enforce' as const;
  const input = { configText: text, configPath: source, flags: {}, env, apiVersionCheck };
  const attempt = (resolve: () => { readonly warnings: readonly string[] }): void => {
    try {
      for (const w of resolve().warnings) if (!w.startsWith('ignored ')) warnings.push(w);
    } catch (err) {
      problems.push(...problemsOf(err));
    }
  };
  if (kinds.hasInit) attempt(() => resolveInitConfig(input));
  if (kinds.has('JoinConfiguration')) attempt(() => resolveJoinConfig(input));
  if (!kinds.hasInit) {
    // With Init/Cluster documents their target judges every document of the file (load.ts). A join
    // file has no target before discovery: it is judged as kubeadm of the default version would
    // (`tsadm join` itself judges it by the cluster's version once discovery has found it).
    const uses = (read.docs.apiVersions ?? []).filter((u) => u.kind === 'JoinConfiguration');
    const found = apiVersionFindings(uses, { kubernetesVersion: DEFAULT_KUBERNETES_VERSION, profile: profileFor(DEFAULT_KUBERNETES_VERSION), source }, opts.allowDeprecatedApi);
    problems.push(...found.errors);
    warnings.push(...found.warnings);
  }
  if (kinds.has('ResetConfiguration')) attempt(() => resolveResetConfig(input));
  const upgrade = kinds.documents.find((d) => d.kind === 'UpgradeConfiguration');
  if (upgrade) {
    // Alone: an old-style ClusterConfiguration next to it is init's here, not an upgrade override.
    const only = { configText: toKubeYaml(upgrade.value), configPath: source, flags: {} };
    for (const command of ['apply', 'node', 'plan', 'diff'] as const) attempt(() => resolveUpgradeConfig(only, command));
  }
  return { problems: [...new Set(problems)], warnings: [...new Set(warnings)] };
}

function problemsOf(err: unknown): string[] {
  if (isTsadmError(err) && (err.code === 'E_CONFIG_INVALID' || err.code === 'E_USAGE')) return err.details.length > 0 ? [...err.details] : [err.message];
  throw err;
}
