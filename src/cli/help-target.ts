import { readFileSync, statSync } from 'node:fs';
import { MAX_CONFIG_BYTES, parseYamlDocuments } from '../config/yaml-docs.js';

/** The Kubernetes version `init --help` shows the phase tree of, and where it was read. */
export interface HelpTarget {
  readonly version: string;
  readonly from: string;
}

/**
 * The target of an `init --help` command line, read before yargs parses it (yargs builds a
 * command's help, phase tree included, before its flags are known): `--kubernetes-version V` (or
 * `=V`), else `kubernetesVersion` of the ClusterConfiguration in `--config FILE`. Undefined
 * without `--help`/`-h` (a run resolves its target itself) or when neither names one; a file that
 * cannot be read or parsed names none (the run reports it). `readText` is the file seam.
 */
export function helpTarget(argv: readonly string[], readText: (path: string) => string | undefined): HelpTarget | undefined {
  if (!argv.includes('--help') && !argv.includes('-h')) return undefined;
  const flag = flagValue(argv, 'kubernetes-version');
  if (flag) return { version: flag, from: '--kubernetes-version' };
  const config = flagValue(argv, 'config');
  if (!config) return undefined;
  const text = readText(config);
  const version = text === undefined ? undefined : clusterConfigVersion(text, config);
  return version ? { version, from: `--config ${config}` } : undefined;
}

/** The last value of `--name V` or `--name=V` (yargs keeps the last of a repeated string flag). */
function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    if (arg === `--${name}` && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) value = argv[i + 1];
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
  });
  return value?.trim() || undefined;
}

function clusterConfigVersion(text: string, source: string): string | undefined {
  for (const doc of parseYamlDocuments(text, source).documents) {
    const value = doc.value as { kind?: unknown; kubernetesVersion?: unknown } | null;
    if (value && typeof value === 'object' && value.kind === 'ClusterConfiguration' && typeof value.kubernetesVersion === 'string') return value.kubernetesVersion;
  }
  return undefined;
}

/**
 * The file seam of `helpTarget`: the text of a --config file; undefined unless it is a regular file
 * of at most 1 MiB (help must not block on a FIFO or read a device), or when it cannot be read.
 */
export function readHelpConfig(path: string): string | undefined {
  try {
    const st = statSync(path);
    return st.isFile() && st.size <= MAX_CONFIG_BYTES ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
