/**
 * What the certificate lifecycle commands work on: the node's PKI and kubeconfig dirs through the
 * host seam, and the cluster configuration (from --config, else kubeadm's defaults, as kubeadm
 * falls back to when it cannot read the kubeadm-config ConfigMap). It satisfies the certs
 * phases' PkiCtx, so their CA loading, key and CSR helpers are reused as they are.
 */
import { resolveInitConfig } from '../config/load.js';
import type { ResolvedInitConfig } from '../config/types.js';
import { KUBERNETES_DIR } from '../constants.js';
import { defaultRouteAddress, nodeHostname } from '../host/network.js';
import type { Logger } from '../log/events.js';
import type { PkiCtx } from '../certs/context.js';
import { profileFor } from '../versions/resolve.js';
import { readConfigFile, type Runtime } from '../run/runtime.js';
import { newPkiRunState } from '../certs/run-state.js';
import { STORED_CONFIG_API_VERSION_CHECK } from '../kube/kubeadm-config.js';

export interface LifecycleCtx extends PkiCtx {
  /** Where admin.conf & co. live (--kubeconfig-dir). */
  readonly kubeconfigDir: string;
  readonly certDir: string;
}

export interface LifecycleOptions {
  /** --config: a kubeadm configuration file (InitConfiguration/ClusterConfiguration). */
  readonly config?: string;
  /** --cert-dir: wins over the configuration's certificatesDir, as in kubeadm. */
  readonly certDir?: string;
  readonly kubeconfigDir?: string;
  /**
   * Whether the node's advertise address matters (CSRs, kubeconfig servers). When it does not
   * (expiration checks, renewals read everything from the existing files), a machine without a
   * default route still gets a valid configuration: RFC 5737's TEST-NET-1 address stands in.
   */
  readonly needsAdvertiseAddress: boolean;
  /**
   * The kubeadm-config ClusterConfiguration read through --kubeconfig (renew, check-expiration),
   * used when there is no --config.
   */
  readonly clusterConfigText?: string;
}

const CLUSTER_SOURCE = 'the kubeadm-config ConfigMap';

const PLACEHOLDER_ADDRESS = '192.0.2.1';

function lifecycleConfig(opts: LifecycleOptions, configText: string | undefined, env: { hostname: string; address?: string; now: Date }): ResolvedInitConfig {
  const address = env.address ?? (opts.needsAdvertiseAddress ? undefined : PLACEHOLDER_ADDRESS);
  // --config wins; without it, the cluster's ClusterConfiguration when it could be read.
  const fromCluster = opts.config === undefined && opts.clusterConfigText !== undefined;
  const cfg = resolveInitConfig({
    ...(configText !== undefined ? { configText } : {}),
    ...(opts.config !== undefined ? { configPath: opts.config } : {}),
    ...(fromCluster ? { configText: opts.clusterConfigText, configPath: CLUSTER_SOURCE } : {}),
    flags: opts.config !== undefined ? { config: opts.config } : fromCluster ? { config: CLUSTER_SOURCE } : {},
    env: { hostname: env.hostname, ...(address ? { defaultAdvertiseAddress: address } : {}), now: env.now },
    // The cluster's own record is read whatever API version it was stored in; a --config file is judged.
    ...(fromCluster ? { apiVersionCheck: STORED_CONFIG_API_VERSION_CHECK } : {}),
    // A --config file acts on this run only (`certs renew --config` with a 2-hour period is how
    // short-lived certificates are made on purpose); nothing here uploads it (src/config/stored-fields.ts).
    storedFields: 'skip',
  });
  if (opts.certDir === undefined || opts.certDir === '') return cfg;
  return { ...cfg, cluster: { ...cfg.cluster, certificatesDir: opts.certDir } };
}

export async function buildLifecycleCtx(rt: Runtime, opts: LifecycleOptions): Promise<LifecycleCtx> {
  const configText = await readConfigFile(opts.config);
  const address = defaultRouteAddress();
  const cfg = lifecycleConfig(opts, configText, { hostname: nodeHostname(), ...(address ? { address } : {}), now: rt.startTime });
  const kubeconfigDir = opts.kubeconfigDir || KUBERNETES_DIR;
  return {
    host: rt.host,
    log: rt.log,
    cfg,
    versions: profileFor(cfg.cluster.kubernetesVersion),
    startTime: rt.startTime,
    options: { csrOnly: false, csrDir: undefined, kubeconfigDir },
    kubeconfigDir,
    certDir: cfg.cluster.certificatesDir,
    state: { pki: newPkiRunState() },
  };
}

type InfoWarn = Pick<Logger, 'info' | 'warn'>;

/** A logger whose lines carry a fixed "[prefix]" (as phases get from the runner). */
export function prefixed(log: InfoWarn, prefix: string): InfoWarn {
  return {
    info: (message, opts) => log.info(message, { prefix, ...opts }),
    warn: (message, opts) => log.warn(message, { prefix, ...opts }),
  };
}
