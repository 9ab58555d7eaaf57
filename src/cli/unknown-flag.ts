import leven from 'leven';
import type { Argv } from 'yargs';

/**
 * yargs' strict mode says `Unknown argument: pod-network-cidrr`: no dashes, no near match, and
 * tsadm pointed at the top-level help. kubeadm users expect the flag as they typed it, the closest
 * flag of that command and that command's help:
 * `unknown flag --pod-network-cidrr; did you mean --pod-network-cidr? See 'tsadm init --help'`.
 * The distance is leven's (already tsadm's for mistyped commands, `withUnknownWord` in app.ts),
 * with yargs' own threshold for recommendCommands: at most 3 edits.
 */
const MAX_DISTANCE = 3;

/** How a flag name is written on a command line: `-v`, `--pod-network-cidr`. */
export function dashed(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

/** Pure: the known flag closest to `name` within MAX_DISTANCE edits (ties: the first known), if any. */
export function closestFlag(name: string, known: readonly string[]): string | undefined {
  let best: { flag: string; d: number } | undefined;
  for (const flag of known) {
    if (flag.length === 1) continue; // one letter is one edit from every other: -v is no suggestion for --vv
    const d = leven(name, flag);
    if (d <= MAX_DISTANCE && (best === undefined || d < best.d)) best = { flag, d };
  }
  return best?.flag;
}

/**
 * Pure: the message for yargs' "Unknown argument(s): a, b" when those words are flags on the
 * command line (`argv`), or undefined when they are not (a stray positional keeps yargs' words).
 * `command` is the command's words ("init", "init phase certs"), `known` its flags.
 */
export function unknownFlagMessage(msg: string, argv: readonly string[], known: readonly string[], command: string): string | undefined {
  const m = /^Unknown arguments?: (.+)$/.exec(msg);
  if (!m?.[1]) return undefined;
  const given = new Set(argv.filter((a) => a.startsWith('-') && a !== '--').map((a) => a.replace(/^-+/, '').split('=')[0] ?? ''));
  const names = m[1].split(', ').filter((n) => given.has(n) || given.has(`no-${n}`));
  if (names.length === 0) return undefined;
  // "See 'tsadm init --help'" after a question, "see …" after a semicolon.
  const help = `See '${['tsadm', command, '--help'].filter(Boolean).join(' ')}'`;
  const parts = names.map((n) => {
    // yargs names --no-foo "foo" (its negation); say it as it was typed.
    const typed = given.has(n) ? n : `no-${n}`;
    // One letter is one edit from every other: no suggestion for -x.
    const near = typed.length > 1 ? closestFlag(typed, known) : undefined;
    return { typed: dashed(typed), near: near === undefined ? undefined : dashed(near) };
  });
  const [only] = parts;
  if (parts.length === 1 && only?.near) return `unknown flag ${only.typed}; did you mean ${only.near}? ${help}`;
  if (parts.length === 1 && only) return `unknown flag ${only.typed}; s${help.slice(1)}`;
  return `unknown flags ${parts.map((p) => (p.near ? `${p.typed} (did you mean ${p.near}?)` : p.typed)).join(', ')}; s${help.slice(1)}`;
}

/** The flags the command yargs is in declares and shows in its help (hidden ones are no suggestion). */
export function knownFlags(y: Argv): string[] {
  const options = (y as unknown as { getOptions?: () => { key?: Record<string, unknown>; hiddenOptions?: string[]; alias?: Record<string, string[]> } }).getOptions?.();
  if (!options?.key) return [];
  const hidden = new Set(options.hiddenOptions ?? []);
  const names = Object.keys(options.key).filter((k) => !hidden.has(k) && k !== '$0' && !k.startsWith('get-yargs-completions'));
  const aliases = names.flatMap((k) => options.alias?.[k] ?? []);
  return [...new Set([...names, ...aliases])];
}
