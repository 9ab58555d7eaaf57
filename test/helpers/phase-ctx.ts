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
import type { Host } from '../../src/host/host.js';
import { realSystem, type SystemProbe } from '../../src/host/system-probe.js';
import type { Runtime } from '../../src/run/runtime.js';

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
export function initCtxFor(cfg: ResolvedInitConfig, root: string, opts: { dryRun?: boolean; now?: Date; api?: ApiSeam; system?: SystemProbe } = {}): { ctx: InitCtx; reporter: MemoryReporter } {
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
    system: opts.system ?? realSystem,
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

/**
 * A Runtime over HOST, as createRuntime (src/run/runtime.ts) makes one, for tests that build a
 * workflow's context from a runtime: the API seam opens the kubeconfigs under the host's root,
 * `dryRun` must match the host (a DryRunHost or not), and the machine is the real one unless
 * `system` stands in for it.
 */
export function testRuntime(host: Host, o: { reporter?: Reporter; dryRun?: boolean; verbosity?: number; system?: SystemProbe } = {}): Runtime {
  const reporter = o.reporter ?? new MemoryReporter();
  const dryRun = o.dryRun ?? false;
  return { host, api: createApiSeam(host, dryRun), log: new PhaseLogger(reporter), reporter, verbosity: o.verbosity ?? 1, json: false, dryRun, system: o.system ?? realSystem, startTime: new Date() };
}
