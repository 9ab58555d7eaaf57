import { computeSelection, normalizePath } from '../../../src/engine/selection.js';
import { type Phase } from '../../../src/engine/phase.js';
import { PhaseLogger } from '../../../src/log/logger.js';
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
