import { RootedHost } from '../../src/host/rooted-host.js';
import { DryRunHost } from '../../src/host/dry-run-host.js';
import { createApiSeam } from '../../src/kube/seam.js';
import { PhaseLogger } from '../../src/log/logger.js';
import type { ResolvedUpgradeConfig, UpgradeSettings } from '../../src/config/types.js';
import { realSystem } from '../../src/phases/preflight/system.js';
import { newUpgradeRunState } from '../../src/phases/upgrade/state.js';
import type { UpgradeCtx } from '../../src/workflows/context.js';
import { MemoryReporter } from './phase-ctx.js';

/** `upgrade apply|node` settings as the flags' defaults give them, with the test's changes. */
function upgradeSettings(over: Partial<UpgradeSettings> = {}): UpgradeSettings {
  return {
    kubernetesVersion: undefined,
    allowExperimentalUpgrades: false,
    allowRCUpgrades: false,
    certificateRenewal: true,
    etcdUpgrade: true,
    force: false,
    yes: true,
    dryRun: false,
    ignorePreflightErrors: [],
    skipPhases: [],
    upgradeManifestsTimeoutMs: 5 * 60_000,
    kubernetesAPICallMs: 60_000,
    printConfig: false,
    ...over,
  };
}

/**
 * An UpgradeCtx over a temp root (or a dry-run overlay of it) for phase tests: the admin
 * kubeconfig is /etc/kubernetes/admin.conf under the root, the hostname is given.
 */
export function upgradeCtxFor(root: string, opts: { command?: 'apply' | 'node'; settings?: Partial<UpgradeSettings>; dryRun?: boolean; hostname?: string } = {}): { ctx: UpgradeCtx; reporter: MemoryReporter } {
  const reporter = new MemoryReporter();
  const rooted = new RootedHost(root);
  const dryRun = opts.dryRun ?? false;
  const host = dryRun ? new DryRunHost(rooted) : rooted;
  const now = new Date();
  const command = opts.command ?? 'apply';
  const cfg: ResolvedUpgradeConfig = { kind: 'upgrade', command, upgrade: upgradeSettings({ dryRun, ...opts.settings }), warnings: [] };
  const ctx: UpgradeCtx = {
    host,
    api: createApiSeam(host, dryRun),
    log: new PhaseLogger(reporter, () => now),
    dryRun,
    clock: () => new Date(),
    startTime: now,
    command,
    cfg,
    flags: {},
    options: { kubeconfigPath: '/etc/kubernetes/admin.conf' },
    deps: { confirm: () => Promise.resolve('y'), system: realSystem, hostname: () => opts.hostname ?? 'cp1' },
    state: newUpgradeRunState(),
  };
  return { ctx, reporter };
}
