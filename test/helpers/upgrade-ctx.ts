import { RootedHost } from '../../src/host/rooted-host.js';
import { DryRunHost } from '../../src/host/dry-run-host.js';
import { PhaseLogger } from '../../src/log/logger.js';
import { createApiSeam, type ApiSeam } from '../../src/kube/seam.js';
import { resolveUpgradeConfig } from '../../src/config/load-upgrade.js';
import type { FlagValues } from '../../src/cli/flags.js';
import { realUpgradeDeps, type UpgradeDeps } from '../../src/phases/upgrade/deps.js';
import { newUpgradeRunState } from '../../src/phases/upgrade/state.js';
import type { UpgradeClusterView } from '../../src/upgrade/cluster-view.js';
import type { UpgradeCtx } from '../../src/workflows/context.js';
import { MemoryReporter } from './phase-ctx.js';

export interface UpgradeCtxOptions {
  readonly command?: 'apply' | 'node';
  readonly version?: string;
  readonly flags?: FlagValues;
  readonly dryRun?: boolean;
  readonly now?: Date;
  readonly api?: ApiSeam;
  readonly deps?: Partial<UpgradeDeps>;
  /** The cluster as the run would have read it (otherwise it is read through the API seam). */
  readonly view?: UpgradeClusterView;
}

/** An UpgradeCtx over a temp root (or a dry-run overlay of it) for phase tests. */
export function upgradeCtxFor(root: string, opts: UpgradeCtxOptions = {}): { ctx: UpgradeCtx; reporter: MemoryReporter } {
  const reporter = new MemoryReporter();
  const rooted = new RootedHost(root);
  const host = opts.dryRun ? new DryRunHost(rooted) : rooted;
  const now = opts.now ?? new Date();
  const flags = { ...(opts.dryRun ? { 'dry-run': true } : {}), ...(opts.flags ?? {}) };
  const command = opts.command ?? 'apply';
  const state = newUpgradeRunState();
  if (opts.view) state.cluster = Promise.resolve(opts.view);
  const ctx: UpgradeCtx = {
    host,
    api: opts.api ?? createApiSeam(host, opts.dryRun ?? false),
    log: new PhaseLogger(reporter, () => now),
    dryRun: opts.dryRun ?? false,
    clock: () => new Date(),
    startTime: now,
    command,
    cfg: resolveUpgradeConfig({ flags, ...(opts.version !== undefined ? { version: opts.version } : {}) }, command),
    flags,
    options: { kubeconfigPath: '/etc/kubernetes/admin.conf' },
    deps: realUpgradeDeps(process.stdin, { hostname: () => 'cp1', system: { ...realUpgradeDeps(process.stdin).system, uid: () => 0 }, ...(opts.deps ?? {}) }),
    state,
  };
  return { ctx, reporter };
}
