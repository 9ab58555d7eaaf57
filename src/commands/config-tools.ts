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
import { addFlags } from '../cli/yargs-kit.js';


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
        addFlags(o, ['old-config', 'new-config', 'allow-experimental-api']).strict(),
      async (argv) => {
        const { path, text } = await readRequired(argv['old-config'] as string | undefined, 'old-config');
        const result = migrateConfig(text, path, machineEnv());
        warn(env, result.warnings);
        const target = argv['new-config'] as string | undefined;
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
        addFlags(o, ['config@validate', 'allow-deprecated-api', 'allow-experimental-api']).strict(),
      async (argv) => {
        const { path, text } = await readRequired(argv.config as string | undefined, 'config');
        const result = validateConfigFile(text, path, machineEnv(), { allowDeprecatedApi: argv['allow-deprecated-api'] === true });
        warn(env, result.warnings);
        // Every problem, one line each; E_CONFIG_INVALID exits with status 3.
        if (result.problems.length > 0) throw configInvalid(result.problems, path);
        env.io.stdout.write('ok\n');
      },
    );
}


/** Adds `reset-defaults` and `upgrade-defaults` to `tsadm config print`. */
export function registerPrintNodeDefaults(p: Argv, env: CommandEnv): Argv {
  return p
    .command(
      'reset-defaults',
      'Print default reset configuration, that can be used for "tsadm reset"',
      (o) => addFlags(o, ['kubernetes-version@print-node-defaults']).strict(),
      (argv) => {
        const version = argv['kubernetes-version'] as string | undefined;
        env.io.stdout.write(printResetDefaults(version ? { version } : {}));
      },
    )
    .command(
      'upgrade-defaults',
      'Print default upgrade configuration, that can be used for "tsadm upgrade"',
      (o) => addFlags(o, ['kubernetes-version@print-node-defaults']).strict(),
      (argv) => {
        const version = argv['kubernetes-version'] as string | undefined;
        env.io.stdout.write(printUpgradeDefaults(version ? { version } : {}));
      },
    );
}
