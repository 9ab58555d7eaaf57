/**
 * `check-expiration --expiring-within`: a Go duration ("720h", "1h30m") or a number of days
 * ("30d", which Go durations lack and alerting rules usually speak in), and the distinct exit
 * status automation checks for.
 */
import { parseDuration } from '../duration.js';
import { TsadmError } from '../errors.js';

/** Exit status of `check-expiration --expiring-within` when something expires within it. */
export const EXIT_EXPIRING = 4;

export function parseThreshold(text: string, flag = '--expiring-within'): number {
  const days = /^(\d+)d$/.exec(text.trim());
  if (days) return Number(days[1]) * 86_400;
  let ms: number;
  try {
    ms = parseDuration(text.trim());
  } catch (err) {
    throw new TsadmError('E_USAGE', `${flag}: ${(err as Error).message}`, { hint: 'give a duration such as 720h or 30d' });
  }
  if (ms < 0) throw new TsadmError('E_USAGE', `${flag}: negative duration "${text}"`, { hint: 'give a duration such as 720h or 30d' });
  return Math.floor(ms / 1000);
}

/**
 * Reported when certificates expire within the threshold. A TsadmError so main prints it like
 * any other; its exit status is 4, apart from every failure code (1–3), so a monitoring job
 * can tell "renew soon" from "the check itself failed".
 */
export class ExpiringError extends TsadmError {
  constructor(message: string, hint: string) {
    super('E_PRECONDITION', message, { hint });
  }

  override get exitCode(): number {
    return EXIT_EXPIRING;
  }
}
