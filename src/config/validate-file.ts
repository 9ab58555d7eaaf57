/**
 * `tsadm config validate`: every problem of a config file, as kubeadm 1.30+'s ValidateConfig
 * (util/config/common.go) checks it: the documents must be known kinds of known API versions
 * without unknown fields, and each command's documents present in the file (Init/Cluster, Join,
 * Reset) are defaulted and validated as that command would. Unlike kubeadm, which stops at the
 * first error, every problem is collected. UpgradeConfiguration is checked against its schema and
 * with the rules of each `upgrade` subcommand. Pure: the caller reads the file.
 */
import { isTsadmError } from '../errors.js';
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

export function validateConfigFile(text: string, source: string, env: ConfigEnv): FileValidation {
  const problems: string[] = [];
  const warnings: string[] = [];
  let kinds;
  try {
    kinds = fileKinds(text, source);
  } catch (err) {
    return { problems: problemsOf(err), warnings };
  }
  // Document-level problems (apiVersion, kind, unknown fields, types) of every document, once.
  problems.push(...readConfigDocuments(text, source, 'init').errors);
  if (kinds.documents.length === 0 && problems.length === 0) problems.push(`${source}: no configuration document (apiVersion and kind) was found`);
  const input = { configText: text, configPath: source, flags: {}, env };
  const attempt = (resolve: () => { readonly warnings: readonly string[] }): void => {
    try {
      for (const w of resolve().warnings) if (!w.startsWith('ignored ')) warnings.push(w);
    } catch (err) {
      problems.push(...problemsOf(err));
    }
  };
  if (kinds.hasInit) attempt(() => resolveInitConfig(input));
  if (kinds.has('JoinConfiguration')) attempt(() => resolveJoinConfig(input));
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
