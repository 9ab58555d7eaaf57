/**
 * The effectful half of static-pod rendering: look at the host once, hand the renderers plain
 * facts. Paths go through the host seam, so under --rootfs they are looked up under the root.
 */
import path from 'node:path';
import type { ClusterConfiguration } from '../config/types.js';
import type { Host } from '../host/host.js';
import type { VersionProfile } from '../versions/table-types.js';
import { proxyEnvFrom } from './env.js';
import type { HostFacts } from './inputs.js';

export async function gatherHostFacts(
  host: Host,
  cluster: ClusterConfiguration,
  versions: VersionProfile,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<HostFacts> {
  const existing = new Set<string>();
  for (const dir of versions.controlPlane.caCertsExtraDirs) {
    // kubeadm uses os.Stat: anything at that path counts.
    if (await host.stat(dir)) existing.add(dir);
  }
  return {
    existingHostDirs: existing,
    proxyEnv: proxyEnvFrom(Object.entries(env)),
    externalCA: await usingExternalCA(host, cluster.certificatesDir),
  };
}

/** kubeadm's UsingExternalCA as far as rendering cares: a CA certificate without its key. */
async function usingExternalCA(host: Host, certificatesDir: string): Promise<boolean> {
  const crt = await host.stat(path.posix.join(certificatesDir, 'ca.crt'));
  const key = await host.stat(path.posix.join(certificatesDir, 'ca.key'));
  return crt?.isFile === true && key === undefined;
}
