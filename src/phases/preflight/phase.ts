import type { Phase } from '../../engine/phase.js';
import type { InitCtx } from '../../run/context.js';
import { bindAddressesOf, initChecks, type ConnectRuntimeConfig } from './checks.js';
import { runChecks } from './run-checks.js';
import { connectCri } from '../../host/cri-client.js';
import { controlPlaneImages, skippedAddons } from '../controlplane/images.js';
import { pullRequiredImages, type ConnectRuntime } from './pull-images.js';

/**
 * `preflight`: kubeadm's init checks. Reads only; nothing is written. Machine facts (ports, CPUs,
 * /proc) come from the context's probe (ctx.system), files are read through the host (so --rootfs applies).
 */
export function initPreflightPhase(
  connect: ConnectRuntime = (s) => connectCri(s),
  connectRuntimeConfig: ConnectRuntimeConfig = (s) => connectCri(s),
): Phase<InitCtx> {
  return {
    name: 'preflight',
    summary: 'Run pre-flight checks',
    description: 'Run pre-flight checks for tsadm init.',
    example: 'tsadm init phase preflight --config config.yaml',
    // It checks the machine and leaves nothing; once passed, --resume does not ask again (the
    // machine now runs what preflight refuses to find).
    noExitCheck: 'trusted-once-passed',
    flags: ['config', 'cri-socket', 'ignore-preflight-errors', 'image-repository', 'kubernetes-version', 'node-name', 'apiserver-advertise-address', 'apiserver-bind-port', 'pod-network-cidr', 'service-cidr'],
    async run(ctx) {
      const { cfg } = ctx;
      ctx.log.info('Running pre-flight checks');
      const etcd = cfg.cluster.etcd;
      const checks = initChecks({
        versions: ctx.versions,
        kubernetesVersion: cfg.cluster.kubernetesVersion,
        criSocket: cfg.init.nodeRegistration.criSocket,
        nodeName: cfg.init.nodeRegistration.name,
        bindPort: cfg.init.localAPIEndpoint.bindPort,
        advertiseAddress: cfg.init.localAPIEndpoint.advertiseAddress,
        serviceSubnet: cfg.cluster.networking.serviceSubnet,
        podSubnet: cfg.cluster.networking.podSubnet,
        ...(etcd.mode === 'local' ? { localEtcdDataDir: etcd.dataDir } : { externalEtcd: etcd }),
        swapAllowed: cfg.componentConfigs.kubelet.failSwapOn === false,
        bindAddresses: bindAddressesOf(cfg.cluster),
        connectRuntime: connectRuntimeConfig,
      });
      await runChecks(checks, ctx, cfg.init.nodeRegistration.ignorePreflightErrors, ctx.log);
      const images = controlPlaneImages(cfg.cluster, ctx.versions, skippedAddons(cfg.init.skipPhases));
      await pullRequiredImages({ host: ctx.host, system: ctx.system, log: ctx.log, dryRun: ctx.dryRun, versions: ctx.versions, nodeRegistration: cfg.init.nodeRegistration, images, connect });
    },
  };
}
