/**
 * kube-scheduler static pod (kubeadm's getSchedulerCommand): the controller pod
 * (./controller-pod.ts) with the scheduler's port, kubeconfig and probes.
 */
import type { Pod } from './pod.js';
import { KUBECONFIG_FILES, PORTS } from '../constants.js';
import type { HostFacts, StaticPodConfig } from './inputs.js';
import type { VersionProfile } from '../versions/table-types.js';
import { dualStackFeatureGateArg } from './feature-gates.js';
import { renderControllerPod } from './controller-pod.js';

export function renderSchedulerPod(cfg: StaticPodConfig, versions: VersionProfile, facts: HostFacts): Pod {
  // 1.32+ probes the scheduler's /livez and /readyz; before that /healthz, and no readiness probe.
  const livez = versions.controlPlane.schedulerLivez;
  return renderControllerPod(cfg, versions, facts, {
    name: 'kube-scheduler',
    component: cfg.cluster.scheduler,
    port: PORTS.scheduler,
    kubeconfigFile: KUBECONFIG_FILES.scheduler,
    args: dualStackFeatureGateArg(cfg.cluster, versions),
    cpu: '100m',
    livenessPath: livez ? '/livez' : '/healthz',
    readiness: livez,
  });
}
