/**
 * `tsadm completion bash|zsh`, kubeadm's spelling: the shell is a positional argument (yargs'
 * own completion command guesses it from $SHELL and takes no argument). The scripts ask tsadm
 * itself for the words at the cursor (`tsadm --get-yargs-completions <words>`, answered by yargs
 * from the real command and phase tree), so they never go stale when commands change. They call
 * `tsadm` by name, as kubeadm's scripts call `kubeadm`: completion only runs when the shell
 * found `tsadm` anyway, and a script saved in an rc file survives moving the install.
 */
import type { Argv } from 'yargs';
import { TsadmError } from '../errors.js';
import type { CliIO } from './io.js';
import { addRootFlags } from './root-flags.js';
import { DEFAULT_PATCH, SUPPORTED_MINORS } from '../versions/minors.js';

const COMPLETION_SHELLS = ['bash', 'zsh'] as const;

/** The hidden flag yargs answers with completions; the scripts below call it. */
const GET_COMPLETIONS_FLAG = '--get-yargs-completions';

const BASH = `# tsadm completion for bash: source <(tsadm completion bash)
_tsadm_completions()
{
    local cur_word="\${COMP_WORDS[COMP_CWORD]}"
    local -a words
    mapfile -t words < <(tsadm ${GET_COMPLETIONS_FLAG} "\${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null)
    mapfile -t COMPREPLY < <(compgen -W "\${words[*]}" -- "\${cur_word}")
    return 0
}
complete -o bashdefault -o default -F _tsadm_completions tsadm
`;

// ZSH_NAME tells yargs to answer with "word:description" pairs, which _describe shows.
const ZSH = `#compdef tsadm
# tsadm completion for zsh: source <(tsadm completion zsh)
_tsadm_completions()
{
  local -a reply
  local IFS=$'\\n'
  reply=($(ZSH_NAME=zsh tsadm ${GET_COMPLETIONS_FLAG} "\${(@)words[1,CURRENT]}" 2>/dev/null))
  if [[ \${#reply} -gt 0 ]]; then
    _describe 'values' reply
  else
    _default
  fi
}
if [[ "\${zsh_eval_context[-1]}" == "loadautofunc" ]]; then
  _tsadm_completions "$@"
else
  compdef _tsadm_completions tsadm
fi
`;

/** Pure: the completion script for a shell, or a usage error naming the shells tsadm supports. */
export function completionScript(shell: string | undefined): string {
  if (shell === undefined || shell === '') {
    throw new TsadmError('E_USAGE', 'shell not specified', { hint: 'run "tsadm completion bash" or "tsadm completion zsh"' });
  }
  if (shell === 'bash') return BASH;
  if (shell === 'zsh') return ZSH;
  throw new TsadmError('E_USAGE', `unsupported shell type "${shell}"`, { hint: `use one of: ${COMPLETION_SHELLS.join(', ')}` });
}

/** kubeadm's printer formats tsadm prints (IMAGES_OUTPUTS of src/commands/images.ts, which this layer may not import; a test compares them). */
const PRINTER_FORMATS: readonly string[] = ['text', 'json', 'yaml', 'kyaml'];

/** The -o formats of the commands whose printers are not the workflows' text|json event stream. */
const OUTPUT_FORMATS: ReadonlyArray<readonly [command: string, formats: readonly string[]]> = [
  ['version', ['yaml', 'json', 'short']],
  ['token list', PRINTER_FORMATS],
  ['config images list', PRINTER_FORMATS],
  ['certs check-expiration', ['table', 'text', 'json', 'yaml', 'kyaml']],
  ['upgrade plan', PRINTER_FORMATS],
];

/** The versions --kubernetes-version completes to: each minor's default patch, newest first. */
const KNOWN_VERSIONS: readonly string[] = SUPPORTED_MINORS.map((m) => DEFAULT_PATCH[m]).reverse();

/**
 * Pure: what completes the value of `flag` (its canonical name) on `command` ("init phase certs"),
 * or undefined when tsadm knows no list (a path, a token): then the shell offers files, never the
 * command's subcommands. yargs alone answered `tsadm init -o <TAB>` with "phase".
 * `choices` are the values the option declares to yargs, if any.
 */
export function flagValues(command: string, flag: string, choices?: readonly unknown[]): readonly string[] | undefined {
  if (choices && choices.length > 0) return choices.map(String);
  if (flag === 'output') return OUTPUT_FORMATS.find(([c]) => command === c || command.startsWith(`${c} `))?.[1] ?? ['text', 'json'];
  if (flag === 'kubernetes-version') return KNOWN_VERSIONS;
  return undefined;
}

interface ParsedOptions {
  readonly key?: Record<string, unknown>;
  readonly alias?: Record<string, string[]>;
  readonly boolean?: string[];
  readonly choices?: Record<string, unknown[]>;
}

/** The flag `word` (`-o`, `--output`) names, with its aliases, when the command declares it and it takes a value. */
function valueFlag(word: string, options: ParsedOptions): string[] | undefined {
  if (!/^--?[^-=][^=]*$/.test(word)) return undefined;
  const name = word.replace(/^-+/, '');
  if (options.key?.[name] === undefined) return undefined;
  // yargs' alias map runs one way (output → o): look both ways.
  const aliases = options.alias ?? {};
  const names = [name, ...(aliases[name] ?? []), ...Object.keys(aliases).filter((k) => aliases[k]?.includes(name))];
  return names.some((n) => options.boolean?.includes(n)) ? undefined : names;
}

export function registerCompletionCommand(y: Argv, env: { io: CliIO }, given: readonly string[] = []): Argv {
  // yargs' machinery stays for answering GET_COMPLETIONS_FLAG; its own command is hidden and
  // given a name nobody types, so `completion` is ours.
  const offerShells = (current: string, argv: { _: unknown[] }, defaultCompletion: () => unknown, done: (completions: string[]) => void): void => {
    // `tsadm completion <TAB>` offers the shells; everything else is yargs' own answer.
    const words = argv._.map(String).slice(1); // the first word is the program's name
    if (words[0] === 'completion' && words.length <= 2 && !current.startsWith('-')) {
      done(COMPLETION_SHELLS.filter((shell) => shell.startsWith(current)));
      return;
    }
    // The word before the cursor is a flag that takes a value: offer its values, or nothing.
    const asked = given.slice(given.indexOf(GET_COMPLETIONS_FLAG) + 1);
    const previous = asked.length >= 3 ? asked[asked.length - 2] : undefined;
    const options = (y as unknown as { getOptions: () => ParsedOptions }).getOptions();
    const names = previous === undefined ? undefined : valueFlag(previous, options);
    if (names !== undefined) {
      const command = (y as unknown as { getInternalMethods: () => { getContext: () => { commands: string[] } } }).getInternalMethods().getContext().commands.join(' ');
      // yargs keeps an option under its first name; -o's values are --output's.
      const flag = names.find((n) => n.length > 1 && !n.startsWith('experimental-')) ?? names[0] ?? '';
      const choices = names.map((n) => options.choices?.[n]).find((c) => c !== undefined);
      done([...(flagValues(command, flag, choices) ?? [])].filter((v) => v.startsWith(current)));
      return;
    }
    defaultCompletion();
  };
  y.completion('__yargs-completion-script', false, offerShells);
  return y.command(
    'completion [shell]',
    'Output shell completion code for the specified shell (bash or zsh)',
    (c) =>
      addRootFlags(c)
        .positional('shell', { type: 'string', describe: 'bash or zsh' })
        .example('source <(tsadm completion bash)', 'Load the completion code for bash into the current shell')
        .example('tsadm completion zsh > "${fpath[1]}/_tsadm"', 'Install the completion code for zsh')
        .strict(),
    (argv) => {
      env.io.stdout.write(completionScript(typeof argv.shell === 'string' ? argv.shell : undefined));
    },
  );
}
