import type { PhaseLogger } from './logger.js';

/**
 * A logger whose lines default to a prefix: kubeadm's "[certs] …" inside a join phase, or
 * "[upgrade/staticpods] …" inside an upgrade, when init's phase logic runs for another command.
 */
export function prefixedLogger(log: PhaseLogger, prefix: string): PhaseLogger {
  const view = Object.create(log) as PhaseLogger;
  view.info = (message, opts = {}) => log.info(message, { ...opts, prefix: opts.prefix ?? prefix });
  view.warn = (message, opts = {}) => log.warn(message, { ...opts, prefix: opts.prefix ?? prefix });
  view.debug = (message, opts = {}) => log.debug(message, { ...opts, prefix: opts.prefix ?? prefix });
  return view;
}
