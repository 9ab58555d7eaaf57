import { computeSelection, normalizePath } from '../../../src/engine/selection.js';
import { TsadmError } from '../../../src/errors.js';
import { phaseTree } from '../../helpers/phase-tree.js';

// kubeadm's TestComputePhaseRunFlags use cases, on tsadm's tree.
describe('computeSelection', () => {
  const enabled = (filter: string[], skip: string[]) =>
    [...computeSelection(phaseTree, filter, skip)].filter(([, on]) => on).map(([p]) => p);

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
    expect(() => computeSelection(phaseTree, [], ['nope'])).toThrow(TsadmError);
    expect(() => computeSelection(phaseTree, [], ['certs/nope'])).toThrow(/--skip-phases entry "certs\/nope" is not a phase/);
  });

  test('a phase marked unavailable, or one below it, is refused with its reason in one line', () => {
    const tree = phaseTree.map((p) => (p.name === 'addon' ? { ...p, unavailable: 'not here' } : p));
    expect(() => computeSelection(tree, [], ['addon/coredns'])).toThrow(new TsadmError('E_USAGE', '--skip-phases entry "addon/coredns": not here'));
    expect(() => computeSelection(tree, ['addon'], [])).toThrow(new TsadmError('E_USAGE', 'phase "addon": not here'));
    // Naming nothing marked, the marked phase is selected and runs as before.
    expect(computeSelection(tree, [], ['certs']).get('addon/coredns')).toBe(true);
  });

  test('normalizePath', () => {
    expect(normalizePath(' /certs/apiserver/ ')).toBe('certs/apiserver');
    expect(normalizePath('certs apiserver')).toBe('certs/apiserver');
  });
});
