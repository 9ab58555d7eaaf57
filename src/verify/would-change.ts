import { errorMessage } from '../errors.js';
import { DryRunHost } from '../host/dry-run-host.js';
import type { Host } from '../host/host.js';
import { RootedHost } from '../host/rooted-host.js';
import { createApiSeam, type ApiSeam } from '../kube/seam.js';
import type { Reporter } from '../log/events.js';
import { PhaseLogger } from '../log/logger.js';
import { journalOf, type JournalStep } from '../host/journal.js';
import { diffNode, nodeView } from '../plan/diff.js';
import type { CheckFinding, Phase } from '../engine/phase.js';
import type { ConfigMapObject, KubeObject } from '../kube/types.js';
import { CLUSTER_INFO_CM, KUBE_PUBLIC } from '../constants.js';
import { JWS_KEY_PREFIX } from '../token/jws.js';
import { newPatchCache } from '../patches/run.js';
import { newPkiRunState } from '../certs/run-state.js';

const SILENT: Reporter = { emit: () => undefined, close: () => Promise.resolve() };

/**
 * The generic exit check: "would running this phase again change anything?" The phase runs as a
 * dry run against this node (files through a dry-run overlay, the live cluster read-only); every
 * file it would write differently and every object it would create, update or patch is a
 * finding. It is exactly the phase's own notion of done (kubeadm's reuse rules included: a
 * certificate with a missing SAN makes the certs phase refuse, which is reported as is).
 */
export async function wouldChange<C extends { readonly host: Host; readonly api: ApiSeam; readonly log: PhaseLogger; readonly dryRun: boolean }>(
  path: string,
  phase: Phase<C>,
  ctx: C,
): Promise<CheckFinding[]> {
  if (!phase.run) return [];
  const host = new DryRunHost(new RootedHost(ctx.host.root));
  const log = new PhaseLogger(SILENT);
  log.phase = path;
  const seam = createApiSeam(host, true);
  // A copy of the context on the dry-run seams; run state (e.g. a certificate key) is not shared back.
  const probe = { ...ctx, host, api: seam, log, dryRun: true, ...('state' in ctx ? { state: probeState((ctx as { state: object }).state) } : {}) } as C;
  try {
    const reason = await phase.skipIf?.(probe);
    if (reason !== undefined) return [{ check: path, ok: true, warning: true, detail: `not applicable: ${reason}` }];
    await phase.run(probe);
  } catch (err) {
    return [{ check: path, ok: false, detail: errorMessage(err) }];
  } finally {
    seam.close();
  }
  const journal = journalOf(host)!;
  const unreachable = [...journal.clusters.values()].filter((c) => !c.reachable);
  const findings = journal.steps.flatMap((s) => finding(path, s));
  const [api, other] = [findings.filter((f) => f.api), findings.filter((f) => !f.api)];
  const out: CheckFinding[] = other.map(({ api: _a, ...f }) => f);
  if (api.length > 0 && unreachable.length > 0) {
    out.push({ check: `${path}: API objects`, ok: true, warning: true, detail: `not checked: the cluster at ${unreachable.map((c) => c.server).join(', ')} does not answer` });
  } else {
    out.push(...api.map(({ api: _a, ...f }) => f));
  }
  if (out.length === 0) out.push({ check: path, ok: true, detail: 'in place (running the phase again would change nothing)' });
  return out;
}

/**
 * The probe's own copy of the run state: the certs/kubeconfig bookkeeping, key pool and patch
 * cache start fresh, and nothing opened on the run's real seams (API clients, init-shaped views of
 * join and upgrade) serves the probe, which must only ever write to its dry-run seams. What was
 * read from the cluster (join's discovery, upgrade's cluster view) stays: it is data, not a client.
 */
function probeState(state: object): object {
  const fresh: Record<string, unknown> = { ...state };
  delete fresh.adminApi;
  delete fresh.bootstrapApi;
  if ('views' in state) fresh.views = new Map();
  if ('upgraded' in state) fresh.upgraded = [];
  if ('pki' in state) fresh.pki = newPkiRunState();
  if ('patches' in state) fresh.patches = newPatchCache();
  return fresh;
}

type Found = CheckFinding & { readonly api?: true };

/**
 * cluster-info as it should be but for its jws-kubeconfig-<id> keys: init writes the signatures of
 * its tokens (decision 28 in docs/decisions.md), the bootstrapsigner keeps them for every token
 * afterwards, and a check knows only the tokens its configuration names (a token init made up is
 * unknown to it), so signatures are not what a check compares.
 */
export function onlyTokenSignaturesDiffer(desired: KubeObject, existing: KubeObject | undefined): boolean {
  if (desired.kind !== 'ConfigMap' || desired.metadata.namespace !== KUBE_PUBLIC || desired.metadata.name !== CLUSTER_INFO_CM || !existing) return false;
  const unsigned = (o: KubeObject): Record<string, string> => Object.fromEntries(Object.entries((o as ConfigMapObject).data ?? {}).filter(([k]) => !k.startsWith(JWS_KEY_PREFIX)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify(unsigned(desired)) === JSON.stringify(unsigned(existing));
}

function finding(path: string, s: JournalStep): Found[] {
  switch (s.type) {
    case 'file':
      return s.unchanged ? [{ check: s.path, ok: true, detail: 'present and as expected' }] : [{ check: s.path, ok: false, detail: `missing or different (the ${path} phase would write it)` }];
    case 'object': {
      if (s.verb === 'patch') {
        const diff = diffNode(nodeView(s.before), nodeView(s.after));
        if (diff.length === 0) return [];
        return [{ api: true, check: `Node ${s.name}`, ok: false, detail: `lacks ${diff.map((d) => `${d.op} ${d.path}${d.to !== undefined ? `=${JSON.stringify(d.to)}` : ''}`).join(', ')}` }];
      }
      if (s.verb === 'delete') return [{ api: true, check: `${s.kind} ${s.name}`, ok: false, detail: 'present but should not be' }];
      if (s.verb === 'approval') return []; // a decision on a pending request, not a state a phase leaves
      const o = s.object;
      const what = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
      // A bootstrap token init makes up is unknown to a later check: its absence is not a failure.
      if (s.verb === 'create' && o.kind === 'Secret' && (o as { type?: string }).type === 'bootstrap.kubernetes.io/token') {
        return [{ api: true, check: what, ok: true, warning: true, detail: 'token not found (a token init made up is not known to this check; give it with --config to check it)' }];
      }
      if (s.verb === 'update' && onlyTokenSignaturesDiffer(o, s.existing)) {
        return [{ api: true, check: what, ok: true, detail: 'in place (its token signatures are kept by the controller-manager\'s bootstrapsigner)' }];
      }
      return [{ api: true, check: what, ok: false, detail: s.verb === 'create' ? 'missing' : 'differs from what tsadm writes' }];
    }
    default:
      return []; // service restarts, directories, commands: what a phase does, not what it leaves
  }
}
