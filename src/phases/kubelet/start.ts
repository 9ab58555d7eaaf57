/**
 * The `kubelet-start` phase: write the kubelet's flags file and configuration, then (re)start it.
 *
 * Creates: /var/lib/kubelet (0700), kubeadm-flags.env and config.yaml in it (both 0644); with
 * NodeLocalCRISocket (1.34 default) also instance-config.yaml (0644), the CRI endpoint moving
 * from the flags file into the configuration.
 * Service: `stop kubelet` before writing and `restart kubelet` after, through the host; a failure
 * is a warning, as in kubeadm (the kubelet may be started by other means).
 * Idempotency: identical files are not rewritten; the kubelet is restarted every time.
 * Dry-run: the DryRunHost records the writes and the service actions.
 */
import { hostname as osHostname } from 'node:os';
import { KUBELET_CONFIG_FILE, KUBELET_DIR, KUBELET_FLAGS_ENV_FILE, MODES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import { imageRepository } from '../../manifest/inputs.js';
import { isJsonObject, type JsonObject } from '../../manifest/json.js';
import { imageRef } from '../../manifest/static-pod.js';
import { toKubeYaml } from '../../yaml/write.js';
import { KUBELET_CONFIG_PATCH_TARGET, patchTargetsFor } from '../../patches/filename.js';
import { patchTarget } from '../../patches/run.js';
import { untyped } from '../../patches/schema.js';
import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../workflows/context.js';
import { KUBELET_CONFIG_API_VERSION, renderKubeletConfig, type KubeletConfigInput } from './config.js';
import { DOCKERSHIM_SOCKET, criSocketFor, renderKubeletFlagsEnv } from './flags-env.js';

export interface KubeletStartOptions {
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
  };
}

export const kubeletStartPhase: Phase<InitCtx> = makeKubeletStartPhase();

export async function runKubeletStart(ctx: InitCtx, hostname: string): Promise<void> {
  const { cfg, versions, host, log } = ctx;
  const nr = cfg.init.nodeRegistration;
  // Everything is rendered (and patched) before the kubelet is touched, so a bad config or
  // patch fails the phase with the kubelet still running as it was.
  const pauseImage = imageRef(imageRepository(cfg.cluster, versions), 'pause', versions.images.pauseTag);
  const nodeLocal = nodeLocalCriSocket(ctx);
  const env = renderKubeletFlagsEnv({ nodeRegistration: nr, hostname, pauseImage, registerTaints: false, nodeLocalCriSocket: nodeLocal }, versions);
  const criSocket = criSocketFor(nr.criSocket, versions);
  const input: KubeletConfigInput = {
    cluster: cfg.cluster,
    user: cfg.componentConfigs.kubelet,
    criSocket,
    systemdResolved: await systemdResolvedActive(host),
    ...(criSocket === DOCKERSHIM_SOCKET && !versions.kubelet.defaultCgroupDriverSystemd ? { dockerCgroupDriver: await dockerCgroupDriver(host) } : {}),
  };
  const rendered = renderKubeletConfig(input, versions);
  for (const w of rendered.warnings) log.warn(w);
  // NodeLocalCRISocket: the per-node part of the configuration is written on its own and merged
  // into config.yaml, so the kubelet finds its CRI endpoint without a command-line flag.
  const instance = nodeLocal ? instanceConfig(criSocket) : undefined;
  const config = await patchKubeletConfig(ctx, instance ? { ...rendered.config, containerRuntimeEndpoint: criSocket } : rendered.config);

  // Every target is checked before the kubelet is stopped or any of them is written.
  for (const file of [KUBELET_FLAGS_ENV_FILE, ...(instance ? [KUBELET_INSTANCE_CONFIG_FILE] : []), KUBELET_CONFIG_FILE]) await host.assertWritable(file);
  // Stop first so the kubelet never runs with half-written settings.
  await serviceAction(ctx, 'stop', "won't make sure the kubelet not running for a short period of time while setting up configuration for it.", 'unable to stop the kubelet service momentarily');
  // kubeadm creates the kubelet directory private (MkdirAll 0700); an existing one is left as is.
  await host.mkdir(KUBELET_DIR, 0o700);
  log.info(`Writing kubelet environment file with flags to file "${KUBELET_FLAGS_ENV_FILE}"`);
  await host.writeFile(KUBELET_FLAGS_ENV_FILE, env, { mode: MODES.kubeletFile, kind: 'config', description: 'kubelet environment file' });
  if (instance) {
    log.info(`Writing instance configuration to file "${KUBELET_INSTANCE_CONFIG_FILE}"`);
    await host.writeFile(KUBELET_INSTANCE_CONFIG_FILE, toKubeYaml(instance), { mode: MODES.kubeletFile, kind: 'config', description: 'kubelet instance configuration' });
  }
  log.info(`Writing kubelet configuration to file "${KUBELET_CONFIG_FILE}"`);
  await host.writeFile(KUBELET_CONFIG_FILE, toKubeYaml(config), { mode: MODES.kubeletFile, kind: 'config', description: 'kubelet configuration' });

  log.info(ctx.dryRun ? 'Would start the kubelet' : 'Starting the kubelet');
  await serviceAction(ctx, 'restart', "won't make sure the kubelet is running properly.", 'unable to start the kubelet service', 'Please ensure kubelet is reloaded and running manually.');
}

/** The kubeletconfiguration --patches (1.25+), applied over the rendered configuration. */
async function patchKubeletConfig(ctx: InitCtx, config: JsonObject): Promise<JsonObject> {
  const { cfg, versions } = ctx;
  if (!versions.kubelet.configPatchTarget) return config;
  const patched = await patchTarget(ctx, cfg.init.patches?.directory, KUBELET_CONFIG_PATCH_TARGET, patchTargetsFor(versions), config, untyped(KUBELET_CONFIG_PATCH_TARGET));
  if (!isJsonObject(patched)) {
    throw new TsadmError('E_CONFIG_INVALID', `patches from "${cfg.init.patches?.directory}" made the KubeletConfiguration invalid: it is no longer an object`, {
      hint: `check the ${KUBELET_CONFIG_PATCH_TARGET} patch files`,
    });
  }
  return patched;
}

/** Written when NodeLocalCRISocket is on (1.34 beta, default on): this node's CRI endpoint. */
export const KUBELET_INSTANCE_CONFIG_FILE = '/var/lib/kubelet/instance-config.yaml';

function nodeLocalCriSocket(ctx: InitCtx): boolean {
  // The feature gate wins over the minor's default, as in upload-config.
  return ctx.versions.kubelet.criSocketUrl && (ctx.cfg.cluster.featureGates.NodeLocalCRISocket ?? ctx.versions.kubelet.nodeLocalCriSocket);
}

function instanceConfig(criSocket: string): JsonObject {
  return { apiVersion: KUBELET_CONFIG_API_VERSION, kind: 'KubeletConfiguration', containerRuntimeEndpoint: criSocket };
}

async function serviceAction(ctx: InitCtx, action: 'stop' | 'restart', noInitSystem: string, failure: string, followUp?: string): Promise<void> {
  const result = await ctx.host.service(action, 'kubelet');
  if (result.ok) return;
  if (result.via === 'none') {
    ctx.log.info(`no supported init system detected, ${noInitSystem}`);
    return;
  }
  ctx.log.warn(`${failure}: [${result.message ?? `${action} failed`}]`);
  if (followUp) ctx.log.warn(followUp);
}

async function systemdResolvedActive(host: Host): Promise<KubeletConfigInput['systemdResolved']> {
  const r = await host.service('is-active', 'systemd-resolved');
  if (r.via === 'none') return { error: 'no supported init system detected, skipping checking for services' };
  return r.ok;
}

/** kubeadm 1.20/1.21 with dockershim: the kubelet must use docker's cgroup driver. */
async function dockerCgroupDriver(host: Host): Promise<{ driver: string } | { error: string }> {
  try {
    const r = await host.exec('docker', ['info', '-f', '{{.CgroupDriver}}']);
    const driver = r.stdout.trim();
    if (r.exitCode !== 0 || (driver !== 'systemd' && driver !== 'cgroupfs')) {
      return { error: `cannot execute 'docker info -f {{.CgroupDriver}}': ${(r.stderr || r.stdout).trim() || `exit status ${r.exitCode}`}` };
    }
    return { driver };
  } catch (err) {
    return { error: `cannot execute 'docker info -f {{.CgroupDriver}}': ${(err as Error).message}` };
  }
}
