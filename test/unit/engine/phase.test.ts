import { flatten, flagsOf, validateTree, type Phase } from '../../../src/engine/phase.js';
import { FLAG_NAMES } from '../../../src/flags.js';
import { leaf, phaseTree, type TreeCtx } from '../../helpers/phase-tree.js';

describe('tree', () => {
  test('flatten is depth-first, parents first', () => {
    expect(flatten(phaseTree).map((f) => f.path).slice(0, 4)).toEqual(['preflight', 'certs', 'certs/ca', 'certs/apiserver']);
  });
  test('a parent\'s flags are the union of its children\'s', () => {
    expect(flagsOf(phaseTree[1] as Phase<TreeCtx>)).toEqual(['cert-dir', 'apiserver-cert-extra-sans']);
  });
  test('validateTree rejects bad trees', () => {
    expect(() => validateTree(phaseTree, FLAG_NAMES)).not.toThrow();
    expect(() => validateTree([{ name: 'Bad_Name', summary: '', run: () => Promise.resolve() }], FLAG_NAMES)).toThrow(/kebab-case/);
    expect(() => validateTree([leaf('a'), leaf('a')], FLAG_NAMES)).toThrow(/duplicate/);
    expect(() => validateTree([{ name: 'x', summary: '' }], FLAG_NAMES)).toThrow(/leaf without run/);
    expect(() => validateTree([{ name: 'x', summary: '', run: () => Promise.resolve(), children: [leaf('y')] }], FLAG_NAMES)).toThrow(/both run and children/);
    expect(() => validateTree([leaf('x', { flags: ['nope' as never] })], FLAG_NAMES)).toThrow(/unknown flag/);
    expect(() => validateTree([{ name: 'p', summary: '', children: [leaf('all')] }], FLAG_NAMES)).toThrow(/generated/);
  });
});

const run = (): Promise<void> => Promise.resolve();
const verify = () => Promise.resolve([]);

test('validateTree: an exit check is declared once, on a leaf', () => {
  const leaf: Phase<unknown> = { name: 'leaf', summary: '', run, verify };
  expect(() => validateTree([leaf, { name: 'waits', summary: '', run, noExitCheck: 'always-runs' }], FLAG_NAMES)).not.toThrow();
  expect(() => validateTree([{ ...leaf, noExitCheck: 'always-runs' }], FLAG_NAMES)).toThrow(/leaf: has both verify and noExitCheck/);
  expect(() => validateTree([{ name: 'parent', summary: '', verify, children: [leaf] }], FLAG_NAMES)).toThrow(/parent: exit checks belong to leaves/);
});
