import { type Phase } from '../../../src/engine/phase.js';
import { runPhases } from '../../../src/engine/runner.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { TsadmError } from '../../../src/errors.js';
import { leaf, phaseTree, type TreeCtx } from '../../helpers/phase-tree.js';

describe('runPhases', () => {
  const ctx = (external = false) => {
    const reporter = new MemoryReporter();
    return { reporter, ctx: { log: new PhaseLogger(reporter), ran: [] as string[], external } };
  };

  test('runs selected leaves in order; skipIf on a parent skips its subtree with the reason', async () => {
    const { ctx: c, reporter } = ctx(true);
    await runPhases(phaseTree, c, { filter: [], skip: ['addon/coredns'] });
    expect(c.ran).toEqual(['preflight', 'ca', 'apiserver', 'bootstrap-token', 'kube-proxy']);
    expect(reporter.events).toContainEqual(expect.objectContaining({ type: 'phase-finish', phase: 'etcd', status: 'skipped', reason: 'external etcd' }));
  });

  test('a failure is wrapped once with the phase path and stops the run', async () => {
    const failing: Phase<TreeCtx>[] = [leaf('a'), { name: 'b', summary: 'b', run: () => Promise.reject(new TsadmError('E_CONFLICT', 'boom', { hint: 'h' })) }, leaf('c')];
    const { ctx: c } = ctx();
    const err = (await runPhases(failing, c, { filter: [], skip: [] }).catch((e: unknown) => e)) as TsadmError;
    expect(err.message).toBe('error execution phase b: boom');
    expect(err.code).toBe('E_CONFLICT');
    expect(err.hint).toBe('h');
    expect(c.ran).toEqual(['a']);
  });
});
