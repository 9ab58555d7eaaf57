import type { Argv } from 'yargs';
import yaml from 'js-yaml';
import { TsadmError } from '../errors.js';
import { DEFAULT_KUBERNETES_VERSION } from '../versions/resolve.js';
import { SUPPORTED_MINORS } from '../versions/table.js';
import type { CommandEnv } from '../workflows/runtime.js';

declare const __TSADM_VERSION__: string | undefined;

/** The tool's version; injected by the bundler, read from package.json in tests. */
export const TSADM_VERSION = typeof __TSADM_VERSION__ === 'string' ? __TSADM_VERSION__ : '0.0.0-dev';

export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly nodeVersion: string;
  readonly platform: string;
  readonly defaultKubernetesVersion: string;
  readonly supportedKubernetesVersions: string;
}

export function versionInfo(): VersionInfo {
  const [major = '0', minor = '0'] = TSADM_VERSION.split('.');
  return {
    major,
    minor,
    gitVersion: `v${TSADM_VERSION}`,
    nodeVersion: process.version,
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
    defaultKubernetesVersion: DEFAULT_KUBERNETES_VERSION,
    supportedKubernetesVersions: `v${SUPPORTED_MINORS[0]}-v${SUPPORTED_MINORS[SUPPORTED_MINORS.length - 1]}`,
  };
}

/** Pure: the text kubeadm-style `version` prints for an output format. */
export function formatVersion(info: VersionInfo, output: string): string {
  switch (output) {
    case '':
      return `tsadm version: &version.Info{Major:"${info.major}", Minor:"${info.minor}", GitVersion:"${info.gitVersion}", NodeVersion:"${info.nodeVersion}", Platform:"${info.platform}", DefaultKubernetesVersion:"${info.defaultKubernetesVersion}"}\n`;
    case 'short':
      return `${info.gitVersion}\n`;
    case 'json':
      return `${JSON.stringify({ clientVersion: info }, null, 2)}\n`;
    case 'yaml':
      return yaml.dump({ clientVersion: info }, { lineWidth: -1 });
    default:
      throw new TsadmError('E_USAGE', `invalid output format: ${output}`, { hint: 'use -o json, yaml or short' });
  }
}

export function registerVersionCommand(y: Argv, env: CommandEnv): Argv {
  return y.command(
    'version',
    'Print the version of tsadm',
    (c) => c.option('output', { alias: 'o', type: 'string', describe: "Output format; available options are 'yaml', 'json' and 'short'", requiresArg: true }).strict(),
    (argv) => {
      env.io.stdout.write(formatVersion(versionInfo(), String(argv.output ?? '')));
    },
  );
}
