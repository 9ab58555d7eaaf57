/**
 * The kubelet's settings on this node, shared by init's and join's `kubelet-start` (and upgrade's
 * next): which files, with what content and modes (pure), and the effects around them — probing
 * the host facts kubeadm's defaults read, applying --patches, writing through the host seam,
 * stopping and restarting the kubelet service.
 *
 * Files: /var/lib/kubelet (0700) with kubeadm-flags.env and config.yaml (both 0644); with
 * NodeLocalCRISocket also instance-config.yaml (0644), the CRI endpoint moving from the flags file
 * into the configuration. What differs between init and join stays with the callers: the order
 * the files are written in (kubeadm's own: init writes the flags file first, join the
 * configuration first), the taints a joining worker registers with, and join's TLS bootstrap.
 */
import { featureEnabled } from '../../config/feature-gates.js';
import type { ClusterConfiguration, NodeRegistration } from '../../config/types.js';
import { KUBELET_CONFIG_FILE, KUBELET_DIR, KUBELET_FLAGS_ENV_FILE, MODES } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import type { Logger } from '../../log/events.js';
import { imageRepository } from '../../manifest/inputs.js';
import { isJsonObject, type JsonObject } from '../../json.js';
import { imageRef } from '../../manifest/static-pod.js';
import { toKubeYaml } from '../../yaml/write.js';
import { KUBELET_CONFIG_PATCH_TARGET, patchTargetsFor } from '../../patches/filename.js';
import { patchTarget, type PatchCache } from '../../patches/run.js';
import { untyped } from '../../patches/schema.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { KUBELET_CONFIG_API_VERSION, renderKubeletConfig, type KubeletConfigInput } from './config.js';
import { DOCKERSHIM_SOCKET, criSocketFor, renderKubeletFlagsEnv } from './flags-env.js';

/** Written when NodeLocalCRISocket is on (1.34 beta, default on): this node's CRI endpoint. */
export const KUBELET_INSTANCE_CONFIG_FILE = `${KUBELET_DIR}/instance-config.yaml`;

/**
 * NodeLocalCRISocket: the CRI endpoint lives in the node's kubelet configuration instead of the
 * flags file and the Node's cri-socket annotation. The feature gate wins over the minor's
 * default; minors that write the socket as a plain path (before the unix:// URLs of 1.24) never
 * have it. The one decision kubelet-start (init, join) and upload-config share.
 */
export function usesNodeLocalCriSocket(cluster: Pick<ClusterConfiguration, 'featureGates'>, versions: VersionProfile): boolean {
  return versions.kubelet.criSocketUrl && featureEnabled(cluster.featureGates, versions, 'NodeLocalCRISocket');
}

/** What kubeadm's kubelet defaults read from the machine; passed in so rendering stays pure. */
interface KubeletHostFacts {
  readonly systemdResolved: KubeletConfigInput['systemdResolved'];
  readonly dockerCgroupDriver?: KubeletConfigInput['dockerCgroupDriver'];
}

interface KubeletSettingsInput {
  readonly cluster: ClusterConfiguration;
  /** The KubeletConfiguration document the user (init) or the cluster's ConfigMap (join) gives. */
  readonly kubeletConfig: Readonly<Record<string, unknown>>;
  readonly nodeRegistration: NodeRegistration;
  /** The machine's hostname as kubeadm sees it (lowercased, trimmed). */
  readonly hostname: string;
  /** A joining worker registers with its taints; a control plane gets them from mark-control-plane. */
  readonly registerTaints: boolean;
  readonly versions: VersionProfile;
  readonly hostFacts: KubeletHostFacts;
}

export interface KubeletSettings {
  /** The CRI endpoint as this minor writes it. */
  readonly criSocket: string;
  readonly nodeLocalCriSocket: boolean;
  readonly flagsEnv: string;
  /** The configuration before --patches (the CRI endpoint merged in with NodeLocalCRISocket). */
  readonly config: JsonObject;
  readonly instanceConfig?: JsonObject;
  /** kubeadm's warnings about values it does not recommend or overrides. */
  readonly warnings: readonly string[];
}

/** Pure: the kubelet's settings for this node. */
function renderKubeletSettings(input: KubeletSettingsInput): KubeletSettings {
  const { cluster, versions, nodeRegistration } = input;
  const nodeLocal = usesNodeLocalCriSocket(cluster, versions);
  const criSocket = criSocketFor(nodeRegistration.criSocket, versions);
  const flagsEnv = renderKubeletFlagsEnv({
    nodeRegistration,
    hostname: input.hostname,
    pauseImage: imageRef(imageRepository(cluster, versions), 'pause', versions.images.pauseTag),
    registerTaints: input.registerTaints,
    nodeLocalCriSocket: nodeLocal,
  }, versions);
  const rendered = renderKubeletConfig({
    cluster,
    user: input.kubeletConfig,
    criSocket,
    systemdResolved: input.hostFacts.systemdResolved,
    ...(input.hostFacts.dockerCgroupDriver ? { dockerCgroupDriver: input.hostFacts.dockerCgroupDriver } : {}),
  }, versions);
  return {
    criSocket,
    nodeLocalCriSocket: nodeLocal,
    flagsEnv,
    // NodeLocalCRISocket: the per-node part of the configuration is written on its own and merged
    // into config.yaml, so the kubelet finds its CRI endpoint without a command-line flag.
    config: nodeLocal ? { ...rendered.config, containerRuntimeEndpoint: criSocket } : rendered.config,
    ...(nodeLocal ? { instanceConfig: { apiVersion: KUBELET_CONFIG_API_VERSION, kind: 'KubeletConfiguration', containerRuntimeEndpoint: criSocket } } : {}),
    warnings: rendered.warnings,
  };
}

/** One file kubelet-start writes. */
interface KubeletFile {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
  readonly description: string;
  /** kubeadm's line before writing it. */
  readonly announce: string;
}

interface KubeletFiles {
  readonly flagsEnv: KubeletFile;
  readonly config: KubeletFile;
  readonly instanceConfig?: KubeletFile;
}

/** Pure: the files, given the settings and the configuration after --patches. */
function kubeletFiles(settings: KubeletSettings, patchedConfig: JsonObject): KubeletFiles {
  return {
    flagsEnv: {
      path: KUBELET_FLAGS_ENV_FILE, content: settings.flagsEnv, mode: MODES.kubeletFile, description: 'kubelet environment file',
      announce: `Writing kubelet environment file with flags to file "${KUBELET_FLAGS_ENV_FILE}"`,
    },
    config: {
      path: KUBELET_CONFIG_FILE, content: toKubeYaml(patchedConfig), mode: MODES.kubeletFile, description: 'kubelet configuration',
      announce: `Writing kubelet configuration to file "${KUBELET_CONFIG_FILE}"`,
    },
    ...(settings.instanceConfig
      ? {
        instanceConfig: {
          path: KUBELET_INSTANCE_CONFIG_FILE, content: toKubeYaml(settings.instanceConfig), mode: MODES.kubeletFile, description: 'kubelet instance configuration',
          announce: `Writing instance configuration to file "${KUBELET_INSTANCE_CONFIG_FILE}"`,
        },
      }
      : {}),
  };
}

/** The effect context: the host seam and the log (dryRun changes wording only). */
interface KubeletStartCtx {
  readonly host: Host;
  readonly log: Logger;
  readonly dryRun: boolean;
  /** The run's --patches cache (src/patches/run.ts). */
  readonly state: { readonly patches: PatchCache };
}

interface PrepareKubeletInput extends Omit<KubeletSettingsInput, 'hostFacts'> {
  /** --patches (kubeletconfiguration target, 1.25+). */
  readonly patchesDir: string | undefined;
  /**
   * Probe docker's cgroup driver (dockershim minors without the systemd default). kubeadm does it
   * when it defaults the configuration for this node's CRI socket: on init. A joining node
   * defaults the cluster's configuration with an unknown socket, so it keeps the driver the
   * first control plane stored in the kubelet ConfigMap.
   */
  readonly probeDockerCgroupDriver: boolean;
}

export interface PreparedKubelet {
  readonly settings: KubeletSettings;
  readonly files: KubeletFiles;
}

/**
 * Probes the host facts, renders and patches everything, before the kubelet is touched: a bad
 * configuration or patch fails the phase with the kubelet still running as it was.
 */
export async function prepareKubeletFiles(ctx: KubeletStartCtx, input: PrepareKubeletInput): Promise<PreparedKubelet> {
  const { patchesDir, probeDockerCgroupDriver, ...rest } = input;
  const criSocket = criSocketFor(input.nodeRegistration.criSocket, input.versions);
  const hostFacts: KubeletHostFacts = {
    systemdResolved: await systemdResolvedActive(ctx.host),
    ...(probeDockerCgroupDriver && criSocket === DOCKERSHIM_SOCKET && !input.versions.kubelet.defaultCgroupDriverSystemd
      ? { dockerCgroupDriver: await dockerCgroupDriver(ctx.host) }
      : {}),
  };
  const settings = renderKubeletSettings({ ...rest, hostFacts });
  for (const w of settings.warnings) ctx.log.warn(w);
  const config = await patchKubeletConfig(ctx, patchesDir, settings.config, input.versions);
  return { settings, files: kubeletFiles(settings, config) };
}

/** Every target is checked before the kubelet is stopped or any of them is written. */
export async function assertKubeletFilesWritable(host: Pick<Host, 'assertWritable'>, files: readonly KubeletFile[]): Promise<void> {
  for (const f of files) await host.assertWritable(f.path);
}

/**
 * Stops the kubelet (so it never runs with half-written settings), writes the files in the
 * given order, and restarts it. A failing service manager is a warning, as in kubeadm (the
 * kubelet may be started by other means). Identical files are not rewritten; the kubelet is
 * restarted every time.
 */
export async function writeKubeletFilesAndRestart(ctx: KubeletStartCtx, files: readonly KubeletFile[]): Promise<void> {
  const { host, log } = ctx;
  await kubeletServiceAction(ctx, 'stop', "won't make sure the kubelet not running for a short period of time while setting up configuration for it.", 'unable to stop the kubelet service momentarily');
  // kubeadm creates the kubelet directory private (MkdirAll 0700); an existing one is left as is.
  await host.mkdir(KUBELET_DIR, 0o700);
  for (const f of files) {
    log.info(f.announce);
    await host.writeFile(f.path, f.content, { mode: f.mode, kind: 'config', description: f.description });
  }
  log.info(ctx.dryRun ? 'Would start the kubelet' : 'Starting the kubelet');
  await kubeletServiceAction(ctx, 'restart', "won't make sure the kubelet is running properly.", 'unable to start the kubelet service', 'Please ensure kubelet is reloaded and running manually.');
}

/** The kubeletconfiguration --patches (1.25+), applied over the rendered configuration. */
async function patchKubeletConfig(ctx: KubeletStartCtx, dir: string | undefined, config: JsonObject, versions: VersionProfile): Promise<JsonObject> {
  if (!versions.kubelet.configPatchTarget) return config;
  const patched = await patchTarget(ctx, dir, KUBELET_CONFIG_PATCH_TARGET, patchTargetsFor(versions), config, untyped(KUBELET_CONFIG_PATCH_TARGET));
  if (!isJsonObject(patched)) {
    throw new TsadmError('E_CONFIG_INVALID', `patches from "${dir}" made the KubeletConfiguration invalid: it is no longer an object`, {
      hint: `check the ${KUBELET_CONFIG_PATCH_TARGET} patch files`,
    });
  }
  return patched;
}

async function kubeletServiceAction(ctx: KubeletStartCtx, action: 'stop' | 'restart', noInitSystem: string, failure: string, followUp?: string): Promise<void> {
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
