import type { Argv } from 'yargs';
import type { FlagValues } from '../flags.js';
import { addFlags } from '../cli/yargs-kit.js';
import { printInitDefaults, printJoinDefaults } from '../config/print.js';
import { TsadmError } from '../errors.js';
import { connectCri } from '../host/cri-client.js';
import { RootedHost } from '../host/rooted-host.js';
import { readConfigFile, type CommandEnv } from '../run/runtime.js';
import { criSocketFor, formatImagesList, imagesOf, pullControlPlaneImages, requireRuntime, resolveImagesConfig } from './images.js';
import { registerConfigTools, registerPrintNodeDefaults } from './config-tools.js';
import { addTemplateFlags, refuseTemplateFormat } from './output-flags.js';
import { addRootFlags, rootOf } from '../cli/root-flags.js';

const COMPONENT_CONFIGS = ['KubeletConfiguration', 'KubeProxyConfiguration'];

/** `tsadm config print …-defaults`, `config images list`, and (./config-tools.ts) `config migrate|validate`. */
export function registerConfigCommand(y: Argv, env: CommandEnv): Argv {
  return y.command('config', 'Manage configuration for a tsadm cluster (kubeadm config API)', (c) =>
    registerConfigTools(
      // kubeadm's `config` has a persistent --kubeconfig that no subcommand of today's kubeadm
      // reads (it served the removed `config view`/`upload`); accepted on every subcommand.
      // --rootfs and -v, every kubeadm command's, reach every subcommand from here as well.
      // kubeadm chroots into --rootfs before every command (src/cli/root-flags.ts). Of the config
      // commands only `images pull` touches the host: the CRI socket. Their files (--config,
      // --old-config, --new-config) are the user's, on the real filesystem as --config is everywhere
      // in tsadm (docs/decisions.md 6), and the node defaults of migrate/validate are the machine's.
      addRootFlags(addFlags(c, ['kubeconfig@config'], new Set(), { global: true }), 'rootfs@config', { global: true }),
      env,
    )
      .command('print', 'Print configuration', (p) =>
        registerPrintNodeDefaults(p, env)
          .command(
            'init-defaults',
            'Print default init configuration, that can be used for "tsadm init"',
            (o) => addFlags(o, ['component-configs', 'kubernetes-version@print-defaults']).strict(),
            (argv) => {
              const components = ((argv['component-configs'] ?? []) as string[]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
              for (const c of components) {
                if (!COMPONENT_CONFIGS.includes(c)) {
                  throw new TsadmError('E_USAGE', `unknown component config "${c}"`, { hint: `use one of ${COMPONENT_CONFIGS.join(', ')}` });
                }
              }
              const version = argv['kubernetes-version'] as string | undefined;
              env.io.stdout.write(printInitDefaults({ componentConfigs: components, ...(version ? { version } : {}) }));
            },
          )
          .command(
            'join-defaults',
            'Print default join configuration, that can be used for "tsadm join"',
            (o) => addFlags(o, ['kubernetes-version@print-defaults']).strict(),
            (argv) => {
              const version = argv['kubernetes-version'] as string | undefined;
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
              addFlags(addTemplateFlags(imageFlags(o)), ['output@printers']).strict(),
            async (argv) => {
              const output = argv.output as string;
              refuseTemplateFormat(output);
              const cfg = resolveImagesConfig(imageFlagValues(argv), await readConfigFile(argv.config as string | undefined));
              const { images, versions } = imagesOf(cfg);
              // On stderr, so that the list stays parseable (a preview minor's pre-release warns here).
              for (const w of cfg.warnings) env.io.stderr.write(`[WARNING] [config] ${w}\n`);
              env.io.stdout.write(formatImagesList(images, output, versions));
            },
          )
          .command(
            'pull',
            'Pull images used by tsadm',
            (o) => addFlags(imageFlags(o), ['cri-socket']).strict(),
            async (argv) => {
              const cfg = resolveImagesConfig(imageFlagValues(argv), await readConfigFile(argv.config as string | undefined));
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
function imageFlags<T>(o: Argv<T>): Argv<T> {
  return addFlags(o, ['config@images', 'feature-gates', 'image-repository@images', 'kubernetes-version@images']);
}

function imageFlagValues(argv: Record<string, unknown>): FlagValues {
  const out: Record<string, string> = {};
  for (const k of ['config', 'feature-gates', 'image-repository', 'kubernetes-version', 'cri-socket']) {
    const v = argv[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}
