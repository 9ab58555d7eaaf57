/**
 * kubeadm's ImagePullCheck (cmd/kubeadm/app/preflight/checks.go) and PullImagesInParallel
 * (app/util/runtime/runtime.go), as pure logic over an image runtime seam:
 * - Never: nothing is pulled or checked ("skipping the pull of all images due to policy"); an
 *   absent image surfaces later, when the kubelet cannot start the static pod.
 * - IfNotPresent: an image the runtime already has is skipped; the others are pulled.
 * - Always: every image is pulled.
 * - imagePullSerial (v1beta4, default true): one image at a time in list order; false pulls all
 *   at once. Every failure is reported ("failed to pull image X: <runtime message>"); a failure
 *   does not stop the other pulls.
 */
import { errorMessage } from '../../errors.js';
import type { Check } from './check.js';

type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** What the pull needs from the container runtime (tsadm's CRI client, or a test double). */
export interface ImageRuntime {
  imageExists(image: string): Promise<boolean>;
  pullImage(image: string): Promise<unknown>;
}

export interface PullOptions {
  readonly policy: PullPolicy;
  readonly serial: boolean;
}

export interface PullOutcome {
  /** Images pulled, in completion order. */
  readonly pulled: readonly string[];
  /** Images skipped because the runtime has them (IfNotPresent). */
  readonly present: readonly string[];
  /** One line per failed image. */
  readonly errors: readonly string[];
}

/** kubeadm's constants.PullImageRetry: attempts per image before it counts as failed. */
export const PULL_ATTEMPTS = 5;

export async function pullImages(runtime: ImageRuntime, images: readonly string[], opts: PullOptions): Promise<PullOutcome> {
  const pulled: string[] = [];
  const present: string[] = [];
  const errors: string[] = [];
  if (opts.policy === 'Never') return { pulled, present, errors };
  const one = async (image: string): Promise<void> => {
    if (opts.policy === 'IfNotPresent' && (await runtime.imageExists(image).catch(() => false))) {
      present.push(image);
      return;
    }
    try {
      await pullWithRetry(runtime, image);
      pulled.push(image);
    } catch (err) {
      errors.push(`failed to pull image ${image}: ${errorMessage(err)}`);
    }
  };
  if (opts.serial) {
    for (const image of images) await one(image);
  } else {
    await Promise.all(images.map(one));
    // Report failures in list order whatever order the pulls finished in.
    errors.sort((a, b) => indexIn(images, a) - indexIn(images, b));
  }
  return { pulled, present, errors };
}

/** kubeadm retries a pull PullImageRetry times and reports the last error. */
export async function pullWithRetry(runtime: ImageRuntime, image: string, attempts = PULL_ATTEMPTS): Promise<void> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      await runtime.pullImage(image);
      return;
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

function indexIn(images: readonly string[], line: string): number {
  return images.findIndex((img) => line.startsWith(`failed to pull image ${img}:`));
}

/**
 * The `ImagePull` preflight check: its errors are fatal unless --ignore-preflight-errors names
 * ImagePull (or all). `connect` opens the runtime; a runtime that cannot be reached is an error
 * of the check.
 */
export function imagePullCheck(connect: () => Promise<ImageRuntime & { close(): void }>, images: readonly string[], opts: PullOptions): Check {
  return {
    name: 'ImagePull',
    async run() {
      if (opts.policy === 'Never') return { warnings: [], errors: [] };
      const runtime = await connect();
      try {
        const outcome = await pullImages(runtime, images, opts);
        return { warnings: [], errors: [...outcome.errors] };
      } finally {
        runtime.close();
      }
    },
  };
}
