import { KUBELET_CONFIG_FILE } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import { serializeClusterConfiguration } from '../../config/print.js';
import type { InitCtx } from '../../run/context.js';
import { criSocketFor } from '../kubelet/flags-env.js';

/**
 * Inputs upload-config takes from other parts of tsadm, in one place so each can be rewired
 * when its owner exports it (see the notes on each).
 */

/** ClusterConfiguration YAML for kubeadm-config (src/config's serializer, kubeadm's stored form). */
export function clusterConfigurationYaml(ctx: InitCtx): string {
  return serializeClusterConfiguration(ctx.cfg.cluster, ctx.versions.configApiVersion);
}

/**
 * The cluster-wide KubeletConfiguration YAML. kubelet-start has written exactly this document
 * to /var/lib/kubelet/config.yaml (kubeadm marshals one object to both places), so it is read
 * back rather than rendered twice; in dry-run the host overlay holds the planned file.
 */
export async function kubeletConfigurationYaml(ctx: InitCtx): Promise<string> {
  const text = await ctx.host.readFile(KUBELET_CONFIG_FILE);
  if (text === undefined) {
    throw new TsadmError('E_PRECONDITION', `${KUBELET_CONFIG_FILE} does not exist, so there is no kubelet configuration to upload`, {
      hint: 'run `tsadm init phase kubelet-start` first',
    });
  }
  return text.toString('utf8');
}

/** The node's CRI socket exactly as kubelet-start hands it to the kubelet. */
export function nodeCriSocket(ctx: InitCtx): string {
  return criSocketFor(ctx.cfg.init.nodeRegistration.criSocket, ctx.versions);
}
