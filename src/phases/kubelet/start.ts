/**
 * The `kubelet-start` phase of init: write the kubelet's flags file and configuration, then
 * (re)start it. The files, their modes and the service handling are src/phases/kubelet/settings.ts,
 * shared with join's kubelet-start.
 *
 * Creates: /var/lib/kubelet (0700), kubeadm-flags.env and config.yaml in it (both 0644); with
 * NodeLocalCRISocket (1.34 default) also instance-config.yaml (0644).
 * Service: `stop kubelet` before writing and `restart kubelet` after, through the host; a failure
 * is a warning, as in kubeadm (the kubelet may be started by other means).
 * Idempotency: identical files are not rewritten; the kubelet is restarted every time.
 * Dry-run: the DryRunHost records the writes and the service actions.
 */
import { hostname as osHostname } from 'node:os';
import type { Phase } from '../../engine/phase.js';
import { unchangedAndAnswering } from '../../verify/exit-check.js';
import type { InitCtx } from '../../run/context.js';
import { kubeletHealthTarget } from './targets.js';
import { assertKubeletFilesWritable, prepareKubeletFiles, writeKubeletFilesAndRestart } from './settings.js';

interface KubeletStartOptions {
  /** The machine's hostname (default: os.hostname(), lowercased and trimmed like kubeadm). */
  readonly hostname?: () => string;
}

export function makeKubeletStartPhase(opts: KubeletStartOptions = {}): Phase<InitCtx> {
  const hostname = opts.hostname ?? (() => osHostname().trim().toLowerCase());
  return {
    name: 'kubelet-start',
    summary: 'Write kubelet settings and (re)start the kubelet',
    description: 'Write a file with KubeletConfiguration and an environment file with node specific kubelet settings, and then (re)start kubelet.',
    example: '# Writes a dynamic environment file with kubelet flags from a InitConfiguration file.\ntsadm init phase kubelet-start --config config.yaml',
    flags: ['cri-socket', 'node-name', 'patches'],
    run: (ctx) => runKubeletStart(ctx, hostname()),
    verify: unchangedAndAnswering((ctx) => kubeletHealthTarget(ctx.cfg)),
  };
}

export const kubeletStartPhase: Phase<InitCtx> = makeKubeletStartPhase();

async function runKubeletStart(ctx: InitCtx, hostname: string): Promise<void> {
  const { cfg, versions } = ctx;
  const { files } = await prepareKubeletFiles(ctx, {
    cluster: cfg.cluster,
    kubeletConfig: cfg.componentConfigs.kubelet,
    nodeRegistration: cfg.init.nodeRegistration,
    hostname,
    // A control plane gets its taints from mark-control-plane.
    registerTaints: false,
    versions,
    patchesDir: cfg.init.patches?.directory,
    probeDockerCgroupDriver: true,
  });
  // kubeadm's init order: the flags file, the instance configuration, then the configuration.
  const order = [files.flagsEnv, ...(files.instanceConfig ? [files.instanceConfig] : []), files.config];
  await assertKubeletFilesWritable(ctx.host, order);
  await writeKubeletFilesAndRestart(ctx, order);
}
