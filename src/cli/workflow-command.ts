import type { Argv, ArgumentsCamelCase } from 'yargs';
import { TsadmError } from '../errors.js';
import { FLAGS, WORKFLOW_FLAGS, type FlagName, type FlagValues } from '../flags.js';
import { flagsOf, flagsOfTree, type Phase } from '../engine/phase.js';
import { phaseHelpTree } from './help.js';

/**
 * Generates yargs commands from a phase tree: `<name>` runs the whole workflow,
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

export function addFlags(y: Argv, names: readonly FlagName[]): Argv {
  for (const name of new Set(names)) {
    const spec = FLAGS[name];
    const opt: Record<string, unknown> = {
      describe: spec.describe,
      hidden: 'hidden' in spec ? spec.hidden : false,
      // Flags belong to the command that declares them, not to its subcommands.
      global: false,
    };
    if (spec.type === 'array') {
      opt.type = 'string';
      opt.array = true;
    } else {
      opt.type = spec.type;
    }
    if ('alias' in spec) opt.alias = spec.alias;
    if ('defaultDescription' in spec) opt.defaultDescription = spec.defaultDescription;
    if (spec.type === 'string' || spec.type === 'number') opt.requiresArg = true;
    if (name === 'v') Object.assign(opt, VERBOSITY_OPTION);
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
export const VERBOSITY_OPTION = { type: 'string', coerce: coerceVerbosity, requiresArg: true } as const;

/** Only the flags the user set, under their canonical names; array flags split on commas. */
export function flagValuesFrom(argv: ArgumentsCamelCase<Record<string, unknown>>, names: readonly FlagName[]): FlagValues {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = argv[name];
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
  const run: Handler = (request) => spec.run(request);
  const positionalNames = parsePositionals(spec.positional);
  return y.command(
    `${spec.name}${spec.positional ? ` ${spec.positional}` : ''}`,
    spec.describe,
    (cmd) => {
      addFlags(cmd, topFlags);
      cmd.command('phase', `Use this command to invoke single phase of the ${spec.name} workflow`, (pc) =>
        registerPhaseSubcommands(pc, spec, handlerWrap),
      );
      if (spec.example) cmd.example(spec.example, '');
      cmd.epilog(`The "${spec.name}" command executes the following phases:\n${phaseHelpTree(spec.helpPhases ?? spec.phases)}${spec.treeNote ? `\n\n${spec.treeNote}` : ''}`);
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

/** One subcommand per visible top-level phase (used by `<cmd> phase` and by `tsadm phase`). */
export function registerPhaseSubcommands<C>(pc: Argv, spec: WorkflowSpec<C>, handlerWrap: (fn: () => Promise<void>) => Promise<void>): Argv {
  const run: Handler = (request) => spec.run(request);
  for (const phase of spec.phases) registerPhase(pc, spec, phase, [], run, handlerWrap);
  pc.epilog(`Phases:\n${phaseHelpTree(spec.phases)}${spec.treeNote ? `\n\n${spec.treeNote}` : ''}`);
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
          pc.epilog(`Phases:\n${phaseHelpTree(children)}`);
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
