/**
 * What `upgrade apply` and `upgrade node` do to this node's /var/lib/kubelet/kubeadm-flags.env:
 * kubeadm 1.35 removes --pod-infra-container-image, which the 1.35 kubelet no longer accepts
 * (PR #133778; kubeadm runs it in its post-upgrade phase, as kubernetes/kubeadm#3279's error shows);
 * 1.36 leaves the file as it is again (PR #135807); 1.37 removes --container-runtime-endpoint
 * (NodeLocalCRISocket removed: the endpoint lives in instance-config.yaml, PR #138645).
 * `kubelet.upgradeDropsFlags` of the target minor says which. The file is rewritten only when a flag is removed (a second run writes
 * nothing), atomically and with kubeadm's mode through the host seam; an absent file is left absent.
 */
import { KUBELET_FLAGS_ENV_FILE, MODES } from '../../constants.js';
import type { Logger } from '../../log/events.js';
import type { Host } from '../../host/host.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { TsadmError } from '../../errors.js';
import { withoutKubeletFlags } from '../kubelet/flags-env.js';
import { KUBELET_INSTANCE_CONFIG_FILE } from '../kubelet/settings.js';

/** The kubelet flags the upgrade to this minor removes from kubeadm-flags.env. */
export function unwantedKubeletFlags(versions: VersionProfile): string[] {
  return [...versions.kubelet.upgradeDropsFlags];
}

/** Removes the unwanted flags from this node's kubeadm-flags.env; true when the file was (or, dry, would be) written. */
export async function cleanKubeletFlagsEnv(host: Host, versions: VersionProfile, log: Pick<Logger, 'info'>, prefix: string): Promise<boolean> {
  const unwanted = unwantedKubeletFlags(versions);
  if (unwanted.length === 0) return false;
  const current = await host.readFile(KUBELET_FLAGS_ENV_FILE);
  if (current === undefined) return false;
  const cleaned = withoutKubeletFlags(current.toString('utf8'), unwanted);
  if (cleaned === undefined) return false;
  // The CRI endpoint may leave the flags file only for a kubelet that finds it in its instance
  // configuration (kubeadm 1.37 fails the same way without instance-config.yaml, PR #138645).
  if (unwanted.includes('container-runtime-endpoint') && await host.readFile(KUBELET_INSTANCE_CONFIG_FILE) === undefined) {
    throw new TsadmError('E_PRECONDITION', `cannot remove --container-runtime-endpoint from "${KUBELET_FLAGS_ENV_FILE}": "${KUBELET_INSTANCE_CONFIG_FILE}" does not exist, so the kubelet would lose its container runtime endpoint`, {
      hint: `upgrade this node to v1.36 first (it writes ${KUBELET_INSTANCE_CONFIG_FILE}), or write it with containerRuntimeEndpoint set`,
    });
  }
  await host.assertWritable(KUBELET_FLAGS_ENV_FILE);
  log.info(`Removing the flags ${unwanted.map((f) => `--${f}`).join(', ')} from "${KUBELET_FLAGS_ENV_FILE}": the kubelet of this version no longer accepts them`, { prefix });
  await host.writeFile(KUBELET_FLAGS_ENV_FILE, cleaned, { mode: MODES.kubeletFile, kind: 'config', description: 'kubelet environment file' });
  return true;
}
