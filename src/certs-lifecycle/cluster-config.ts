/**
 * The cluster's ClusterConfiguration for `certs renew` and `certs check-expiration`, as kubeadm's
 * getInternalCfg reads it (cmd/kubeadm/app/cmd/certs.go): without --config, through the
 * --kubeconfig client (default /etc/kubernetes/admin.conf), from the kubeadm-config ConfigMap.
 * It must not block a renewal on a cluster that is down: a short, bounded retry, then kubeadm's
 * "Error reading configuration from the Cluster. Falling back to default configuration". No
 * kubeconfig file means no client, and kubeadm then uses the defaults without a word.
 * --config wins over the cluster (kubeadm does not contact it then); --cert-dir wins over both.
 *
 * What the commands use from it: certificatesDir and whether etcd is external (which
 * certificates are managed). SANs, subjects and usages come from the existing certificates.
 * kubeadm's FetchInitConfigurationFromCluster also reads this node's registration and API
 * endpoint, which these commands never use; tsadm reads only the ClusterConfiguration.
 */
import { errorMessage } from '../errors.js';
import type { RetryPolicy } from '../kube/retry.js';
import type { ConfigMapObject } from '../kube/types.js';
import type { Runtime } from '../run/runtime.js';
import { KUBEADM_CONFIG_CM, KUBE_SYSTEM } from '../constants.js';

/** A renewal must not wait long on a cluster that is down. */
const SHORT_RETRY: RetryPolicy = { initialDelayMs: 250, maxDelayMs: 1000, factor: 2, deadlineMs: 5000 };

export interface ClusterConfigRead {
  /** The ClusterConfiguration YAML of kubeadm-config, or undefined (defaults are used). */
  readonly text?: string;
  /** kubeadm's lines, to be printed with the command's prefix (text output only). */
  readonly lines: readonly string[];
}

/** What kubeadm's getInternalCfg prints when it reads (or fails to read) the cluster's configuration. */
const READING_LINES = [
  'Reading configuration from the cluster...',
  `FYI: You can look at this config file with 'kubectl -n ${KUBE_SYSTEM} get cm ${KUBEADM_CONFIG_CM} -o yaml'`,
] as const;
const FALLBACK_LINE = 'Error reading configuration from the Cluster. Falling back to default configuration';

export async function readClusterConfiguration(rt: Pick<Runtime, 'host' | 'api' | 'log'>, kubeconfigPath: string): Promise<ClusterConfigRead> {
  const kubeconfig = await rt.host.readFile(kubeconfigPath);
  if (kubeconfig === undefined) {
    rt.log.debug(`no ${kubeconfigPath}: the cluster's configuration is not read; kubeadm's defaults are used`, { prefix: 'certs' });
    return { lines: [] };
  }
  try {
    const api = await rt.api.open({ path: kubeconfigPath }, { log: rt.log, retry: SHORT_RETRY, requestTimeoutMs: 5000, dryRunRequestTimeoutMs: 5000 });
    const cm = await api.get<ConfigMapObject>('ConfigMap', KUBEADM_CONFIG_CM, KUBE_SYSTEM);
    const text = cm?.data?.ClusterConfiguration;
    if (!text) throw new Error(`the ConfigMap ${KUBE_SYSTEM}/${KUBEADM_CONFIG_CM} ${cm ? 'has no ClusterConfiguration' : 'does not exist'}`);
    return { text, lines: [...READING_LINES] };
  } catch (err) {
    rt.log.debug(`reading the cluster's configuration through ${kubeconfigPath}: ${errorMessage(err)}`, { prefix: 'certs' });
    return { lines: [...READING_LINES, FALLBACK_LINE] };
  }
}
