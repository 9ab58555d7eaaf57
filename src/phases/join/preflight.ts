/**
 * `join preflight`: discovery (once, memoized: later phases reuse it), the cluster's
 * configuration, then kubeadm's join checks — for a control-plane join also the control-plane
 * checks and whether the cluster can take another control plane at all.
 * Writes nothing (a failed discovery or check leaves the machine untouched).
 */
import path from 'node:path';
import { PORTS } from '../../constants.js';
import { TsadmError } from '../../errors.js';
import type { Phase } from '../../engine/phase.js';
import type { JoinCtx } from './context.js';
import { bindAddressesOf, joinChecks } from '../preflight/checks.js';
import { runChecks } from '../preflight/run-checks.js';
import { pullRequiredImages } from '../preflight/pull-images.js';
import { controlPlaneImages } from '../controlplane/images.js';
import type { JoinClusterConfig } from '../../stored-config/cluster-config.js';
import { DISCOVERY_FLAGS } from './flags.js';
import { clusterConfig } from './state.js';

export const joinPreflightPhase: Phase<JoinCtx> = {
  name: 'preflight',
  summary: 'Run join pre-flight checks',
  description: 'Run pre-flight checks for tsadm join: discover and verify the cluster, read its configuration, check this machine.',
  example: '# Run join pre-flight checks using a config file.\ntsadm join phase preflight --config tsadm-config.yaml',
  positional: '[api-server-endpoint]',
  flags: [...DISCOVERY_FLAGS, 'apiserver-advertise-address', 'apiserver-bind-port', 'certificate-key', 'control-plane', 'cri-socket', 'ignore-preflight-errors', 'node-name'],
  async run(ctx) {
    ctx.log.info('Running pre-flight checks');
    const cluster = await clusterConfig(ctx);
    const join = cluster.init.init;
    const cp = ctx.cfg.join.controlPlane;
    const etcd = cluster.init.cluster.etcd;
    if (cp) await checkReadyForControlPlane(ctx, cluster, cp.certificateKey !== '');
    const checks = joinChecks({
      versions: cluster.versions,
      kubernetesVersion: cluster.init.cluster.kubernetesVersion,
      criSocket: join.nodeRegistration.criSocket,
      nodeName: join.nodeRegistration.name,
      bindPort: cp?.localAPIEndpoint.bindPort ?? PORTS.apiserver,
      ...(cp ? { advertiseAddress: cp.localAPIEndpoint.advertiseAddress } : {}),
      ...(cp && etcd.mode === 'local' ? { localEtcdDataDir: etcd.dataDir } : {}),
      serviceSubnet: cluster.init.cluster.networking.serviceSubnet,
      bindAddresses: bindAddressesOf(cluster.init.cluster),
      podSubnet: cluster.init.cluster.networking.podSubnet,
      swapAllowed: cluster.init.componentConfigs.kubelet.failSwapOn === false,
      controlPlane: cp !== undefined,
      ...(ctx.cfg.join.discovery.bootstrapToken ? { discoveryEndpoint: ctx.cfg.join.discovery.bootstrapToken.apiServerEndpoint } : {}),
      connectRuntime: (socket) => ctx.deps.connectCri(socket),
    });
    if (cp) ctx.log.info('Running pre-flight checks before initializing the new control plane instance');
    await runChecks(checks, ctx, join.nodeRegistration.ignorePreflightErrors, ctx.log);
    if (cp) {
      // kubeadm's RunPullImagesCheck on the cluster's configuration with this node's registration.
      await pullRequiredImages({
        host: ctx.host, system: ctx.system, log: ctx.log, dryRun: ctx.dryRun, versions: cluster.versions,
        nodeRegistration: join.nodeRegistration, images: controlPlaneImages(cluster.init.cluster, cluster.versions),
        connect: (socket) => ctx.deps.connectCri(socket),
      });
    }
  },
};

/**
 * kubeadm's checkIfReadyForAdditionalControlPlane: a stable controlPlaneEndpoint, and the shared
 * certificates either downloadable (--certificate-key) or already on disk.
 */
async function checkReadyForControlPlane(ctx: JoinCtx, cluster: JoinClusterConfig, hasCertificateKey: boolean): Promise<void> {
  const hint = 'Please ensure that: the cluster has a stable controlPlaneEndpoint address; the certificates that must be shared among control plane instances are provided (--certificate-key, or copied to this machine)';
  if (cluster.controlPlaneEndpoint === '') {
    throw new TsadmError('E_PRECONDITION', "One or more conditions for hosting a new control plane instance is not satisfied. unable to add a new control plane instance to a cluster that doesn't have a stable controlPlaneEndpoint address", { hint });
  }
  if (hasCertificateKey) return;
  const missing: string[] = [];
  for (const file of sharedCertificateFiles(cluster)) if (!(await ctx.host.stat(file))) missing.push(file);
  if (missing.length > 0) {
    throw new TsadmError('E_PRECONDITION', `One or more conditions for hosting a new control plane instance is not satisfied. missing shared certificates: ${missing.join(', ')}`, { hint });
  }
}

/** kubeadm's SharedCertificateExists: the CAs with their keys, the SA key pair, the etcd CA (stacked etcd). */
function sharedCertificateFiles(cluster: JoinClusterConfig): string[] {
  const dir = cluster.init.cluster.certificatesDir;
  const names = ['ca.crt', 'ca.key', 'sa.key', 'sa.pub', 'front-proxy-ca.crt', 'front-proxy-ca.key'];
  if (cluster.init.cluster.etcd.mode === 'local') names.push('etcd/ca.crt', 'etcd/ca.key');
  return names.map((n) => path.posix.join(dir, n));
}
