/**
 * The `control-plane` phase: children apiserver, controller-manager, scheduler (the CLI adds
 * `all`), each writing one static pod manifest.
 *
 * Creates: /etc/kubernetes/manifests (0700) and <component>.yaml in it (0600), patched with
 * --patches when given.
 * Idempotency: the manifest is rendered deterministically and the host leaves identical bytes
 * alone (the write is reported `unchanged`); a changed config rewrites only what changed.
 * Dry-run: the same code on a DryRunHost; nothing reaches the disk.
 */
import type { FlagName } from '../../flags.js';
import { MANIFESTS_DIR } from '../../constants.js';
import { gatherHostFacts } from '../../manifest/host-facts.js';
import { staticPodConfigFromInit } from '../../manifest/inputs.js';
import type { StaticPodComponent } from '../../manifest/pod.js';
import { patchedManifest, writeManifest } from '../../manifest/write.js';
import type { Phase } from '../../engine/phase.js';
import { unchangedAndAnswering } from '../../verify/exit-check.js';
import type { InitCtx } from '../../run/context.js';
import { controlPlaneHealthTargets } from '../kubelet/targets.js';
import { apiServerWarnings } from '../../manifest/apiserver.js';
import { renderStaticPod } from '../../manifest/render.js';

/** Once per run: kubeadm prints the folder line from the parent phase, before any child. */
const announced = new WeakSet<object>();

const COMMON_FLAGS: readonly FlagName[] = ['cert-dir', 'kubernetes-version', 'image-repository', 'patches', 'feature-gates'];

export async function runControlPlaneComponent(ctx: InitCtx, component: Exclude<StaticPodComponent, 'etcd'>): Promise<void> {
  if (!announced.has(ctx)) {
    announced.add(ctx);
    ctx.log.info(`Using manifest folder "${MANIFESTS_DIR}"`);
  }
  ctx.log.info(`Creating static Pod manifest for "${component}"`);
  const { cluster } = ctx.cfg;
  if (component === 'kube-apiserver') for (const w of apiServerWarnings(cluster)) ctx.log.warn(w);
  const facts = await gatherHostFacts(ctx.host, cluster, ctx.versions);
  const pod = renderStaticPod(component, staticPodConfigFromInit(ctx.cfg), ctx.versions, facts);
  for (const v of pod.spec.volumes ?? []) ctx.log.debug(`adding volume "${v.name}" for component "${component}"`, { verbosity: 2 });
  const manifest = await patchedManifest(ctx, component, pod, ctx.cfg.init.patches?.directory, ctx.versions);
  const record = await writeManifest(ctx, component, manifest);
  ctx.log.debug(record.unchanged ? `static Pod manifest for "${component}" is up to date` : `wrote static Pod manifest for "${component}" to "${record.path}"`);
}

function componentPhase(name: string, component: Exclude<StaticPodComponent, 'etcd'>, flags: readonly FlagName[]): Phase<InitCtx> {
  return {
    name,
    summary: `Generates the ${component} static Pod manifest`,
    description: `Generate the static Pod manifest of ${component} in ${MANIFESTS_DIR} from the ClusterConfiguration (extra args, volumes and --patches included); an identical manifest is left untouched.`,
    example: `  # Generates the ${component} static Pod manifest, functionally equivalent to what tsadm init does.\n  tsadm init phase control-plane ${name} --config config.yaml`,
    flags: [...COMMON_FLAGS, ...flags],
    run: (ctx) => runControlPlaneComponent(ctx, component),
    verify: unchangedAndAnswering((ctx) => controlPlaneHealthTargets(ctx.cfg, ctx.versions).find((t) => t.component === component)!),
  };
}

export const controlPlanePhase: Phase<InitCtx> = {
  name: 'control-plane',
  summary: 'Generate all static Pod manifest files necessary to establish the control plane',
  description: 'Generate the static Pod manifests of kube-apiserver, kube-controller-manager and kube-scheduler in '
    + `${MANIFESTS_DIR}; the kubelet starts them. Existing identical manifests are left untouched.`,
  example: '  # Generates all static Pod manifest files for control plane components,\n  # functionally equivalent to what tsadm init does.\n  tsadm init phase control-plane all --config config.yaml\n\n'
    + '  # Generates the kube-apiserver manifest with an extra flag.\n  tsadm init phase control-plane apiserver --config config.yaml --patches ./patches',
  children: [
    componentPhase('apiserver', 'kube-apiserver', ['apiserver-advertise-address', 'apiserver-bind-port', 'service-cidr', 'service-dns-domain', 'control-plane-endpoint']),
    componentPhase('controller-manager', 'kube-controller-manager', ['pod-network-cidr', 'service-cidr']),
    componentPhase('scheduler', 'kube-scheduler', []),
  ],
};
