import type { Argv, ArgumentsCamelCase } from 'yargs';
import { TsadmError } from '../errors.js';
import { FLAGS, WORKFLOW_FLAGS, flagSpec, type FlagName, type FlagRef, type FlagSpec, type FlagValues } from '../flags.js';
import { flagsOf, flagsOfTree, type Phase } from '../engine/phase.js';
import { phaseHelpTree } from './help.js';
import { commandPath, helpWidth } from './help-layout.js';

/**
 * The yargs kit every command uses: flags declared from the registry (src/flags.ts) by name
 * (`addFlags`) and read back under their canonical names (`flagValuesFrom`), and the workflow
 * commands generated from a phase tree: `<name>` runs the whole workflow,
 * `<name> phase <group> [<child>|all]` runs one phase or a subtree. Each command carries exactly
 * the flags its phases declare, plus the workflow flags.
 */
export interface WorkflowSpec<C> {
  readonly name: string;
  readonly describe: string;
  readonly positional?: string;
  readonly phases: readonly Phase<C>[];
  /** Flags of the full command beyond what its phases read. */
  readonly extraFlags?: readonly FlagName[];
  readonly example?: string;
  /** Says whose tree help shows (which kubeadm minor, and why that one); printed under the tree. */
  readonly treeNote?: string;
  /** The tree the command's --help shows when it is not `phases` (init's target named on a help command line). */
  readonly helpPhases?: readonly Phase<C>[];
  /** Runs the selected phases; `filter` empty = the whole workflow. */
  run(request: WorkflowRequest): Promise<void>;
}

export interface WorkflowRequest {
  readonly flags: FlagValues;
  readonly positionals: readonly string[];
  /** Phase paths selected on the command line ("certs/apiserver"); empty for the full workflow. */
  readonly filter: readonly string[];
  /** True when invoked as `<cmd> phase …`. */
  readonly single: boolean;
}

type Handler = (request: WorkflowRequest) => Promise<void>;

/**
 * Declares flags from the registry (src/flags.ts) by name or `<name>@<variant>`: the one place
 * tsadm turns a flag into a yargs option. `unlisted`: accepted but left out of this command's help.
 * `global`: the flag reaches the subcommands too (`config`'s, klog's); `group`: its help heading.
 */
export function addFlags<T>(y: Argv<T>, refs: readonly FlagRef[], unlisted: ReadonlySet<FlagName> = new Set(), opts: { global?: boolean; group?: string } = {}): Argv<T> {
  for (const ref of new Set(refs)) {
    const { name, spec } = flagSpec(ref);
    const opt: Record<string, unknown> = {
      describe: spec.describe,
      hidden: spec.hidden === true || unlisted.has(name),
      // Flags belong to the command that declares them, not to its subcommands.
      global: opts.global === true,
    };
    if (spec.type === 'array') {
      opt.type = 'string';
      opt.array = true;
    } else {
      opt.type = spec.type;
    }
    if (spec.aliases) opt.alias = [...spec.aliases];
    else if (spec.alias !== undefined && spec.alias.length === 1) opt.alias = spec.alias;
    // A long alias is an older spelling (--experimental-patches): accepted but, as kubeadm hides
    // its deprecated flags, left out of help, where it would widen the flag column.
    else if (spec.alias !== undefined) y.option(spec.alias, { type: opt.type as 'string', hidden: true, global: false, requiresArg: opt.requiresArg === true, describe: `the older spelling of --${name}` });
    if (spec.defaultDescription !== undefined) opt.defaultDescription = spec.defaultDescription;
    if ((spec.type === 'string' || spec.type === 'number') && spec.requiresArg !== false) opt.requiresArg = true;
    if (spec.default !== undefined) opt.default = spec.default;
    if (spec.choices !== undefined) opt.choices = [...spec.choices];
    if (spec.demandOption === true) opt.demandOption = true;
    if (opts.group !== undefined) opt.group = opts.group;
    if (name === 'v') Object.assign(opt, VERBOSITY_OPTION);
    if (name === 'vmodule') opt.coerce = checkVmodule;
    y.option(name, opt);
  }
  return y;
}

/**
 * -v takes a level 0–10 (kubeadm's klog accepts any non-negative integer; higher levels add
 * nothing here). yargs would read "-v loud" as NaN and the run would go on at level 0.
 */
function coerceVerbosity(value: unknown): number {
  const last: unknown = Array.isArray(value) ? value[value.length - 1] : value;
  const text = String(last).trim();
  if (!/^\d+$/.test(text)) {
    throw new TsadmError('E_USAGE', `invalid argument "${String(last)}" for "-v, --v" flag: the log level must be a non-negative integer`, { hint: 'use -v 0, -v 1 or -v 2' });
  }
  return Number(text);
}

/** -v as yargs must see it: read as text (a number type would turn "loud" into NaN first). */
const VERBOSITY_OPTION = { type: 'string', coerce: coerceVerbosity, requiresArg: true } as const;

/**
 * klog's vmodule syntax (moduleSpec.Set in k8s.io/klog/v2's klog.go): comma-separated pattern=N,
 * N a non-negative 32-bit integer (strconv.ParseInt), empty items skipped. kubeadm fails a bad
 * value as pflag reports a flag's error; so does tsadm, though it filters nothing by it.
 */
function checkVmodule(value: unknown): string {
  const text = String(Array.isArray(value) ? value.at(-1) : value);
  for (const item of text.split(',')) {
    if (item === '') continue;
    const parts = item.split('=');
    const syntax = parts.length !== 2 || parts[0] === '' || parts[1] === '' || !/^[-+]?\d+$/.test(parts[1] ?? '') || Math.abs(Number(parts[1])) > 2 ** 31 - 1;
    if (syntax || Number(parts[1]) < 0) {
      const why = syntax ? 'syntax error: expect comma-separated list of filename=N' : 'negative value for vmodule level';
      throw new TsadmError('E_USAGE', `invalid argument "${text}" for "--vmodule" flag: ${why}`, { hint: 'give pattern=N pairs, e.g. --vmodule gc*=3,proxy=2' });
    }
  }
  return text;
}

/** Only the flags the user set, under their canonical names; array flags split on commas. */
export function flagValuesFrom(argv: ArgumentsCamelCase<Record<string, unknown>>, names: readonly FlagName[]): FlagValues {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const spec: FlagSpec = FLAGS[name];
    const value = argv[name] ?? (spec.alias && spec.alias.length > 1 ? argv[spec.alias] : undefined);
    if (value === undefined) continue;
    if (FLAGS[name].type === 'array') {
      const list = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter(Boolean);
      out[name] = list;
    } else {
      out[name] = value;
    }
  }
  return out;
}

export function registerWorkflow<C>(y: Argv, spec: WorkflowSpec<C>, handlerWrap: (fn: () => Promise<void>) => Promise<void>): Argv {
  const topFlags: FlagName[] = [...WORKFLOW_FLAGS, ...flagsOfTree(spec.phases), ...(spec.extraFlags ?? [])];
  const ownOnly = ownPhaseFlags(spec);
  const run: Handler = (request) => spec.run(request);
  const positionalNames = parsePositionals(spec.positional);
  return y.command(
    `${spec.name}${spec.positional ? ` ${spec.positional}` : ''}`,
    spec.describe,
    (cmd) => {
      addFlags(cmd, topFlags, ownOnly);
      cmd.command('phase', `Use this command to invoke single phase of the ${spec.name} workflow`, (pc) =>
        registerPhaseSubcommands(pc, spec, handlerWrap),
      );
      if (spec.example) cmd.example(spec.example, '');
      // One line per phase: the summaries in full are in `<cmd> phase --help`.
      const tree = phaseHelpTree(spec.helpPhases ?? spec.phases, { width: helpWidth(cmd), compact: true });
      const more = `Each phase with its summary${ownOnly.size > 0 ? ' and flags' : ''}: tsadm ${commandPath(cmd)} phase [<phase>] --help`;
      cmd.epilog(`The "${spec.name}" command executes the following phases:\n${tree}\n\n${more}${spec.treeNote ? `\n${spec.treeNote}` : ''}`);
      return cmd.strict();
    },
    (argv) =>
      handlerWrap(() =>
        run({
          flags: flagValuesFrom(argv, topFlags),
          positionals: positionalNames.map((n) => argv[n]).filter((v): v is string => typeof v === 'string'),
          filter: [],
          single: false,
        }),
      ),
  );
}

/**
 * The flags only tsadm's own opt-in phases read (host's --bundle, certs-auto-renew's --tsadm-path):
 * the workflow accepts them but lists them in those phases' help, so that `init --help` shows
 * kubeadm's flags and the opt-in switches (`extraFlags`) at a glance. A workflow made
 * only of tsadm's phases (`prepare`) lists all of its flags.
 */
export function ownPhaseFlags<C>(spec: Pick<WorkflowSpec<C>, 'phases' | 'extraFlags'>): ReadonlySet<FlagName> {
  const rest = spec.phases.filter((p) => !p.own);
  if (rest.length === 0) return new Set();
  const listed = new Set<FlagName>([...WORKFLOW_FLAGS, ...flagsOfTree(rest), ...(spec.extraFlags ?? [])]);
  return new Set(flagsOfTree(spec.phases.filter((p) => p.own)).filter((f) => !listed.has(f)));
}

/** One subcommand per visible top-level phase (used by `<cmd> phase` and by `tsadm phase`). */
export function registerPhaseSubcommands<C>(pc: Argv, spec: WorkflowSpec<C>, handlerWrap: (fn: () => Promise<void>) => Promise<void>): Argv {
  const run: Handler = (request) => spec.run(request);
  for (const phase of spec.phases) registerPhase(pc, spec, phase, [], run, handlerWrap);
  pc.epilog(`Phases:\n${phaseHelpTree(spec.phases, { width: helpWidth(pc) })}${spec.treeNote ? `\n\n${spec.treeNote}` : ''}`);
  return pc.demandCommand(1, `specify a phase: ${spec.phases.filter((p) => !p.hidden && !p.retired).map((p) => p.name).join(', ')}`).strict();
}

function registerPhase<C>(
  y: Argv,
  spec: WorkflowSpec<C>,
  phase: Phase<C>,
  parents: readonly string[],
  run: Handler,
  handlerWrap: (fn: () => Promise<void>) => Promise<void>,
): void {
  if (phase.hidden) return;
  const path = [...parents, phase.name];
  const flags: FlagName[] = [...WORKFLOW_FLAGS.filter((f) => f !== 'skip-phases'), ...flagsOf(phase)];
  const children = (phase.children ?? []).filter((c) => !c.hidden);
  const positionalNames = parsePositionals(phase.positional);
  const invoke = (argv: ArgumentsCamelCase<Record<string, unknown>>, filterPath: readonly string[]): Promise<void> =>
    handlerWrap(() =>
      run({
        flags: flagValuesFrom(argv, flags),
        positionals: positionalNames.map((n) => argv[n]).filter((v): v is string => typeof v === 'string'),
        filter: [filterPath.join('/')],
        single: true,
      }),
    );
  y.command(
    {
      command: `${phase.name}${phase.positional ? ` ${phase.positional}` : ''}`,
      aliases: [...(phase.aliases ?? [])],
      // A retired phase keeps its command for the older clusters that have it, unlisted (yargs hides `describe: false`).
      describe: phase.retired ? false : phase.summary,
      builder: (pc: Argv) => {
        addFlags(pc, flags);
        if (children.length > 0) {
          pc.command(
            `all${phase.positional ? ` ${phase.positional}` : ''}`,
            `Run all ${phase.name} phases`,
            (ac) => addFlags(ac, flags).strict(),
            (argv) => invoke(argv as ArgumentsCamelCase<Record<string, unknown>>, path),
          );
          for (const child of children) registerPhase(pc, spec, child, path, run, handlerWrap);
          pc.epilog(`Phases:\n${phaseHelpTree(children, { width: helpWidth(pc) })}`);
        }
        if (phase.description) pc.usage(`${phase.description}`);
        if (phase.example) pc.example(phase.example, '');
        return pc.strict();
      },
      handler: (argv: ArgumentsCamelCase<Record<string, unknown>>) => invoke(argv, path),
    },
  );
}

function parsePositionals(positional: string | undefined): string[] {
  if (!positional) return [];
  return [...positional.matchAll(/[[<]([a-z0-9-]+)[\]>]/g)].map((m) => m[1] as string);
}
