import yargs, { type Argv } from 'yargs';
import type { CliIO } from './io.js';
import { registerPhaseSubcommands, registerWorkflow } from './workflow-command.js';
import { TsadmError } from '../errors.js';
import { initWorkflow } from '../workflows/init.js';
import { registerVersionCommand } from '../commands/version.js';
import { registerConfigCommand } from '../commands/config.js';
import { registerTokenCommand } from '../commands/token.js';
import { registerCertsCommand } from '../commands/certs.js';

/**
 * The whole command line. Workflow commands (init, join, reset, and `phase` as the design card's
 * short form of `init phase`) are generated from their phase trees; the rest are small commands.
 */
export function buildCli(argv: readonly string[], io: CliIO): Argv {
  const wrap = async (fn: () => Promise<void>): Promise<void> => fn();
  const y = yargs([...argv])
    .scriptName('tsadm')
    .usage(
      'tsadm: easily bootstrap a secure Kubernetes cluster (kubeadm-compatible)\n\n' +
        'Example usage:\n' +
        '  Create a control plane:     tsadm init\n' +
        '  Join a node:                tsadm join <endpoint> --token <token> --discovery-token-ca-cert-hash sha256:<hash>\n' +
        '  Run one step:               tsadm init phase certs all\n' +
        '  Undo init/join:             tsadm reset',
    )
    .parserConfiguration({ 'camel-case-expansion': false, 'strip-aliased': false, 'duplicate-arguments-array': true })
    .wrap(Math.min(120, (io.stdout as { columns?: number }).columns ?? 100))
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? usageError(msg);
    });

  const env = { io };
  registerWorkflow(y, initWorkflow(env), wrap);
  // `tsadm phase <group> …` is the design card's spelling of `tsadm init phase <group> …`.
  y.command('phase', 'Run a single phase of the init workflow (same as "init phase")', (pc) =>
    registerPhaseSubcommands(pc, initWorkflow(env), wrap),
  );
  registerTokenCommand(y, env);
  registerCertsCommand(y, env);
  registerConfigCommand(y, env);
  registerVersionCommand(y, env);
  y.completion('completion', 'Output shell completion code for bash or zsh (source it from your shell rc file)');
  return y
    .demandCommand(1, 'specify a command; see tsadm --help')
    .recommendCommands()
    .strict()
    .help()
    .alias('h', 'help')
    .version(false);
}

function usageError(msg: string): TsadmError {
  return new TsadmError('E_USAGE', msg, { hint: 'see tsadm --help' });
}
