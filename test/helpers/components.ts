/**
 * Where the real Kubernetes components provisioned by scripts/e2e/provision.sh live, so tests can
 * use them — e.g. the reference kubeadm v1.20.2 as an oracle in unit tests.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const K8S_VERSION = 'v1.20.2';

/** The provisioning cache: $TSADM_CACHE_DIR, default /var/cache/tsadm. */
export function cacheDir(): string {
  return process.env.TSADM_CACHE_DIR || '/var/cache/tsadm';
}

/** Directory of the provisioned binaries (kubeadm, kubelet, kube-*, kubectl). */
export function componentsBinDir(): string {
  return path.join(cacheDir(), `kubernetes-${K8S_VERSION}`, 'bin');
}

/** Directory of the provisioned OCI image archives. */
function imagesDir(): string {
  return path.join(cacheDir(), `images-${K8S_VERSION}`);
}

/** The reference kubeadm v1.20.2, or undefined when it has not been provisioned. */
export function referenceKubeadmPath(): string | undefined {
  const p = path.join(componentsBinDir(), 'kubeadm');
  return existsSync(p) ? p : undefined;
}

/** The provisioned kubectl v1.20.2, or undefined. */
export function referenceKubectlPath(): string | undefined {
  const p = path.join(componentsBinDir(), 'kubectl');
  return existsSync(p) ? p : undefined;
}

export interface Components {
  kubeadm: string;
  kubectl: string;
  binDir: string;
  imagesDir: string;
}

/**
 * The provisioned components, or an error that says how to get them. For tests that cannot do
 * without them (never skip silently: a test that needs real components and lacks them fails).
 */
export function requireComponents(): Components {
  const binDir = componentsBinDir();
  const missing = ['kubeadm', 'kubectl', 'kubelet', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy']
    .filter((b) => !existsSync(path.join(binDir, b)));
  const imgs = existsSync(imagesDir()) ? readdirSync(imagesDir()).filter((f) => f.endsWith('.tar')) : [];
  if (missing.length > 0 || imgs.length === 0) {
    throw new Error(
      `real Kubernetes components are not provisioned in ${cacheDir()} ` +
        `(missing: ${[...missing, ...(imgs.length === 0 ? ['images'] : [])].join(', ')}); ` +
        'run: bash scripts/e2e/provision.sh',
    );
  }
  return { kubeadm: path.join(binDir, 'kubeadm'), kubectl: path.join(binDir, 'kubectl'), binDir, imagesDir: imagesDir() };
}
