/**
 * The health endpoints tsadm waits on (kubeadm's WaitForAllControlPlaneComponents and kubelet
 * check). Pure: URLs follow the configuration, never --rootfs (the network is the host's).
 */
import { featureEnabled } from '../../config/feature-gates.js';
import type { Arg, ResolvedInitConfig } from '../../config/types.js';
import { PORTS } from '../../constants.js';
import { argValue } from '../../manifest/args.js';
import { joinHostPort } from '../../net/host-port.js';
import type { VersionProfile } from '../../versions/table-types.js';
import type { HealthTarget } from '../../health/wait-loop.js';

/** The kubelet's /healthz, where its KubeletConfiguration says it listens (default 127.0.0.1:10248). */
export function kubeletHealthTarget(cfg: ResolvedInitConfig): HealthTarget {
  const user = cfg.componentConfigs.kubelet;
  const address = typeof user.healthzBindAddress === 'string' && user.healthzBindAddress ? user.healthzBindAddress : '127.0.0.1';
  const port = typeof user.healthzPort === 'number' && user.healthzPort > 0 ? user.healthzPort : PORTS.kubeletHealthz;
  return { component: 'kubelet', url: `http://${joinHostPort(reachable(address), port)}/healthz` };
}

/**
 * What wait-control-plane waits for besides the kubelet: with WaitForAllControlPlaneComponents
 * (gate from 1.30, on by default from 1.33, GA in 1.34) every component kubeadm checks, else
 * only the kube-apiserver (kubeadm's WaitForAPI).
 */
export function waitControlPlaneTargets(cfg: ResolvedInitConfig, versions: VersionProfile): HealthTarget[] {
  const all = controlPlaneHealthTargets(cfg, versions);
  return featureEnabled(cfg.cluster.featureGates, versions, 'WaitForAllControlPlaneComponents') ? all : all.filter((t) => t.component === 'kube-apiserver');
}

/**
 * kube-apiserver at the advertise address (/livez, served by every supported version), the
 * controller-manager and scheduler at their bind address and secure port on this host.
 */
export function controlPlaneHealthTargets(cfg: ResolvedInitConfig, versions: VersionProfile): HealthTarget[] {
  const { cluster } = cfg;
  const ep = cfg.init.localAPIEndpoint;
  const apiserverHost = reachable(ep.advertiseAddress || '127.0.0.1');
  return [
    { component: 'kube-apiserver', url: `https://${joinHostPort(apiserverHost, ep.bindPort)}/livez` },
    componentTarget('kube-controller-manager', cluster.controllerManager.extraArgs, PORTS.controllerManager, '/healthz'),
    componentTarget('kube-scheduler', cluster.scheduler.extraArgs, PORTS.scheduler, versions.controlPlane.schedulerLivez ? '/livez' : '/healthz'),
  ];
}

function componentTarget(component: string, extraArgs: readonly Arg[], defaultPort: number, path: string): HealthTarget {
  const bind = reachable(argValue(extraArgs, 'bind-address') ?? '127.0.0.1');
  const portArg = Number(argValue(extraArgs, 'secure-port'));
  const port = Number.isInteger(portArg) && portArg > 0 ? portArg : defaultPort;
  return { component, url: `https://${joinHostPort(bind, port)}${path}` };
}

/** A bind-all address is reached through the loopback of its family. */
function reachable(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '::1';
  return address;
}
