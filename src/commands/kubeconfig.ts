import type { Argv } from 'yargs';
import { parseDuration } from '../duration.js';
import { TsadmError } from '../errors.js';
import { runKubeconfigUser } from '../certs-lifecycle/run.js';
import type { CommandEnv } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';
import { addFlags } from '../cli/yargs-kit.js';
import { certsSubcommands, pathOptions, paths } from './certs.js';

/**
 * `tsadm kubeconfig user` (kubeadm ≥ 1.21), and kubeadm 1.20's spellings under `tsadm alpha`:
 * `alpha kubeconfig user` and `alpha certs …`. The kubeconfig, private key included, is printed:
 * that is what the user asked for.
 */
export function registerKubeconfigCommand(y: Argv, env: CommandEnv): Argv {
  y.command('kubeconfig', 'Kubeconfig file utilities', (k) => kubeconfigSubcommands(k, env));
  return y.command('alpha', false, (a) =>
    a
      .command('kubeconfig', 'Kubeconfig file utilities (kubeadm 1.20 spelling of "tsadm kubeconfig")', (k) => kubeconfigSubcommands(k, env))
      .command(['certs', 'certificates'], 'Commands related to handling kubernetes certificates (kubeadm 1.20 spelling of "tsadm certs")', (c) => certsSubcommands(c, env))
      .demandCommand(1, 'specify a subcommand: kubeconfig, certs')
      .strict(),
  );
}

function kubeconfigSubcommands(k: Argv, env: CommandEnv): Argv {
  return k
    .command(
      'user',
      'Output a kubeconfig file for an additional user',
      (o) =>
        addFlags(pathOptions(o, { kubeconfigDir: false }), ['client-name', 'org', 'token@kubeconfig-user', 'validity-period'])
          .example('tsadm kubeconfig user --client-name=foo --config=bar', 'Output a kubeconfig file for an additional user named foo using a kubeadm config file bar')
          .strict(),
      (argv) =>
        runCommand({ env, args: argv, eventOutput: false }, (rt) => {
          const orgs = ((argv.org ?? []) as unknown[]).flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean);
          const validity = argv['validity-period'];
          return runKubeconfigUser(rt, {
            ...paths(argv),
            clientName: String(argv['client-name']),
            organizations: orgs,
            ...(typeof argv.token === 'string' ? { token: argv.token } : {}),
            ...(typeof validity === 'string' ? { validityMs: validityMs(validity) } : {}),
          });
        }),
    )
    .demandCommand(1, 'specify a subcommand: user')
    .strict();
}

function validityMs(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new TsadmError('E_USAGE', `--validity-period: ${(err as Error).message}`, { hint: 'give a duration such as 8760h' });
  }
  if (ms <= 0) throw new TsadmError('E_USAGE', `--validity-period must be positive, got "${text}"`, { hint: 'give a duration such as 8760h' });
  return ms;
}
