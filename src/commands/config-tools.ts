/**
 * `tsadm config migrate`, `config validate` and `config print reset-defaults|upgrade-defaults`
 * (kubeadm 1.30+/1.31+). The logic is in src/config (migrate.ts, validate-file.ts, print.ts);
 * this file reads the file, detects the node's defaults and writes the result.
 */
import type { Argv } from 'yargs';
import { migrateConfig } from '../config/migrate.js';
import { printResetDefaults, printUpgradeDefaults } from '../config/print.js';
import { validateConfigFile } from '../config/validate-file.js';
import { configInvalid } from '../config/validate.js';
import type { ConfigEnv } from '../config/load.js';
import { TsadmError, errorMessage } from '../errors.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { defaultRouteAddress, nodeHostname } from '../host/network.js';
import { readConfigFile, type CommandEnv } from '../run/runtime.js';

const EXPERIMENTAL_API = 'allow-experimental-api';
const EXPERIMENTAL_DESCRIBE = "Allow experimental, unreleased kubeadm API versions. tsadm reads none (kubeadm 1.37's placeholder kubeadm.k8s.io/v1 is refused), so this changes nothing; accepted for kubeadm compatibility.";

/** The node's dynamic defaults (node name, advertise address), as init and join detect them. */
function machineEnv(): ConfigEnv {
  const address = defaultRouteAddress();
  return { hostname: nodeHostname(), ...(address ? { defaultAdvertiseAddress: address } : {}), now: new Date() };
}

async function readRequired(path: string | undefined, flag: string): Promise<{ path: string; text: string }> {
  if (path === undefined || path === '') throw new TsadmError('E_USAGE', `the --${flag} flag is mandatory`, { hint: `give the config file with --${flag} <file>` });
  const text = await readConfigFile(path);
  return { path, text: text ?? '' };
}

function warn(env: CommandEnv, warnings: readonly string[]): void {
  for (const w of warnings) env.io.stderr.write(`[WARNING] [config] ${w}\n`);
}

/** Adds `migrate` and `validate` to `tsadm config`. */
export function registerConfigTools(c: Argv, env: CommandEnv): Argv {
  return c
    .command(
      'migrate',
      'Read an older version of the kubeadm configuration API types from a file, and output the similar config object for the newer version',
      (o) =>
        o
          .option('old-config', { type: 'string', requiresArg: true, describe: 'Path to the kubeadm config file that is using an old API version and should be converted. This flag is mandatory.' })
          .option('new-config', { type: 'string', requiresArg: true, describe: 'Path to the resulting equivalent kubeadm config file using the new API version. Optional, if not specified output will be sent to STDOUT.' })
          .option(EXPERIMENTAL_API, { type: 'boolean', describe: EXPERIMENTAL_DESCRIBE })
          .strict(),
      async (argv) => {
        const { path, text } = await readRequired(argv['old-config'], 'old-config');
        const result = migrateConfig(text, path, machineEnv());
        warn(env, result.warnings);
        const target = argv['new-config'];
        if (target === undefined) {
          env.io.stdout.write(result.text);
          return;
        }
        try {
          // The output holds a bootstrap token: readable by its owner only.
          await writeFileAtomic(target, result.text, 0o600);
        } catch (err) {
          throw new TsadmError('E_PRECONDITION', `failed to write the new configuration to the file "${target}": ${errorMessage(err)}`, { hint: 'check that the directory exists and is writable', cause: err });
        }
      },
    )
    .command(
      'validate',
      'Read a file containing the kubeadm configuration API and report any validation problems',
      (o) =>
        o
          .option('config', { type: 'string', requiresArg: true, describe: 'Path to a kubeadm configuration file.' })
          .option('allow-deprecated-api', { type: 'boolean', describe: 'Do not warn about a deprecated kubeadm API version that the target Kubernetes version still reads (kubeadm 1.36+). A version it no longer reads is an error either way.' })
          .option(EXPERIMENTAL_API, { type: 'boolean', describe: EXPERIMENTAL_DESCRIBE })
          .strict(),
      async (argv) => {
        const { path, text } = await readRequired(argv.config, 'config');
        const result = validateConfigFile(text, path, machineEnv(), { allowDeprecatedApi: argv['allow-deprecated-api'] === true });
        warn(env, result.warnings);
        // Every problem, one line each; E_CONFIG_INVALID exits with status 3.
        if (result.problems.length > 0) throw configInvalid(result.problems, path);
        env.io.stdout.write('ok\n');
      },
    );
}

const VERSION_OPTION = { type: 'string', requiresArg: true, describe: 'Print defaults in the config API version kubeadm of this Kubernetes version uses (1.31 or newer).' } as const;

/** Adds `reset-defaults` and `upgrade-defaults` to `tsadm config print`. */
export function registerPrintNodeDefaults(p: Argv, env: CommandEnv): Argv {
  return p
    .command(
      'reset-defaults',
      'Print default reset configuration, that can be used for "tsadm reset"',
      (o) => o.option('kubernetes-version', VERSION_OPTION).strict(),
      (argv) => {
        const version = argv['kubernetes-version'];
        env.io.stdout.write(printResetDefaults(version ? { version } : {}));
      },
    )
    .command(
      'upgrade-defaults',
      'Print default upgrade configuration, that can be used for "tsadm upgrade"',
      (o) => o.option('kubernetes-version', VERSION_OPTION).strict(),
      (argv) => {
        const version = argv['kubernetes-version'];
        env.io.stdout.write(printUpgradeDefaults(version ? { version } : {}));
      },
    );
}
