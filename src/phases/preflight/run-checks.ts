import { TsadmError } from '../../errors.js';
import type { Logger } from '../../log/events.js';
import type { Check, CheckEnv } from './check.js';

/**
 * Runs checks concurrently (they are independent probes), then reports in declaration order:
 * warnings as `[WARNING Name]: …`, errors as `[ERROR Name]: …` unless the name (or "all") is in
 * --ignore-preflight-errors, in which case they are shown as warnings.
 */
export async function runChecks(checks: readonly Check[], env: CheckEnv, ignore: readonly string[], log: Logger): Promise<void> {
  const ignored = new Set(ignore.map((s) => s.toLowerCase()));
  if (ignored.has('all') && ignored.size > 1) {
    throw new TsadmError('E_USAGE', "don't specify individual checks if 'all' is used", { hint: 'pass --ignore-preflight-errors=all alone' });
  }
  const results = await Promise.all(checks.map(async (c) => ({ check: c, result: await c.run(env) })));
  const fatal: string[] = [];
  for (const { check, result } of results) {
    for (const w of result.warnings) log.warn(`[WARNING ${check.name}]: ${w}`, { prefix: 'preflight' });
    const isIgnored = ignored.has('all') || ignored.has(check.name.toLowerCase());
    for (const e of result.errors) {
      if (isIgnored) log.warn(`[WARNING ${check.name}]: ${e}`, { prefix: 'preflight' });
      else fatal.push(`[ERROR ${check.name}]: ${e}`);
    }
  }
  if (fatal.length > 0) {
    throw new TsadmError('E_PREFLIGHT', `[preflight] Some fatal errors occurred: ${fatal[0]}${fatal.length > 1 ? ` (and ${fatal.length - 1} more)` : ''}`, {
      details: fatal,
      hint: 'fix the errors above, or (if you know what you are doing) make a check non-fatal with --ignore-preflight-errors=<CheckName>',
    });
  }
}
