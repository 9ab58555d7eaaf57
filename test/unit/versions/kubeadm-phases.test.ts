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
import { computeSelection } from '../../../src/engine/selection.js';
import { TsadmError } from '../../../src/errors.js';
import { KUBEADM_PHASES, TSADM_OWN_PHASES, kubeadmHasPhase, kubeadmVisiblePhases, markPhaseOrigins, phaseNotInMinor, type PhaseWorkflow } from '../../../src/versions/kubeadm-phases.js';
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

test('init: show-join-command is a phase from 1.26, not 1.25 (PR #111512 is in the release-1.26 notes)', () => {
  expect(kubeadmHasPhase('init', 'show-join-command', '1.25')).toBe(false);
  expect(kubeadmHasPhase('init', 'show-join-command', '1.26')).toBe(true);
  expect(kubeadmVisiblePhases('init', '1.25')).not.toContain('show-join-command');
  expect(initPhases(profileFor('v1.26.0')).find((p) => p.name === 'show-join-command')?.hidden).toBeUndefined();
});

test('markPhaseOrigins marks by name and path only, and keeps the order', () => {
  const leaf = (name: string): Phase<unknown> => ({ name, summary: name, run: () => Promise.resolve() });
  const marked = markPhaseOrigins('reset', '1.37', [leaf('host'), leaf('preflight'), leaf('update-cluster-status'), leaf('cleanup-node')]);
  expect(marked.map((p) => [p.name, p.own === true, p.retired === true])).toEqual([
    ['host', false, false], ['preflight', false, false], ['update-cluster-status', false, true], ['cleanup-node', false, false],
  ]);
});

describe('a phase kubeadm of the target minor does not have yet is refused when named (phase <name>, --skip-phases)', () => {
  const select = (tree: readonly Phase<unknown>[], filter: string[], skip: string[], absent?: (p: string) => string | undefined) => () => computeSelection(tree, filter, skip, absent);
  const leaf = (name: string): Phase<unknown> => ({ name, summary: name, run: () => Promise.resolve() });

  test('markPhaseOrigins marks a shown phase of a later kubeadm unavailable, with a one-line reason naming the minor', () => {
    const tree = markPhaseOrigins('init', '1.24', [leaf('preflight'), leaf('show-join-command')]);
    expect(select(tree, ['show-join-command'], [])).toThrow(new TsadmError('E_USAGE', 'phase "show-join-command": not a phase of kubeadm v1.24, the target\'s minor (kubeadm has show-join-command from v1.26)'));
    expect(select(tree, [], ['show-join-command'])).toThrow(/^--skip-phases entry "show-join-command": not a phase of kubeadm v1\.24/);
    expect(markPhaseOrigins('init', '1.26', [leaf('show-join-command')])[0]?.unavailable).toBeUndefined();
  });

  test('a hidden step kubeadm ran without a phase keeps its name for every minor (init show-join-command < 1.26, upgrade node addon 1.28-1.31)', () => {
    const v125 = initPhases(profileFor('v1.25.16'));
    expect(v125.find((p) => p.name === 'show-join-command')?.hidden).toBe(true);
    expect(select(v125, ['show-join-command'], [])).not.toThrow();
    expect(select(upgradeNodePhases(profileFor('v1.30.4')), [], ['addon/coredns'])).not.toThrow();
  });

  test('upgrade node: a phase its tree lacks is refused naming the minor (post-upgrade before 1.32, addon before 1.28; PR #127242)', () => {
    const absent = (minor: SupportedMinor) => (p: string) => phaseNotInMinor('upgrade-node', minor, p);
    expect(select(upgradeNodePhases(profileFor('v1.30.4')), [], ['post-upgrade'], absent('1.30')))
      .toThrow(new TsadmError('E_USAGE', '--skip-phases entry "post-upgrade": not a phase of kubeadm v1.30, the target\'s minor (kubeadm has post-upgrade from v1.32)'));
    expect(select(upgradeNodePhases(profileFor('v1.27.0')), ['addon/coredns'], [], absent('1.27'))).toThrow(/^phase "addon\/coredns": not a phase of kubeadm v1\.27, the target's minor \(kubeadm has addon from v1\.32\)$/);
    expect(select(upgradeNodePhases(profileFor('v1.32.0')), ['post-upgrade'], ['addon'], absent('1.32'))).not.toThrow();
    // A name kubeadm never had stays the generic error.
    expect(select(upgradeNodePhases(profileFor('v1.30.4')), [], ['nope'], absent('1.30'))).toThrow(/is not a phase of this command/);
  });

  test('join: the phases of later minors, by the cluster\'s minor (etcd-join 1.31, wait-control-plane 1.30)', () => {
    expect(phaseNotInMinor('join', '1.29', 'wait-control-plane')).toBe('not a phase of kubeadm v1.29, the target\'s minor (kubeadm has wait-control-plane from v1.30)');
    expect(phaseNotInMinor('join', '1.30', 'etcd-join')).toMatch(/from v1\.31\)$/);
    expect(select(markPhaseOrigins('join', '1.30', treeOf('join', NEWEST_MINOR)), [], ['kubelet-wait-bootstrap'])).toThrow(/not a phase of kubeadm v1\.30/);
    expect(phaseNotInMinor('join', '1.31', 'etcd-join')).toBeUndefined();
  });

  test('tsadm\'s own phases and retired phases stay accepted (decision 73)', () => {
    expect(phaseNotInMinor('init', '1.20', 'host')).toBeUndefined();
    expect(select(initPhases(profileFor('v1.20.2')), ['host'], ['wait-for-kubelet', 'certs-auto-renew'])).not.toThrow();
    expect(select(resetPhases('1.37'), [], ['update-cluster-status'])).not.toThrow();
    expect(select(markPhaseOrigins('join', '1.20', treeOf('join', NEWEST_MINOR)), [], ['control-plane-join/update-status', 'host'])).not.toThrow();
  });

  test('upgrade apply keeps its phases for every target (docs/upgrade.md: tsadm runs the steps as phases for every version)', () => {
    expect(select(upgradeApplyPhases(), ['addon/coredns'], ['post-upgrade'])).not.toThrow();
  });
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
