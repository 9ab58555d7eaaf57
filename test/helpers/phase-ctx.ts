import { RootedHost } from '../../src/host/rooted-host.js';
import { DryRunHost } from '../../src/host/dry-run-host.js';
import { PhaseLogger } from '../../src/log/logger.js';
import type { Reporter, TsadmEvent } from '../../src/log/events.js';
import { profileFor } from '../../src/versions/resolve.js';
import type { ResolvedInitConfig } from '../../src/config/types.js';
import type { InitCtx } from '../../src/run/context.js';
import { createApiSeam, type ApiSeam } from '../../src/kube/seam.js';
import { newPkiRunState } from '../../src/certs/run-state.js';
import { newPatchCache } from '../../src/patches/run.js';

/** Collects events so tests can assert on what a phase reported. */
export class MemoryReporter implements Reporter {
  readonly events: TsadmEvent[] = [];
  emit(event: TsadmEvent): void {
    this.events.push(event);
  }
  async close(): Promise<void> {}
  lines(): string[] {
    return this.events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
  }
}

/**
 * An InitCtx over a temp root (or a dry-run overlay of it) for phase tests. Its API seam opens
 * the kubeconfigs under the root, as a run's would; `api` puts a test's own seam in its place.
 */
export function initCtxFor(cfg: ResolvedInitConfig, root: string, opts: { dryRun?: boolean; now?: Date; api?: ApiSeam } = {}): { ctx: InitCtx; reporter: MemoryReporter } {
  const reporter = new MemoryReporter();
  const rooted = new RootedHost(root);
  const host = opts.dryRun ? new DryRunHost(rooted) : rooted;
  const now = opts.now ?? new Date();
  const log = new PhaseLogger(reporter, () => now);
  const ctx: InitCtx = {
    host,
    api: opts.api ?? createApiSeam(host, opts.dryRun ?? false),
    log,
    dryRun: opts.dryRun ?? false,
    clock: () => new Date(),
    startTime: now,
    cfg,
    versions: profileFor(cfg.cluster.kubernetesVersion),
    options: {
      kubeconfigDir: '/etc/kubernetes',
      kubeconfigPath: '/etc/kubernetes/admin.conf',
      csrOnly: false,
      csrDir: undefined,
      uploadCerts: false,
      skipTokenPrint: false,
      skipCertificateKeyPrint: false,
      flags: {},
    },
    state: { pki: newPkiRunState(), patches: newPatchCache() },
  };
  return { ctx, reporter };
}
