/**
 * Help shows kubeadm's phase tree of the minor first, in kubeadm's order, and tsadm's own phases
 * apart under a heading that marks them; a phase kubeadm of the minor dropped is not in its tree.
 * kubeadm's trees come from the golden facts of kubeadm's own source (test/fixtures/versions/) and,
 * for reset, from kubeadm's reset.go: 1.20–1.22 preflight, update-cluster-status,
 * remove-etcd-member, cleanup-node; 1.23+ without update-cluster-status (PR #105888).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import { OWN_PHASES_HEADING, RETIRED_PHASES_HEADING, phaseHelpTree } from '../../../src/cli/help.js';
import { computeSelection } from '../../../src/engine/selection.js';
import { DEFAULT_KUBERNETES_VERSION, profileFor } from '../../../src/versions/resolve.js';
import { DEFAULT_PATCH, type SupportedMinor } from '../../../src/versions/minors.js';
import { initPhases } from '../../../src/workflows/init.js';
import { resetPhases } from '../../../src/workflows/reset.js';
import { runCli } from '../../helpers/run-cli.js';

const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/versions');
const goldenInit = (minor: string): string[] => (yaml.load(readFileSync(path.join(GOLDEN_DIR, `${minor}.yaml`), 'utf8')) as { phases: { init: string[] } }).phases.init;

const KUBEADM_RESET_1_20 = ['preflight', 'update-cluster-status', 'remove-etcd-member', 'cleanup-node'];
const KUBEADM_RESET_1_23 = ['preflight', 'remove-etcd-member', 'cleanup-node'];

interface Sections { readonly kubeadm: string[]; readonly own: string[]; readonly retired: string[] }

/**
 * The top-level names of each section of a rendered tree: a row is the name, two spaces or more,
 * the summary; children start with spaces, and the lines yargs wraps have single spaces.
 */
function sections(text: string): Sections {
  const out: Record<keyof Sections, string[]> = { kubeadm: [], own: [], retired: [] };
  let current: keyof Sections = 'kubeadm';
  for (const line of text.split('\n')) {
    if (line === OWN_PHASES_HEADING) current = 'own';
    else if (line === RETIRED_PHASES_HEADING) current = 'retired';
    else if (/^[a-z0-9-]+ {2,}\S/.test(line)) out[current].push(line.split(' ')[0]!);
  }
  return out;
}

describe.each([['1.37'], ['1.24']] as Array<[SupportedMinor]>)('init at %s', (minor) => {
  const text = phaseHelpTree(initPhases(profileFor(DEFAULT_PATCH[minor])));

  test('kubeadm\'s tree first, in kubeadm\'s order, without tsadm\'s phases', () => {
    expect(sections(text).kubeadm).toEqual(goldenInit(minor));
  });

  test('tsadm\'s own phases apart, after kubeadm\'s tree, under the heading that marks them', () => {
    expect(sections(text).own).toEqual(['host', 'wait-for-kubelet', 'certs-auto-renew']);
    expect(text.indexOf(OWN_PHASES_HEADING)).toBeGreaterThan(text.indexOf(goldenInit(minor).at(-1)!));
    expect(sections(text).retired).toEqual([]);
  });
});

test('reset at 1.37: kubeadm\'s tree without update-cluster-status, which is listed apart as dropped', () => {
  const s = sections(phaseHelpTree(resetPhases('1.37')));
  expect(s.kubeadm).toEqual(KUBEADM_RESET_1_23);
  expect(s.retired).toEqual(['update-cluster-status']);
  expect(s.own).toEqual([]);
});

test.each([['1.20'], ['1.22']] as Array<[SupportedMinor]>)('reset at %s: kubeadm\'s tree with update-cluster-status in its place', (minor) => {
  const s = sections(phaseHelpTree(resetPhases(minor)));
  expect(s.kubeadm).toEqual(KUBEADM_RESET_1_20);
  expect(s.retired).toEqual([]);
});

test('--skip-phases accepts tsadm\'s own phases and the retired reset phase', () => {
  const init = initPhases(profileFor(DEFAULT_KUBERNETES_VERSION));
  const selected = computeSelection(init, [], ['host', 'wait-for-kubelet', 'certs-auto-renew']);
  expect([selected.get('host'), selected.get('wait-for-kubelet'), selected.get('certs-auto-renew'), selected.get('preflight')]).toEqual([false, false, false, true]);
  expect(computeSelection(resetPhases(), [], ['update-cluster-status']).get('update-cluster-status')).toBe(false);
});

describe('the CLI', () => {
  test('tsadm init --help: kubeadm\'s tree, then tsadm\'s own phases marked, and whose tree it is', async () => {
    const r = await runCli(['init', '--help']);
    expect(r.code).toBe(0);
    const tree = r.stdout.slice(r.stdout.indexOf('executes the following phases:'));
    expect(sections(tree).kubeadm).toEqual(goldenInit('1.37'));
    expect(sections(tree).own).toEqual(['host', 'wait-for-kubelet', 'certs-auto-renew']);
    expect(tree).toContain(OWN_PHASES_HEADING);
    expect(tree.indexOf('wait-for-kubelet')).toBeGreaterThan(tree.indexOf(OWN_PHASES_HEADING));
    expect(tree).toMatch(/The phases of kubeadm v1\.37/);
  });

  test('tsadm reset --help and reset phase --help leave update-cluster-status out of the tree; the phase command still exists', async () => {
    const help = await runCli(['reset', '--help']);
    const tree = help.stdout.slice(help.stdout.indexOf('executes the following phases:'), help.stdout.indexOf(RETIRED_PHASES_HEADING));
    expect(tree).toContain('remove-etcd-member');
    expect(tree).not.toContain('update-cluster-status');
    const phase = await runCli(['reset', 'phase', '--help']);
    const commands = phase.stdout.slice(0, phase.stdout.indexOf('Phases:'));
    expect(commands).toContain('remove-etcd-member');
    expect(commands).not.toContain('update-cluster-status');
    const alone = await runCli(['reset', 'phase', 'update-cluster-status', '--help']);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain('ClusterStatus');
  });
});
