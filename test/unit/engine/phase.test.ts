import { validateTree, type Phase } from '../../../src/engine/phase.js';
import { FLAG_NAMES } from '../../../src/cli/flags.js';

const run = async (): Promise<void> => undefined;
const verify = async () => [];

test('validateTree: an exit check is declared once, on a leaf', () => {
  const leaf: Phase<unknown> = { name: 'leaf', summary: '', run, verify };
  expect(() => validateTree([leaf, { name: 'waits', summary: '', run, noExitCheck: 'always-runs' }], FLAG_NAMES)).not.toThrow();
  expect(() => validateTree([{ ...leaf, noExitCheck: 'always-runs' }], FLAG_NAMES)).toThrow(/leaf: has both verify and noExitCheck/);
  expect(() => validateTree([{ name: 'parent', summary: '', verify, children: [leaf] }], FLAG_NAMES)).toThrow(/parent: exit checks belong to leaves/);
});
