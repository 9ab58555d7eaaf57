import type { Argv } from 'yargs';
import { parseDuration } from '../duration.js';
import { TsadmError } from '../errors.js';
import { runKubeconfigUser } from '../certs-lifecycle/run.js';
import type { CommandEnv } from '../run/runtime.js';
import { runCommand } from '../workflows/run-command.js';
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
        pathOptions(o, { kubeconfigDir: false })
          .option('client-name', { type: 'string', requiresArg: true, demandOption: true, describe: 'The name of user. It will be used as the CN if client certificates are created' })
          .option('org', { type: 'string', array: true, describe: 'The organizations of the client certificate. It will be used as the O if client certificates are created' })
          .option('token', { type: 'string', requiresArg: true, describe: 'The token that should be used as the authentication mechanism for this kubeconfig, instead of client certificates' })
          .option('validity-period', { type: 'string', requiresArg: true, describe: 'The validity period of the client certificate (e.g. 24h).', defaultDescription: 'the cluster\'s certificate validity (8760h0m0s)' })
          .example('tsadm kubeconfig user --client-name=foo --config=bar', 'Output a kubeconfig file for an additional user named foo using a kubeadm config file bar')
          .strict(),
      (argv) =>
        runCommand({ env, args: argv, eventOutput: false }, (rt) => {
          const orgs = (argv.org ?? []).flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean);
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
