import type { FileKind, Host } from '../host/host.js';
import type { PhaseLogger } from '../log/logger.js';

/** Kinds whose content is safe and useful to show in a dry run (never keys or kubeconfigs). */
const SHOWN: ReadonlySet<FileKind> = new Set(['manifest', 'config']);

/**
 * The end of a dry run: every file that would be written (path, mode, what it is), the content
 * of manifests and component configs (kubeadm prints these), and each command or service action
 * that would run. Nothing here touches the disk.
 */
export function reportDryRun(host: Host, log: PhaseLogger): void {
  const last = new Map(host.writes.map((w) => [w.path, w]));
  for (const w of last.values()) {
    if (!SHOWN.has(w.kind) || !w.content) continue;
    log.info(`Would write file "${w.path}" with content:`, { prefix: 'dryrun' });
    log.output(w.content.toString('utf8').replace(/^/gm, '\t'));
  }
  log.info('The following files would be written:', { prefix: 'dryrun' });
  for (const w of last.values()) {
    const state = w.unchanged ? ' (unchanged)' : '';
    log.info(`  ${w.path}  ${w.mode.toString(8).padStart(4, '0')}  ${w.description}${state}`, { prefix: 'dryrun' });
  }
  if (last.size === 0) log.info('  (none)', { prefix: 'dryrun' });
  for (const a of host.actions) log.info(`Would run: ${a}`, { prefix: 'dryrun' });
}
