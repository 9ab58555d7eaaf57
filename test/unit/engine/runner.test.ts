import { type Phase } from '../../../src/engine/phase.js';
import { runPhases } from '../../../src/engine/runner.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { TsadmError } from '../../../src/errors.js';

type Ctx = { log: PhaseLogger; ran: string[]; external?: boolean };
const leaf = (name: string, extra: Partial<Phase<Ctx>> = {}): Phase<Ctx> => ({
  name, summary: name, run: (c) => { c.ran.push(name); return Promise.resolve(); }, ...extra,
});
const tree: Phase<Ctx>[] = [
  leaf('preflight'),
  { name: 'certs', summary: 'certs', children: [leaf('ca', { flags: ['cert-dir'] }), leaf('apiserver', { flags: ['cert-dir', 'apiserver-cert-extra-sans'] })] },
  { name: 'etcd', summary: 'etcd', skipIf: (c) => (c.external ? 'external etcd' : undefined), children: [leaf('local')] },
  leaf('bootstrap-token', { aliases: ['bootstraptoken'] }),
  { name: 'addon', summary: 'addons', children: [leaf('coredns'), leaf('kube-proxy')] },
];

describe('runPhases', () => {
  const ctx = (external = false) => {
    const reporter = new MemoryReporter();
    return { reporter, ctx: { log: new PhaseLogger(reporter), ran: [] as string[], external } };
  };

  test('runs selected leaves in order; skipIf on a parent skips its subtree with the reason', async () => {
    const { ctx: c, reporter } = ctx(true);
    await runPhases(tree, c, { filter: [], skip: ['addon/coredns'] });
    expect(c.ran).toEqual(['preflight', 'ca', 'apiserver', 'bootstrap-token', 'kube-proxy']);
    expect(reporter.events).toContainEqual(expect.objectContaining({ type: 'phase-finish', phase: 'etcd', status: 'skipped', reason: 'external etcd' }));
  });

  test('a failure is wrapped once with the phase path and stops the run', async () => {
    const failing: Phase<Ctx>[] = [leaf('a'), { name: 'b', summary: 'b', run: () => Promise.reject(new TsadmError('E_CONFLICT', 'boom', { hint: 'h' })) }, leaf('c')];
    const { ctx: c } = ctx();
    const err = (await runPhases(failing, c, { filter: [], skip: [] }).catch((e: unknown) => e)) as TsadmError;
    expect(err.message).toBe('error execution phase b: boom');
    expect(err.code).toBe('E_CONFLICT');
    expect(err.hint).toBe('h');
    expect(c.ran).toEqual(['a']);
  });
});
