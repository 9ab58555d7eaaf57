/**
 * The catalog of kubeadm's phases per minor (src/versions/kubeadm-phases.ts) against the trees the
 * workflows build for every supported minor, and against the golden facts taken from kubeadm's own
 * source (test/fixtures/versions/). A tree that shows a phase kubeadm of that minor does not show,
 * or hides one it shows, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import type { Phase } from '../../../src/engine/phase.js';
import { KUBEADM_PHASES, TSADM_OWN_PHASES, kubeadmHasPhase, kubeadmVisiblePhases, markPhaseOrigins, type PhaseWorkflow } from '../../../src/versions/kubeadm-phases.js';
import { DEFAULT_PATCH, NEWEST_MINOR, SUPPORTED_MINORS, type SupportedMinor } from '../../../src/versions/minors.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { initPhases } from '../../../src/workflows/init.js';
import { joinPhases } from '../../../src/workflows/join.js';
import { resetPhases } from '../../../src/workflows/reset.js';
import { upgradeApplyPhases, upgradeNodePhases } from '../../../src/workflows/upgrade.js';

const minorNo = (m: string): number => Number(m.split('.')[1]);
const MINORS = SUPPORTED_MINORS.filter((m: SupportedMinor) => minorNo(m) <= minorNo(NEWEST_MINOR));

function treeOf(workflow: PhaseWorkflow, minor: SupportedMinor): readonly Phase<unknown>[] {
  const v = profileFor(DEFAULT_PATCH[minor]);
  switch (workflow) {
    case 'init': return initPhases(v);
    case 'join': return joinPhases(v);
    case 'reset': return resetPhases(minor);
    case 'upgrade-apply': return upgradeApplyPhases();
    case 'upgrade-node': return upgradeNodePhases(v);
  }
}

/** What help lists as kubeadm's tree: top-level, not hidden, not tsadm's own, not retired. */
const shownAsKubeadm = (tree: readonly Phase<unknown>[]): string[] => tree.filter((p) => !p.hidden && !p.own && !p.retired).map((p) => p.name);

const WORKFLOWS: PhaseWorkflow[] = ['init', 'join', 'reset', 'upgrade-apply', 'upgrade-node'];

test.each(WORKFLOWS)('%s: for every minor, the tree help shows as kubeadm\'s is kubeadm\'s visible phases of that minor', (workflow) => {
  const wrong: string[] = [];
  for (const minor of MINORS) {
    // kubeadm before 1.32 has no upgrade apply phases; tsadm's apply tree is the same for every minor (src/workflows/upgrade.ts).
    if (workflow === 'upgrade-apply' && minorNo(minor) < 32) continue;
    const built = [...shownAsKubeadm(treeOf(workflow, minor))].sort();
    const kubeadm = [...kubeadmVisiblePhases(workflow, minor)].sort();
    if (JSON.stringify(built) !== JSON.stringify(kubeadm)) wrong.push(`${minor}: tsadm ${built.join(',')} / kubeadm ${kubeadm.join(',')}`);
  }
  expect(wrong).toEqual([]);
});

test.each(WORKFLOWS)('%s: tsadm\'s own phases are in the tree of every minor, marked own, and never kubeadm\'s', (workflow) => {
  for (const minor of MINORS) {
    const tree = treeOf(workflow, minor);
    const own = tree.filter((p) => p.own).map((p) => p.name);
    expect([minor, own.sort()]).toEqual([minor, [...TSADM_OWN_PHASES[workflow]].sort()]);
  }
  for (const name of TSADM_OWN_PHASES[workflow]) expect([name, KUBEADM_PHASES[workflow].some((f) => f.path === name)]).toEqual([name, false]);
});

test('reset: update-cluster-status is kubeadm\'s up to 1.22 and retired from 1.23 (PR #105888)', () => {
  expect(kubeadmHasPhase('reset', 'update-cluster-status', '1.22')).toBe(true);
  expect(kubeadmHasPhase('reset', 'update-cluster-status', '1.23')).toBe(false);
  const at = (minor: SupportedMinor): Phase<unknown> | undefined => resetPhases(minor).find((p) => p.name === 'update-cluster-status');
  expect(at('1.22')?.retired).toBeUndefined();
  expect(at('1.23')?.retired).toBe(true);
  // Retired, not removed: the run still has it for the v1beta2 clusters that keep a ClusterStatus.
  expect(at(NEWEST_MINOR)).toBeDefined();
});

test('join: control-plane-join/update-status is retired from 1.31 (PR #124373), the sub-phase level included', () => {
  const child = (minor: SupportedMinor): Phase<unknown> | undefined =>
    (treeOf('join', minor).find((p) => p.name === 'control-plane-join')?.children ?? []).find((c) => c.name === 'update-status');
  expect(child('1.30')?.retired).toBeUndefined();
  expect(child('1.31')?.retired).toBe(true);
});

test('markPhaseOrigins marks by name and path only, and keeps the order', () => {
  const leaf = (name: string): Phase<unknown> => ({ name, summary: name, run: () => Promise.resolve() });
  const marked = markPhaseOrigins('reset', '1.37', [leaf('host'), leaf('preflight'), leaf('update-cluster-status'), leaf('cleanup-node')]);
  expect(marked.map((p) => [p.name, p.own === true, p.retired === true])).toEqual([
    ['host', false, false], ['preflight', false, false], ['update-cluster-status', false, true], ['cleanup-node', false, false],
  ]);
});

interface GoldenPhases { phases: { init: string[]; join?: string[] } }
const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/versions');

const GOLDEN_MINORS = ['1.24', '1.29', '1.31', '1.34', '1.35', '1.36', '1.37'] as const;

test('every golden file is compared with the catalog', () => {
  expect(readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')).sort()).toEqual([...GOLDEN_MINORS].sort());
});

test.each(GOLDEN_MINORS)('the catalog agrees with the golden kubeadm facts of %s', (minor) => {
  const golden = (yaml.load(readFileSync(path.join(GOLDEN_DIR, `${minor}.yaml`), 'utf8')) as GoldenPhases).phases;
  expect([...kubeadmVisiblePhases('init', minor)].sort()).toEqual([...golden.init].sort());
  if (golden.join) expect([...kubeadmVisiblePhases('join', minor)].sort()).toEqual([...golden.join].sort());
});
