/**
 * `tsadm config images list|pull` (kubeadm's cmd/config.go): the control-plane images of the
 * target version, from the flags or a --config file (kubeadm's LoadOrDefaultInitConfiguration: a
 * file replaces the flags), listed as text/JSON/YAML or pulled through the CRI one at a time.
 */
import type { FlagValues } from '../flags.js';
import { resolveInitConfig, type ConfigEnv } from '../config/load.js';
import type { ResolvedInitConfig } from '../config/types.js';
import { TsadmError, errorMessage } from '../errors.js';
import { detectCriSocket, socketPath } from '../host/cri.js';
import type { Host } from '../host/host.js';
import { controlPlaneImages } from '../phases/controlplane/images.js';
import { pullWithRetry, type ImageRuntime } from '../phases/preflight/image-pull.js';
import { profileFor } from '../versions/resolve.js';
import type { VersionProfile } from '../versions/table-types.js';
import { toKubeYaml } from '../yaml/write.js';
import { toKyaml } from '../yaml/kyaml.js';

export type ImagesOutput = 'text' | 'json' | 'yaml' | 'kyaml';
export const IMAGES_OUTPUTS: readonly ImagesOutput[] = ['text', 'json', 'yaml', 'kyaml'];

// The images depend on the cluster configuration only; the node facts are placeholders.
const IMAGES_ENV: ConfigEnv = { hostname: 'node', defaultAdvertiseAddress: '1.2.3.4', now: new Date(0) };
const IMAGE_FLAGS = ['kubernetes-version', 'image-repository', 'feature-gates', 'cri-socket'] as const;

/** The configuration the images commands read: --config alone, or the image flags. */
export function resolveImagesConfig(flags: FlagValues, configText: string | undefined): ResolvedInitConfig {
  const picked: FlagValues = configText !== undefined
    ? { config: flags.config ?? 'config' }
    : Object.fromEntries(IMAGE_FLAGS.filter((k) => flags[k] !== undefined).map((k) => [k, flags[k]]));
  return resolveInitConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(typeof flags.config === 'string' ? { configPath: flags.config } : {}),
    flags: picked,
    env: IMAGES_ENV,
    // Lists images; stores nothing (src/config/stored-fields.ts).
    storedFields: 'skip',
  });
}

export function imagesOf(cfg: ResolvedInitConfig): { images: string[]; versions: VersionProfile } {
  const versions = profileFor(cfg.cluster.kubernetesVersion);
  return { images: controlPlaneImages(cfg.cluster, versions), versions };
}

/** kubeadm's `config images list -o`: text lines, or the output API's Images object (JSON indented by 4, YAML with sorted keys). */
export function formatImagesList(images: readonly string[], output: string, versions: VersionProfile): string {
  const apiVersion = versions.imageCommands.outputApiVersion;
  switch (output) {
    case 'text':
      return `${images.join('\n')}\n`;
    case 'json':
      return `${JSON.stringify({ kind: 'Images', apiVersion, images }, null, 4)}\n`;
    case 'yaml':
      return toKubeYaml({ apiVersion, images, kind: 'Images' });
    case 'kyaml':
      // The JSON field order (kind, apiVersion, images), which the KYAML printer keeps.
      return toKyaml({ kind: 'Images', apiVersion, images });
    default:
      throw new TsadmError('E_USAGE', `unable to match a printer suitable for the output format "${output}", allowed formats are: ${IMAGES_OUTPUTS.join(',')}`, { hint: `use -o ${IMAGES_OUTPUTS.join('|')}` });
  }
}

/**
 * kubeadm's PullControlPlaneImages: one image at a time, "[config/images] Pulled <image>" after
 * each; the first failure stops the command and names the image and the runtime's message.
 */
export async function pullControlPlaneImages(runtime: ImageRuntime, images: readonly string[], write: (line: string) => void): Promise<void> {
  for (const image of images) {
    try {
      await pullWithRetry(runtime, image);
    } catch (err) {
      throw new TsadmError('E_PRECONDITION', `failed to pull image "${image}": ${errorMessage(err)}`, {
        hint: 'check that the container runtime can reach the registry (its registry configuration, proxy and credentials), or use --image-repository',
      });
    }
    write(`[config/images] Pulled ${image}\n`);
  }
}

/** kubeadm connects to the runtime before pulling: an unreachable socket is one error, not one per image. */
export async function requireRuntime(runtime: { version(): Promise<unknown> }, socket: string): Promise<void> {
  try {
    await runtime.version();
  } catch (err) {
    throw new TsadmError('E_PRECONDITION', `container runtime is not running: cannot connect to the CRI socket ${socket}: ${errorMessage(err)}`, {
      hint: 'start the container runtime, or pass its socket with --cri-socket',
    });
  }
}

/** The CRI socket: --cri-socket / nodeRegistration.criSocket, else kubeadm's detection. */
export async function criSocketFor(cfg: ResolvedInitConfig, versions: VersionProfile, host: Host): Promise<string> {
  const configured = cfg.init.nodeRegistration.criSocket;
  if (configured !== '') return socketPath(configured);
  return socketPath(await detectCriSocket(host, { dockershimEra: versions.kubelet.containerRuntimeRemoteFlag, asUrl: versions.kubelet.criSocketUrl }));
}
