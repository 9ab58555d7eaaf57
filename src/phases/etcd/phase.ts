/**
 * The `etcd` phase with child `local`: the static pod of a single-member local etcd.
 *
 * Creates: the etcd data directory (0700, left as is when it exists), /etc/kubernetes/manifests
 * (0700) and etcd.yaml in it (0600), patched with --patches when given.
 * Skipped: with external etcd (the reason is kubeadm's message).
 * Idempotency: identical bytes are not rewritten (the write is reported `unchanged`).
 * Dry-run: the same code on a DryRunHost; nothing reaches the disk.
 */
import { MANIFESTS_DIR, MODES, PORTS } from '../../constants.js';
import { staticPodConfigFromInit } from '../../manifest/inputs.js';
import { patchedManifest, writeManifest } from '../../manifest/write.js';
import type { Phase } from '../../engine/phase.js';
import { unchangedAndAnswering } from '../../verify/exit-check.js';
import type { InitCtx } from '../../run/context.js';
import { renderEtcdPod } from '../../manifest/etcd.js';

async function runLocalEtcd(ctx: InitCtx): Promise<void> {
  const etcd = ctx.cfg.cluster.etcd;
  if (etcd.mode !== 'local') return; // skipIf already said why
  // etcd refuses a data dir readable by others; create it before the kubelet does (as root, 0755).
  await ctx.host.mkdir(etcd.dataDir, MODES.etcdDataDir);
  ctx.log.info(`Creating static Pod manifest for local etcd in "${MANIFESTS_DIR}"`);
  const pod = renderEtcdPod(staticPodConfigFromInit(ctx.cfg), ctx.versions, {});
  const manifest = await patchedManifest(ctx, 'etcd', pod, ctx.cfg.init.patches?.directory, ctx.versions);
  const record = await writeManifest(ctx, 'etcd', manifest);
  ctx.log.debug(record.unchanged ? 'static Pod manifest for "etcd" is up to date' : `wrote Static Pod manifest for a local etcd member to "${record.path}"`);
}

export const etcdPhase: Phase<InitCtx> = {
  name: 'etcd',
  summary: 'Generate static Pod manifest file for local etcd',
  description: 'Generate the static Pod manifest of the local (stacked) etcd member; nothing is done with external etcd.',
  example: '  # Generates the etcd static Pod manifest, functionally equivalent to what tsadm init does.\n  tsadm init phase etcd all --config config.yaml',
  children: [
    {
      name: 'local',
      summary: 'Generate the static Pod manifest file for a local, single-node local etcd instance',
      description: `Generate the static Pod manifest of a local etcd member in ${MANIFESTS_DIR} and create its data directory (0700).`,
      example: '  # Generates the static Pod manifest file for etcd, functionally equivalent to what tsadm init does.\n  tsadm init phase etcd local --config config.yaml',
      flags: ['cert-dir', 'image-repository', 'patches'],
      skipIf: (ctx) => (ctx.cfg.cluster.etcd.mode === 'external' ? 'External etcd mode: Skipping etcd static pod generation' : undefined),
      run: runLocalEtcd,
      // etcd's /health on its metrics port (plain HTTP on loopback): answers once the member runs.
      verify: unchangedAndAnswering(() => ({ component: 'etcd', url: `http://127.0.0.1:${PORTS.etcdMetrics}/health` })),
    },
  ],
};
