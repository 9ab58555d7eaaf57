import { computeSelection, normalizePath } from '../../../src/engine/selection.js';
import { flatten, flagsOf, validateTree, type Phase } from '../../../src/engine/phase.js';
import { runPhases } from '../../../src/engine/runner.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { TsadmError } from '../../../src/errors.js';
import { FLAG_NAMES } from '../../../src/cli/flags.js';

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

// kubeadm's TestComputePhaseRunFlags use cases, on tsadm's tree.
describe('computeSelection', () => {
  const enabled = (filter: string[], skip: string[]) =>
    [...computeSelection(tree, filter, skip)].filter(([, on]) => on).map(([p]) => p);

  test.each([
    ['no options enables all', [], [], ['preflight', 'certs', 'certs/ca', 'certs/apiserver', 'etcd', 'etcd/local', 'bootstrap-token', 'addon', 'addon/coredns', 'addon/kube-proxy']],
    ['filter a leaf', ['certs/apiserver'], [], ['certs', 'certs/apiserver']],
    ['filter a parent enables its subtree', ['addon'], [], ['addon', 'addon/coredns', 'addon/kube-proxy']],
    ['skip a parent disables its subtree', [], ['addon'], ['preflight', 'certs', 'certs/ca', 'certs/apiserver', 'etcd', 'etcd/local', 'bootstrap-token']],
    ['skip wins over filter', ['addon'], ['addon/kube-proxy'], ['addon', 'addon/coredns']],
    ['space spelling and aliases', ['certs apiserver'], ['bootstraptoken'], ['certs', 'certs/apiserver']],
  ])('%s', (_n, filter, skip, want) => {
    expect(enabled(filter, skip)).toEqual(want);
  });

  test('unknown names are usage errors listing the valid phases', () => {
    expect(() => computeSelection(tree, [], ['nope'])).toThrow(TsadmError);
    expect(() => computeSelection(tree, [], ['certs/nope'])).toThrow(/--skip-phases entry "certs\/nope" is not a phase/);
  });

  test('normalizePath', () => {
    expect(normalizePath(' /certs/apiserver/ ')).toBe('certs/apiserver');
    expect(normalizePath('certs apiserver')).toBe('certs/apiserver');
  });
});

describe('tree', () => {
  test('flatten is depth-first, parents first', () => {
    expect(flatten(tree).map((f) => f.path).slice(0, 4)).toEqual(['preflight', 'certs', 'certs/ca', 'certs/apiserver']);
  });
  test('a parent\'s flags are the union of its children\'s', () => {
    expect(flagsOf(tree[1] as Phase<Ctx>)).toEqual(['cert-dir', 'apiserver-cert-extra-sans']);
  });
  test('validateTree rejects bad trees', () => {
    expect(() => validateTree(tree, FLAG_NAMES)).not.toThrow();
    expect(() => validateTree([{ name: 'Bad_Name', summary: '', run: () => Promise.resolve() }], FLAG_NAMES)).toThrow(/kebab-case/);
    expect(() => validateTree([leaf('a'), leaf('a')], FLAG_NAMES)).toThrow(/duplicate/);
    expect(() => validateTree([{ name: 'x', summary: '' }], FLAG_NAMES)).toThrow(/leaf without run/);
    expect(() => validateTree([{ name: 'x', summary: '', run: () => Promise.resolve(), children: [leaf('y')] }], FLAG_NAMES)).toThrow(/both run and children/);
    expect(() => validateTree([leaf('x', { flags: ['nope' as never] })], FLAG_NAMES)).toThrow(/unknown flag/);
    expect(() => validateTree([{ name: 'p', summary: '', children: [leaf('all')] }], FLAG_NAMES)).toThrow(/generated/);
  });
});

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
