import type { Argv } from 'yargs';
import type { CommandEnv } from '../run/runtime.js';
import { addRootFlags } from '../cli/root-flags.js';
import { addFlags } from '../cli/yargs-kit.js';
import { toKubeYaml } from '../yaml/write.js';
import { formatVersion as formatVersionWith, versionInfo, type VersionInfo } from '../version.js';

/** Pure: the text kubeadm-style `version` prints; yaml as kubeadm's sigs.k8s.io/yaml.Marshal writes it (keys sorted). */
export function formatVersion(info: VersionInfo, output: string): string {
  return formatVersionWith(info, output, toKubeYaml);
}

/** -o as given; a repeated -o reads as its values joined, as yargs' array turned to text did. */
function outputOf(o: unknown): string {
  return Array.isArray(o) ? o.join(',') : typeof o === 'string' ? o : '';
}

export function registerVersionCommand(y: Argv, env: CommandEnv): Argv {
  return y.command(
    'version',
    'Print the version of tsadm',
    (c) => addFlags(addRootFlags(c), ['output@version']).strict(),
    (argv) => {
      env.io.stdout.write(formatVersion(versionInfo(), outputOf(argv.output)));
    },
  );
}
