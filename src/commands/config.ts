import type { Argv } from 'yargs';
import { printInitDefaults, printJoinDefaults } from '../config/print.js';
import { TsadmError } from '../errors.js';
import { normalizeKubernetesVersion, profileFor, DEFAULT_KUBERNETES_VERSION } from '../versions/resolve.js';
import type { CommandEnv } from '../workflows/runtime.js';
import { imageList } from '../phases/controlplane/images.js';
import { registerConfigTools, registerPrintNodeDefaults } from './config-tools.js';

const COMPONENT_CONFIGS = ['KubeletConfiguration', 'KubeProxyConfiguration'];

/** `tsadm config print …-defaults`, `config images list`, and (./config-tools.ts) `config migrate|validate`. */
export function registerConfigCommand(y: Argv, env: CommandEnv): Argv {
  return y.command('config', 'Manage configuration for a tsadm cluster (kubeadm config API)', (c) =>
    registerConfigTools(c, env)
      .command('print', 'Print configuration', (p) =>
        registerPrintNodeDefaults(p, env)
          .command(
            'init-defaults',
            'Print default init configuration, that can be used for "tsadm init"',
            (o) =>
              o
                .option('component-configs', { type: 'string', array: true, describe: `A comma-separated list of component config API objects to print the default values for. Available values: [${COMPONENT_CONFIGS.join(' ')}].` })
                .option('kubernetes-version', { type: 'string', requiresArg: true, describe: 'Print defaults in the config API version kubeadm of this Kubernetes version uses.' })
                .strict(),
            (argv) => {
              const components = (argv['component-configs'] ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
              for (const c of components) {
                if (!COMPONENT_CONFIGS.includes(c)) {
                  throw new TsadmError('E_USAGE', `unknown component config "${c}"`, { hint: `use one of ${COMPONENT_CONFIGS.join(', ')}` });
                }
              }
              const version = argv['kubernetes-version'];
              env.io.stdout.write(printInitDefaults({ componentConfigs: components, ...(version ? { version } : {}) }));
            },
          )
          .command(
            'join-defaults',
            'Print default join configuration, that can be used for "tsadm join"',
            (o) => o.option('kubernetes-version', { type: 'string', requiresArg: true, describe: 'Print defaults in the config API version kubeadm of this Kubernetes version uses.' }).strict(),
            (argv) => {
              const version = argv['kubernetes-version'];
              env.io.stdout.write(printJoinDefaults(version ? { version } : {}));
            },
          )
          .demandCommand(1, 'specify init-defaults, join-defaults, reset-defaults or upgrade-defaults')
          .strict(),
      )
      .command('images', 'Interact with container images used by tsadm', (i) =>
        i
          .command(
            'list',
            'Print a list of images tsadm will use',
            (o) =>
              o
                .option('kubernetes-version', { type: 'string', requiresArg: true, describe: 'Choose a specific Kubernetes version for the control plane.' })
                .option('image-repository', { type: 'string', requiresArg: true, describe: 'Choose a container registry to pull control plane images from.' })
                .strict(),
            (argv) => {
              const version = normalizeKubernetesVersion(argv['kubernetes-version'] ?? DEFAULT_KUBERNETES_VERSION);
              const versions = profileFor(version);
              const repo = argv['image-repository'] ?? versions.defaultImageRepository;
              env.io.stdout.write(`${imageList(version, versions, repo).join('\n')}\n`);
            },
          )
          .demandCommand(1, 'specify a subcommand: list')
          .strict(),
      )
      .demandCommand(1, 'specify a subcommand: print, images, migrate, validate')
      .strict(),
  );
}
