import type { Argv } from 'yargs';
import { KLOG_GROUP } from '../flags.js';

/** yargs' heading for a command's own flags (the ones given no group). */
const OWN_GROUP = 'Options:';

/**
 * Pure: the help's flag groups in the order kubeadm's (cobra's) help shows them: the command's own
 * flags first, the global ones last. yargs lists groups in the order they were first declared, and
 * the global klog group is declared on the root before any command declares its own flags, so
 * without this every command's help began with the global flags.
 */
export function ownFlagsFirst(groups: Readonly<Record<string, string[]>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, keys] of Object.entries(groups)) if (name !== KLOG_GROUP) out[name] = keys;
  // yargs adds the ungrouped flags to this group when it renders; it must exist before the global one.
  out[OWN_GROUP] ??= [];
  if (groups[KLOG_GROUP]) out[KLOG_GROUP] = groups[KLOG_GROUP];
  return out;
}

/**
 * yargs renders help from `getGroups()` of the one instance every command shares; reorder what it
 * answers. (No public yargs setting orders groups; the method is public and its shape stable
 * since yargs 12.)
 */
export function orderHelpGroups(y: Argv): void {
  const instance = y as unknown as { getGroups?: () => Record<string, string[]> };
  const original = instance.getGroups?.bind(instance);
  if (original) instance.getGroups = () => ownFlagsFirst(original());
}

type OptionSpec = Readonly<Record<string, unknown>>;

/**
 * Pure: what yargs would right-align on a line of its own under a flag's description (`[default:
 * text]`, `[choices: …]`), to be written at the end of the description instead: on a 100-column
 * terminal those lines were a third of `init --help`. The type (`[string]`) is left
 * out: the description says what the flag takes, as kubeadm's do.
 */
export function optionExtras(opt: OptionSpec): string {
  const parts: string[] = [];
  if (opt.deprecated !== undefined && opt.deprecated !== false) parts.push(typeof opt.deprecated === 'string' ? `[deprecated: ${opt.deprecated}]` : '[deprecated]');
  if (opt.demandOption !== undefined && opt.demandOption !== false) parts.push('[required]');
  if (Array.isArray(opt.choices)) parts.push(`[choices: ${opt.choices.map((c) => JSON.stringify(c)).join(', ')}]`);
  const shown = typeof opt.defaultDescription === 'string' ? opt.defaultDescription : opt.default !== undefined ? JSON.stringify(opt.default) : undefined;
  if (shown !== undefined) parts.push(`[default: ${shown}]`);
  return parts.join(' ');
}

/**
 * Turns yargs' extras line off ('hide-types') and appends the same text to each description as it
 * is declared, through the `option` method of the one instance every command's builder receives.
 */
export function inlineOptionExtras(y: Argv): void {
  // yargs 17.7+ has usageConfiguration; @types/yargs 17 does not declare it.
  const instance = y as unknown as { option: (key: unknown, opt?: unknown) => unknown; usageConfiguration: (c: Record<string, boolean>) => unknown };
  instance.usageConfiguration({ 'hide-types': true });
  const original = instance.option.bind(instance);
  instance.option = (key: unknown, opt?: unknown) => {
    if (typeof key !== 'string' || opt === null || typeof opt !== 'object') return original(key, opt);
    const spec = opt as OptionSpec;
    const describe = spec.describe ?? spec.description ?? spec.desc;
    const extras = optionExtras(spec);
    if (typeof describe !== 'string' || extras === '' || spec.hidden === true) return original(key, opt);
    const { desc: _desc, description: _description, ...rest } = spec;
    return original(key, { ...rest, describe: describe === '' ? extras : `${describe} ${extras}` });
  };
}

/** The width yargs wraps this help at (set in buildCli); 80 when it cannot be read. */
export function helpWidth(y: Argv): number {
  const internal = (y as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { getWrap?: () => number | null } } }).getInternalMethods?.();
  const wrap = internal?.getUsageInstance?.()?.getWrap?.();
  return typeof wrap === 'number' && wrap > 0 ? wrap : 80;
}

/** The command words yargs has entered so far ("init phase certs"); empty at the top. */
export function commandPath(y: Argv): string {
  const internal = (y as unknown as { getInternalMethods?: () => { getContext?: () => { commands?: unknown[] } } }).getInternalMethods?.();
  const words = internal?.getContext?.()?.commands;
  return Array.isArray(words) ? words.map(String).join(' ') : '';
}
