import type { Argv } from 'yargs';
import { generateCertificateKey } from '../phases/cluster/index.js';
import type { CommandEnv } from '../workflows/runtime.js';

/**
 * `tsadm certs …` (alias `certificates`). certificate-key prints a new key for --upload-certs,
 * which is what the user asked for, so printing it is intended.
 */
export function registerCertsCommand(y: Argv, env: CommandEnv): Argv {
  return y.command(['certs', 'certificates'], 'Commands related to handling kubernetes certificates', (c) =>
    c
      .command(
        'certificate-key',
        'Generate certificate keys (64 hex characters) for --upload-certs / --certificate-key',
        (o) => o.strict(),
        () => {
          env.io.stdout.write(`${generateCertificateKey()}\n`);
        },
      )
      .demandCommand(1, 'specify a subcommand')
      .strict(),
  );
}
