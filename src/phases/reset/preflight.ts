/**
 * reset `preflight`: the confirmation (unless --force) and the root check. An answer must come
 * from stdin; without one (closed or empty input) reset stops rather than guess.
 */
import { TsadmError } from '../../errors.js';
import type { Phase } from '../../engine/phase.js';
import type { ResetCtx } from './context.js';
import { isPrivilegedUser } from '../preflight/checks.js';
import { runChecks } from '../preflight/run-checks.js';

export const resetPreflightPhase: Phase<ResetCtx> = {
  name: 'preflight',
  summary: 'Run reset pre-flight checks',
  description: 'Ask for confirmation (unless --force) and check that tsadm runs as root.',
  example: '# Asks for confirmation, then checks the user is root\ntsadm reset phase preflight',
  flags: ['force', 'ignore-preflight-errors'],
  async run(ctx) {
    if (!ctx.cfg.reset.force) {
      ctx.log.info("WARNING: Changes made to this host by 'tsadm init' or 'tsadm join' will be reverted.", { prefix: 'reset' });
      ctx.log.info('Are you sure you want to proceed? [y/N]: ', { prefix: 'reset' });
      const answer = await ctx.deps.confirm();
      if (answer === undefined) {
        throw new TsadmError('E_USAGE', 'reset needs a confirmation but there is no input to read it from', {
          hint: 'run `tsadm reset --force` to reset without prompting, or answer "y" on standard input',
        });
      }
      if (answer.trim().toLowerCase() !== 'y') throw new TsadmError('E_PRECONDITION', 'aborted reset operation', { hint: 'answer "y" to reset this machine' });
    }
    ctx.log.info('Running pre-flight checks', { prefix: 'preflight' });
    await runChecks([isPrivilegedUser], ctx, ctx.cfg.reset.ignorePreflightErrors, ctx.log);
  },
};
