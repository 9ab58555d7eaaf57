import leven from 'leven';
import yargs, { type Argv } from 'yargs';
import type { CliIO } from './io.js';
import { registerPhaseSubcommands, registerWorkflow } from './yargs-kit.js';
import { TsadmError } from '../errors.js';
import { skipHelpCache } from './help-cache.js';
import { commandPath, inlineOptionExtras, orderHelpGroups } from './help-layout.js';
import { knownFlags, unknownFlagMessage } from './unknown-flag.js';
import { registerCompletionCommand } from './completion.js';
import { registerKlogFlags } from './klog-flags.js';
import { registerRootfsCheck } from './root-flags.js';
import type { LogFileSettings } from '../log/log-file.js';
import { helpTarget, readHelpConfig } from './help-target.js';
import type { CommandEnv } from '../run/runtime.js';

type Wrap = (fn: () => Promise<void>) => Promise<void>;
/** Adds one top-level command (and everything under it) to the parser. */
type Registrar = (y: Argv, env: CommandEnv, argv: readonly string[], wrap: Wrap) => void;

/**
 * Every top-level command, in help order, each behind a dynamic import: the bundle splits each
 * command's own code (its phase trees, renderers, libraries) into chunks of its own, and a command
 * line loads only the command it names (BENCHMARKS.md, "Start-up and footprint"; decision 88).
 */
export const TOP_LEVEL_COMMANDS: Readonly<Record<string, () => Promise<Registrar>>> = {
  // init's help shows the tree of the target the command line names (src/cli/help-target.ts).
  init: async () => {
    const { initWorkflow } = await import('../workflows/init.js');
    return (y, env, argv, wrap) => registerWorkflow(y, initWorkflow(env, helpTarget(argv, readHelpConfig)), wrap);
  },
  join: async () => {
    const { joinWorkflow } = await import('../workflows/join.js');
    return (y, env, _argv, wrap) => registerWorkflow(y, joinWorkflow(env), wrap);
  },
  reset: async () => {
    const { resetWorkflow } = await import('../workflows/reset.js');
    return (y, env, _argv, wrap) => registerWorkflow(y, resetWorkflow(env), wrap);
  },
  prepare: async () => {
    const { prepareWorkflow } = await import('../workflows/prepare.js');
    return (y, env, _argv, wrap) => registerWorkflow(y, prepareWorkflow(env), wrap);
  },
  // `tsadm phase <group> …` is the design card's spelling of `tsadm init phase <group> …`.
  phase: async () => {
    const { initWorkflow } = await import('../workflows/init.js');
    return (y, env, _argv, wrap) =>
      y.command('phase', 'Run a single phase of the init workflow (same as "init phase")', (pc) => registerPhaseSubcommands(pc, initWorkflow(env), wrap));
  },
  upgrade: async () => (await import('../commands/upgrade.js')).registerUpgradeCommand,
  apply: async () => (await import('../commands/apply.js')).registerApplyCommand,
  check: async () => (await import('../commands/check.js')).registerCheckCommand,
  etcd: async () => (await import('../commands/etcd.js')).registerEtcdCommand,
  token: async () => (await import('../commands/token.js')).registerTokenCommand,
  certs: async () => (await import('../commands/certs.js')).registerCertsCommand,
  kubeconfig: async () => (await import('../commands/kubeconfig.js')).registerKubeconfigCommand,
  config: async () => (await import('../commands/config.js')).registerConfigCommand,
  version: async () => (await import('../commands/version.js')).registerVersionCommand,
};

/**
 * The top-level commands a command line needs: the one its first word names, or all of them
 * (top-level help, completion, a flag first, an unknown word that yargs answers with "did you
 * mean"). Only the first word is taken: yargs reads the command from the first positional, and
 * a later word may be a flag's value.
 */
export function commandsToLoad(argv: readonly string[]): string[] {
  const first = argv[0];
  return first !== undefined && Object.hasOwn(TOP_LEVEL_COMMANDS, first) ? [first] : Object.keys(TOP_LEVEL_COMMANDS);
}

/**
 * The whole command line, or the part of it `commandsToLoad` says this argv needs. Workflow
 * commands (init, join, reset, and `phase` as the design card's short form of `init phase`) are
 * generated from their phase trees; the rest are small commands.
 */
export async function buildCli(argv: readonly string[], io: CliIO): Promise<Argv> {
  const registrars = await Promise.all(commandsToLoad(argv).map(async (name) => (await TOP_LEVEL_COMMANDS[name]?.()) as Registrar));
  const wrap: Wrap = async (fn) => fn();
  const y = yargs([...argv])
    .scriptName('tsadm')
    .usage(
      'tsadm: easily bootstrap a secure Kubernetes cluster (kubeadm-compatible)\n\n' +
        'Example usage:\n' +
        '  Create a control plane:     tsadm init\n' +
        '  Join a node:                tsadm join <endpoint> --token <token> --discovery-token-ca-cert-hash sha256:<hash>\n' +
        '  Run one step:               tsadm init phase certs all\n' +
        '  Undo init/join:             tsadm reset\n' +
        '  Prepare a bare host:        tsadm prepare --dry-run\n' +
        '  Print the version:          tsadm version (--version prints its gitVersion alone)',
    )
    .parserConfiguration({ 'camel-case-expansion': false, 'strip-aliased': false, 'duplicate-arguments-array': true })
    .wrap(Math.min(120, (io.stdout as { columns?: number }).columns ?? 100))
    .exitProcess(false)
    .fail((msg, err) => {
      // The command yargs was in (its help is the one to point at, decision 78): the third argument
      // of this callback is yargs' usage object, the context and options are the instance's.
      const command = commandPath(y);
      // A coerce function's error reaches here re-thrown by yargs as a YError with its message.
      if (err && err.name === 'YError') throw usageError(err.message, command);
      if (err) throw err;
      const flag = unknownFlagMessage(msg, argv, knownFlags(y), command);
      if (flag) throw new TsadmError('E_USAGE', flag);
      throw usageError(withUnknownWord(msg, argv), command);
    });
  skipHelpCache(y);
  orderHelpGroups(y);
  inlineOptionExtras(y);

  let logFile: LogFileSettings | undefined;
  const env = { io, logFile: () => logFile };
  registerKlogFlags(y, (settings) => {
    logFile = settings;
  });
  registerRootfsCheck(y);
  for (const register of registrars) register(y, env, argv, wrap);
  registerCompletionCommand(y, env, argv);
  return y
    .demandCommand(1, 'specify a command; see tsadm --help')
    .recommendCommands()
    .strict()
    .help()
    .alias('h', 'help')
    .version(false);
}

/**
 * `tsadm --version` on its own is `tsadm version -o short`: the one line most tools print for it.
 * (yargs' own version flag prints package.json's version through console.log; this one prints the
 * build's gitVersion through the CLI's output like every other command.)
 */
export function withVersionFlag(argv: readonly string[]): string[] {
  return argv.length === 1 && argv[0] === '--version' ? ['version', '-o', 'short'] : [...argv];
}

/**
 * `tsadm` alone prints the top-level help and succeeds, as kubeadm does: its root command has no
 * Run, and cobra answers a command that cannot run with its help (command.go: `if !c.Runnable() {
 * return flag.ErrHelp }`, which ExecuteC turns into the help and a nil error, exit 0).
 */
export function withHelpForNoArguments(argv: readonly string[]): string[] {
  return argv.length === 0 ? ['--help'] : [...argv];
}

/**
 * yargs' recommendCommands fails with only "Did you mean certs?", which does not say what was
 * wrong; name the word it stands for (the positional argument closest to the suggestion, as yargs
 * chose it by edit distance): "Unknown argument: certz (did you mean certs?)".
 */
export function withUnknownWord(msg: string, argv: readonly string[]): string {
  const m = /^Did you mean (\S+)\?$/.exec(msg);
  if (!m?.[1]) return msg;
  const suggestion = m[1];
  const words = argv.filter((a) => !a.startsWith('-') && a !== suggestion);
  // Ties go to the later word: the commands before it were found, so it is the one yargs looked up.
  const closest = words.map((w, i) => ({ w, i, d: leven(w, suggestion) })).sort((a, b) => a.d - b.d || b.i - a.i)[0];
  return closest ? `Unknown argument: ${closest.w} (did you mean ${suggestion}?)` : msg;
}

function usageError(msg: string, command: string): TsadmError {
  return new TsadmError('E_USAGE', msg, { hint: `see ${['tsadm', command, '--help'].filter(Boolean).join(' ')}` });
}
