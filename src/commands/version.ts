import type { Argv } from 'yargs';
import yaml from 'js-yaml';
import type { CommandEnv } from '../workflows/runtime.js';
import { formatVersion as formatVersionWith, versionInfo, type VersionInfo } from './version-info.js';

export { TSADM_VERSION } from './version-info.js';

/** Pure: the text kubeadm-style `version` prints for an output format. */
function formatVersion(info: VersionInfo, output: string): string {
  return formatVersionWith(info, output, (value) => yaml.dump(value, { lineWidth: -1 }));
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
