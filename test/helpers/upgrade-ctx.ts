import { RootedHost } from '../../src/host/rooted-host.js';
import { DryRunHost } from '../../src/host/dry-run-host.js';
import { PhaseLogger } from '../../src/log/logger.js';
import { createApiSeam, type ApiSeam } from '../../src/kube/seam.js';
import { resolveUpgradeConfig } from '../../src/config/load-upgrade.js';
import type { UpgradeSettings } from '../../src/config/types.js';
import type { FlagValues } from '../../src/flags.js';
import { realUpgradeDeps, type UpgradeDeps } from '../../src/phases/upgrade/deps.js';
import { realSystem, type SystemProbe } from '../../src/host/system-probe.js';
import { newUpgradeRunState } from '../../src/phases/upgrade/state.js';
import type { UpgradeClusterView } from '../../src/upgrade-plan/cluster-view.js';
import type { UpgradeCtx } from '../../src/phases/upgrade/context.js';
import { MemoryReporter } from './phase-ctx.js';

export interface UpgradeCtxOptions {
  readonly command?: 'apply' | 'node';
  /** The [version] argument. */
  readonly version?: string;
  /** Flags as the command line gives them (resolved as a run resolves them). */
  readonly flags?: FlagValues;
  /** Settings changed after resolution (e.g. { kubernetesVersion: 'v1.20.3' }). */
  readonly settings?: Partial<UpgradeSettings>;
  readonly dryRun?: boolean;
  readonly now?: Date;
  readonly hostname?: string;
  readonly api?: ApiSeam;
  readonly deps?: Partial<UpgradeDeps>;
  /** The machine (default: the real one, as root). */
  readonly system?: SystemProbe;
  /** The cluster as the run would have read it (otherwise it is read through the API seam). */
  readonly view?: UpgradeClusterView;
}

/**
 * An UpgradeCtx over a temp root (or a dry-run overlay of it) for phase tests: the admin
 * kubeconfig is /etc/kubernetes/admin.conf under the root, the user is root (unless `system` says
 * otherwise), the hostname "cp1" unless given.
 */
export function upgradeCtxFor(root: string, opts: UpgradeCtxOptions = {}): { ctx: UpgradeCtx; reporter: MemoryReporter } {
  const reporter = new MemoryReporter();
  const rooted = new RootedHost(root);
  const dryRun = opts.dryRun ?? false;
  const host = dryRun ? new DryRunHost(rooted) : rooted;
  const now = opts.now ?? new Date();
  const flags = { ...(dryRun ? { 'dry-run': true } : {}), ...(opts.flags ?? {}) };
  const command = opts.command ?? 'apply';
  const resolved = resolveUpgradeConfig({ flags, ...(opts.version !== undefined ? { version: opts.version } : {}) }, command);
  const state = newUpgradeRunState();
  if (opts.view) state.cluster = Promise.resolve(opts.view);
  const ctx: UpgradeCtx = {
    host,
    api: opts.api ?? createApiSeam(host, dryRun),
    log: new PhaseLogger(reporter, () => now),
    dryRun,
    system: opts.system ?? { ...realSystem, uid: () => 0 },
    clock: () => new Date(),
    startTime: now,
    command,
    cfg: { ...resolved, upgrade: { ...resolved.upgrade, ...(opts.settings ?? {}) } },
    flags,
    options: { kubeconfigPath: '/etc/kubernetes/admin.conf' },
    deps: realUpgradeDeps(process.stdin, { hostname: () => opts.hostname ?? 'cp1', confirm: () => Promise.resolve('y'), ...(opts.deps ?? {}) }),
    state,
  };
  return { ctx, reporter };
}
