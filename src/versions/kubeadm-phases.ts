/**
 * Which phase kubeadm has in which minor, for every phase tree tsadm builds (init, join, reset,
 * upgrade apply, upgrade node), and which phases of those trees are tsadm's own. The one place
 * these facts live: the workflows (src/workflows) mark their trees from here (`markPhaseOrigins`),
 * help lists kubeadm's tree first and tsadm's own apart (src/cli/help.ts), and
 * test/unit/versions/kubeadm-phases.test.ts checks every minor's built tree against this list.
 *
 * Facts from kubeadm's sources (cmd/kubeadm/app/cmd/{init,join,reset}.go AppendPhase lists,
 * cmd/kubeadm/app/cmd/phases/**), the pull request that added or removed each phase, and the
 * CHANGELOG line naming it. Only top-level phases and the one sub-phase kubeadm removed are listed;
 * a phase kubeadm kept in every minor 1.20–1.37 has no `since`/`until`.
 */
import { NEWEST_MINOR, type SupportedMinor } from './minors.js';

export type PhaseWorkflow = 'init' | 'join' | 'reset' | 'upgrade-apply' | 'upgrade-node';

export interface KubeadmPhaseFact {
  /** Path in kubeadm's tree ("control-plane-join/update-status"). */
  readonly path: string;
  /** First minor with the phase (absent: every supported minor). */
  readonly since?: SupportedMinor;
  /** First minor without it (absent: still there in the newest). */
  readonly until?: SupportedMinor;
  /** Minors where kubeadm has the phase but hides it from help (`Hidden: true`): [from, to) by minor. */
  readonly hidden?: readonly [SupportedMinor | undefined, SupportedMinor | undefined];
  readonly source: string;
}

const ALL = 'every minor 1.20–1.37 (AppendPhase in cmd/kubeadm/app/cmd/%s.go)';

export const KUBEADM_PHASES: Readonly<Record<PhaseWorkflow, readonly KubeadmPhaseFact[]>> = {
  init: [
    ...['preflight', 'certs', 'kubeconfig', 'kubelet-start', 'control-plane', 'etcd', 'upload-config', 'upload-certs', 'mark-control-plane', 'bootstrap-token', 'kubelet-finalize', 'addon']
      .map((path) => ({ path, source: ALL.replace('%s', 'init') })),
    {
      path: 'wait-control-plane',
      hidden: [undefined, '1.34'],
      source: 'cmd/kubeadm/app/cmd/phases/init/waitcontrolplane.go: Hidden: true until WaitForAllControlPlaneComponents went GA in v1.34 (PR #132594)',
    },
    {
      path: 'show-join-command',
      since: '1.26',
      source: 'cmd/kubeadm/app/cmd/phases/init/showjoincommand.go, a phase since v1.26 (PR #111512: in the v1.26.0-alpha.1 notes and sig-release\'s releases/release-1.26 maps, absent from release-1.25\'s); before, init printed the join command after its phases',
    },
  ],
  join: [
    ...['preflight', 'control-plane-prepare', 'kubelet-start', 'control-plane-join'].map((path) => ({ path, source: ALL.replace('%s', 'join') })),
    { path: 'check-etcd', hidden: [undefined, undefined], source: 'cmd/kubeadm/app/cmd/phases/join/checketcd.go (Hidden: true)' },
    { path: 'etcd-join', since: '1.31', hidden: ['1.31', '1.35'], source: 'PR #125582 (v1.31, hidden, ControlPlaneKubeletLocalMode); visible from v1.35 (PR #134106; the 1.33.x/1.34.x patch releases of PRs #135481/#135482 are not modelled)' },
    { path: 'kubelet-wait-bootstrap', since: '1.31', hidden: ['1.31', '1.33'], source: 'PR #125780 (v1.31, hidden and [EXPERIMENTAL]); shown from v1.33 (PR #129956)' },
    { path: 'wait-control-plane', since: '1.30', source: 'cmd/kubeadm/app/cmd/phases/join/waitcontrolplane.go, PR #123341 (v1.30)' },
    {
      path: 'control-plane-join/update-status',
      until: '1.31',
      source: 'a NO-OP since v1.22 (PR #101915, ClusterStatus removed from v1beta3); removed in v1.31 (PR #124373, CHANGELOG-1.31: "remove the deprecated and NO-OP kubeadm join control-plane-join update-status phase")',
    },
  ],
  reset: [
    ...['preflight', 'remove-etcd-member', 'cleanup-node'].map((path) => ({ path, source: ALL.replace('%s', 'reset') })),
    {
      path: 'update-cluster-status',
      until: '1.23',
      source: 'cmd/kubeadm/app/cmd/phases/reset/updateclusterstatus.go: "(DEPRECATED)" and a NO-OP in v1.22 (PR #101915); removed in v1.23 (PR #105888, commit b9171aee; CHANGELOG-1.23: "remove the deprecated / NO-OP phase update-cluster-status in kubeadm reset"; kubernetes/website PR #30855)',
    },
  ],
  // Before 1.32 `kubeadm upgrade apply` had no phases at all (no `phase` subcommand, no --skip-phases):
  // PR #126032 (held from 1.31 to 1.32), CHANGELOG-1.32: "`kubeadm upgrade apply` now supports phase sub-command".
  // tsadm runs the same steps as phases for every minor (src/workflows/upgrade.ts).
  'upgrade-apply': ['preflight', 'control-plane', 'upload-config', 'kubelet-config', 'bootstrap-token', 'addon', 'post-upgrade']
    .map((path) => ({ path, since: '1.32' as const, source: 'cmd/kubeadm/app/cmd/phases/upgrade/apply/, PR #126032 (v1.32)' })),
  'upgrade-node': [
    ...['preflight', 'control-plane', 'kubelet-config'].map((path) => ({ path, source: 'cmd/kubeadm/app/cmd/upgrade/node.go (AppendPhase), every minor 1.20–1.37' })),
    { path: 'addon', since: '1.32', source: 'PR #127242 (v1.32): addon and post-upgrade phases of upgrade node; 1.28–1.31 upgraded the addons inside control-plane (PR #116570)' },
    { path: 'post-upgrade', since: '1.32', source: 'PR #127242 (v1.32)' },
  ],
};

/**
 * tsadm's own phases, not kubeadm's in any minor: `host` (opt-in host preparation, docs/host.md),
 * `wait-for-kubelet` (the kubelet health wait kubeadm does inside wait-control-plane, shown as a
 * phase of its own), `certs-auto-renew` (opt-in renewal timer, src/phases/certs/auto-renew.ts).
 * Help lists them apart and marked; --skip-phases and `<cmd> phase <name>` accept them.
 */
export const TSADM_OWN_PHASES: Readonly<Record<PhaseWorkflow, readonly string[]>> = {
  init: ['host', 'wait-for-kubelet', 'certs-auto-renew'],
  join: ['host', 'certs-auto-renew'],
  reset: [],
  'upgrade-apply': [],
  'upgrade-node': [],
};

function minorNumber(minor: SupportedMinor): number {
  return Number(minor.split('.')[1]);
}

function inRange(minor: SupportedMinor, from: SupportedMinor | undefined, to: SupportedMinor | undefined): boolean {
  const n = minorNumber(minor);
  return (from === undefined || n >= minorNumber(from)) && (to === undefined || n < minorNumber(to));
}

/** The fact of a kubeadm phase path of a workflow, or undefined when kubeadm never had it. */
function kubeadmPhaseFact(workflow: PhaseWorkflow, path: string): KubeadmPhaseFact | undefined {
  return KUBEADM_PHASES[workflow].find((f) => f.path === path);
}

/** Whether kubeadm of `minor` has the phase (hidden or not). */
export function kubeadmHasPhase(workflow: PhaseWorkflow, path: string, minor: SupportedMinor): boolean {
  const fact = kubeadmPhaseFact(workflow, path);
  return fact !== undefined && inRange(minor, fact.since, fact.until);
}

/** kubeadm's top-level phases of `minor` that its help shows (not hidden), as a set (order: see the goldens). */
export function kubeadmVisiblePhases(workflow: PhaseWorkflow, minor: SupportedMinor): string[] {
  return KUBEADM_PHASES[workflow]
    .filter((f) => !f.path.includes('/') && inRange(minor, f.since, f.until))
    .filter((f) => !(f.hidden && inRange(minor, f.hidden[0], f.hidden[1])))
    .map((f) => f.path);
}

/**
 * What markPhaseOrigins reads and marks of a phase: the engine's Phase has these fields (this module
 * is a per-minor fact of the base layer, so it names the shape rather than importing the engine).
 */
interface PhaseNode<P> {
  readonly name: string;
  readonly children?: readonly P[];
  readonly own?: boolean;
  readonly retired?: boolean;
  readonly hidden?: boolean;
  readonly unavailable?: string;
}

/**
 * Marks a workflow's tree for `minor`: tsadm's own phases `own`, and a phase kubeadm of that minor
 * no longer has `retired` (left out of help, still run where it applies, still accepted by
 * --skip-phases and `phase <name>`, because a tree built for a minor that cannot be known before
 * the run, as reset's, must still serve the older clusters that need it: decision in
 * docs/decisions.md). A phase kubeadm of that minor has not added yet keeps the workflow's own
 * handling: hidden where kubeadm ran the step without a phase (still named, for every minor), else
 * marked `unavailable`, so that naming it is refused as kubeadm of that minor refuses a phase name
 * it does not know. join's tree is the newest minor's whatever the cluster, so join asks
 * phaseNotInMinor once it knows the cluster's minor (src/workflows/join.ts); upgrade apply's
 * phases are tsadm's for every target (src/workflows/upgrade.ts).
 */
export function markPhaseOrigins<P extends PhaseNode<P>>(workflow: PhaseWorkflow, minor: SupportedMinor, tree: readonly P[], parent = ''): P[] {
  const own = TSADM_OWN_PHASES[workflow];
  return tree.map((p) => {
    const path = parent ? `${parent}/${p.name}` : p.name;
    if (!parent && own.includes(p.name)) return { ...p, own: true };
    const fact = kubeadmPhaseFact(workflow, path);
    const retired = fact?.until !== undefined && !inRange(minor, fact.since, fact.until);
    // A hidden one is the step kubeadm of that minor ran without a phase (init's show-join-command
    // before 1.25, upgrade node's addons 1.28-1.31): tsadm names it for every minor, as documented.
    // The phase with the fact is marked; selection refuses the paths below it too.
    const unavailable = !p.hidden && fact?.since !== undefined ? phaseNotInMinor(workflow, minor, path) : undefined;
    const children = p.children ? markPhaseOrigins(workflow, minor, p.children, path) : undefined;
    return { ...p, ...(retired ? { retired: true } : {}), ...(unavailable ? { unavailable } : {}), ...(children ? { children } : {}) };
  });
}

/**
 * Why a phase path ("addon/coredns") may not be named for `minor`: kubeadm of that minor has not
 * added it (or the phase above it) yet. Undefined for tsadm's own phases, for phases kubeadm has
 * in that minor, for retired ones (decision 73) and for names kubeadm never had.
 */
export function phaseNotInMinor(workflow: PhaseWorkflow, minor: SupportedMinor, path: string): string | undefined {
  if (TSADM_OWN_PHASES[workflow].includes(path.split('/')[0] ?? '')) return undefined;
  const fact = KUBEADM_PHASES[workflow].find((f) => f.since !== undefined && (path === f.path || path.startsWith(`${f.path}/`)));
  if (fact?.since === undefined || inRange(minor, fact.since, undefined)) return undefined;
  return `not a phase of kubeadm v${minor}, the target's minor (kubeadm has ${fact.path} from v${fact.since})`;
}

/** The minor whose tree help shows when it cannot know the target (yargs builds help before any flag is read). */
export const HELP_MINOR: SupportedMinor = NEWEST_MINOR;
