import type { Argv } from 'yargs';
import type { CommandEnv } from '../run/runtime.js';
import { addRootFlags } from '../cli/root-flags.js';
import { toKubeYaml } from '../yaml/write.js';
import { formatVersion as formatVersionWith, versionInfo, type VersionInfo } from '../version.js';

/** Pure: the text kubeadm-style `version` prints; yaml as kubeadm's sigs.k8s.io/yaml.Marshal writes it (keys sorted). */
export function formatVersion(info: VersionInfo, output: string): string {
  return formatVersionWith(info, output, toKubeYaml);
}

export function registerVersionCommand(y: Argv, env: CommandEnv): Argv {
  return y.command(
    'version',
    'Print the version of tsadm',
    (c) => addRootFlags(c).option('output', { alias: 'o', type: 'string', describe: "Output format; available options are 'yaml', 'json' and 'short'", requiresArg: true }).strict(),
    (argv) => {
      env.io.stdout.write(formatVersion(versionInfo(), String(argv.output ?? '')));
    },
  );
}
