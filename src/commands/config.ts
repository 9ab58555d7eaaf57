import type { Argv } from 'yargs';
import { FLAGS, type FlagValues } from '../flags.js';
import { printInitDefaults, printJoinDefaults } from '../config/print.js';
import { TsadmError } from '../errors.js';
import { connectCri } from '../host/cri-client.js';
import { RootedHost } from '../host/rooted-host.js';
import { readConfigFile, type CommandEnv } from '../run/runtime.js';
import { criSocketFor, formatImagesList, imagesOf, IMAGES_OUTPUTS, pullControlPlaneImages, requireRuntime, resolveImagesConfig } from './images.js';
import { registerConfigTools, registerPrintNodeDefaults } from './config-tools.js';
import { addTemplateFlags, refuseTemplateFormat } from './output-flags.js';
import { addRootFlags, rootOf } from '../cli/root-flags.js';

const COMPONENT_CONFIGS = ['KubeletConfiguration', 'KubeProxyConfiguration'];

/**
 * kubeadm chroots into --rootfs before every command (src/cli/root-flags.ts). Of the config
 * commands only `images pull` touches the host: the CRI socket. Their files (--config,
 * --old-config, --new-config) are the user's, on the real filesystem as --config is everywhere in
 * tsadm (docs/decisions.md 6), and the node defaults of migrate/validate are the running machine's.
 */
const ROOTFS_CONFIG = "The path to the 'real' host root filesystem. \"images pull\" finds and reaches the CRI socket under it; the config files (--config, --old-config, --new-config) are read and written on the real filesystem, as everywhere in tsadm, so the other config commands only check it is a directory.";

/** `tsadm config print …-defaults`, `config images list`, and (./config-tools.ts) `config migrate|validate`. */
export function registerConfigCommand(y: Argv, env: CommandEnv): Argv {
  return y.command('config', 'Manage configuration for a tsadm cluster (kubeadm config API)', (c) =>
    registerConfigTools(
      // kubeadm's `config` has a persistent --kubeconfig that no subcommand of today's kubeadm
      // reads (it served the removed `config view`/`upload`); accepted on every subcommand.
      // --rootfs and -v, every kubeadm command's, reach every subcommand from here as well.
      addRootFlags(c.option('kubeconfig', {
        type: 'string',
        requiresArg: true,
        describe: 'The kubeconfig file to use when talking to the cluster. If the flag is not set, a set of standard locations can be searched for an existing kubeconfig file. (No tsadm config subcommand talks to a cluster: accepted, as kubeadm does, and unused.)',
        defaultDescription: '/etc/kubernetes/admin.conf',
      }), ROOTFS_CONFIG),
      env,
    )
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
            'Print a list of images tsadm will use. The configuration file is used in case any images or image repositories are customized',
            (o) =>
              addTemplateFlags(imageFlags(o))
                .option('output', { alias: ['o', 'experimental-output'], type: 'string', requiresArg: true, default: 'text', describe: `Output format. One of: ${IMAGES_OUTPUTS.join('|')} (kubeadm's template formats are refused).` })
                .strict(),
            async (argv) => {
              refuseTemplateFormat(argv.output);
              const cfg = resolveImagesConfig(imageFlagValues(argv), await readConfigFile(argv.config));
              const { images, versions } = imagesOf(cfg);
              // On stderr, so that the list stays parseable (a preview minor's pre-release warns here).
              for (const w of cfg.warnings) env.io.stderr.write(`[WARNING] [config] ${w}\n`);
              env.io.stdout.write(formatImagesList(images, argv.output, versions));
            },
          )
          .command(
            'pull',
            'Pull images used by tsadm',
            (o) => imageFlags(o).option('cri-socket', FLAGS['cri-socket']).strict(),
            async (argv) => {
              const cfg = resolveImagesConfig(imageFlagValues(argv), await readConfigFile(argv.config));
              const { images, versions } = imagesOf(cfg);
              for (const w of cfg.warnings) env.io.stderr.write(`[WARNING] [config] ${w}\n`);
              // Under --rootfs the socket is looked for, and reached, under that root (as init's preflight does).
              const host = new RootedHost(await rootOf(argv));
              const socket = host.resolve(await criSocketFor(cfg, versions, host));
              const cri = await connectCri(socket);
              try {
                await requireRuntime(cri, socket);
                await pullControlPlaneImages(cri, images, (line) => env.io.stdout.write(line));
              } finally {
                cri.close();
              }
            },
          )
          .demandCommand(1, 'specify a subcommand: list, pull')
          .strict(),
      )
      .demandCommand(1, 'specify a subcommand: print, images, migrate, validate')
      .strict(),
  );
}

/** kubeadm's AddImagesCommonConfigFlags: --config, --feature-gates, --image-repository, --kubernetes-version. */
function imageFlags<T>(o: Argv<T>) {
  return o
    .option('config', { type: 'string', requiresArg: true, describe: 'Path to a tsadm (kubeadm) configuration file.' })
    .option('feature-gates', FLAGS['feature-gates'])
    .option('image-repository', { type: 'string', requiresArg: true, describe: 'Choose a container registry to pull control plane images from.' })
    .option('kubernetes-version', { type: 'string', requiresArg: true, describe: 'Choose a specific Kubernetes version for the control plane.' });
}

function imageFlagValues(argv: Record<string, unknown>): FlagValues {
  const out: Record<string, string> = {};
  for (const k of ['config', 'feature-gates', 'image-repository', 'kubernetes-version', 'cri-socket']) {
    const v = argv[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}
