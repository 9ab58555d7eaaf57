import type { Argv } from 'yargs';

/**
 * yargs renders a command's whole help text (cliui, wrap-ansi, string-width) every time it runs
 * a command handler, only to have it ready if an async handler fails and yargs prints help.
 * tsadm's .fail() throws instead and never prints help on a failure, so the text is never used;
 * rendering it cost ~15% of the CPU of `init phase kubeconfig all` (see BENCHMARKS.md).
 * `--help` is unaffected: help() renders when there is no cached text.
 */
export function skipHelpCache(y: Argv): void {
  const internal = (y as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } }).getInternalMethods?.();
  const usage = internal?.getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}
