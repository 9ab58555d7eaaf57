/**
 * kube-scheduler static pod (kubeadm's getSchedulerCommand).
 */
import path from 'node:path';
import type { Arg } from '../config/types.js';
import { KUBECONFIG_FILES, KUBERNETES_DIR, PORTS } from '../constants.js';
import { argValue, argsModeOf, buildArgs } from './args.js';
import { containerEnv } from './env.js';
import { imageRepository, probeHostFor, type HostFacts, type StaticPodConfig } from './inputs.js';
import type { Pod } from './pod.js';
import { componentPod, httpProbe, imageRef, kubernetesImageTag, probePorts, volumesAndMounts } from './static-pod.js';
import type { VersionProfile } from '../versions/table-types.js';
import { dualStackFeatureGateArg } from './feature-gates.js';
import { controlPlaneMounts } from './volumes.js';

export function renderSchedulerPod(cfg: StaticPodConfig, versions: VersionProfile, facts: HostFacts): Pod {
  const { cluster } = cfg;
  const sched = cluster.scheduler;
  const bind = argValue(sched.extraArgs, 'bind-address');
  const target = { host: bind === undefined ? '127.0.0.1' : probeHostFor(bind), port: PORTS.scheduler, scheme: 'HTTPS' as const };
  const timeout = cluster.apiServer.timeoutForControlPlaneMs;
  // 1.32+ probes the scheduler's /livez and /readyz; before that /healthz, and no readiness probe.
  const livenessPath = versions.controlPlane.schedulerLivez ? '/livez' : '/healthz';
  const { volumes, volumeMounts } = volumesAndMounts(controlPlaneMounts('kube-scheduler', cluster, versions, facts.existingHostDirs));
  const env = containerEnv(facts.proxyEnv, sched.extraEnvs, versions.controlPlane.sortedEnv);
  return componentPod(
    {
      command: ['kube-scheduler', ...buildArgs(defaultArgs(cfg, versions), sched.extraArgs, argsModeOf(versions))],
      ...(env.length > 0 ? { env } : {}),
      image: imageRef(imageRepository(cluster, versions), 'kube-scheduler', kubernetesImageTag(cluster.kubernetesVersion)),
      imagePullPolicy: 'IfNotPresent',
      livenessProbe: httpProbe('liveness', target, livenessPath, timeout, versions),
      name: 'kube-scheduler',
      ...probePorts(PORTS.scheduler, versions),
      ...(versions.controlPlane.schedulerLivez ? { readinessProbe: httpProbe('readiness', target, '/readyz', timeout, versions) } : {}),
      resources: { requests: { cpu: '100m' } },
      startupProbe: httpProbe('startup', target, livenessPath, timeout, versions),
      ...(volumeMounts.length > 0 ? { volumeMounts } : {}),
    },
    volumes,
    undefined,
    versions,
  );
}

function defaultArgs(cfg: StaticPodConfig, versions: VersionProfile): Arg[] {
  const kubeconfig = path.posix.join(KUBERNETES_DIR, KUBECONFIG_FILES.scheduler);
  return [
    ...(versions.controlPlane.componentPortZeroFlag ? [{ name: 'port', value: '0' }] : []),
    { name: 'bind-address', value: '127.0.0.1' },
    { name: 'leader-elect', value: 'true' },
    { name: 'kubeconfig', value: kubeconfig },
    { name: 'authentication-kubeconfig', value: kubeconfig },
    { name: 'authorization-kubeconfig', value: kubeconfig },
    ...dualStackFeatureGateArg(cfg.cluster, versions),
  ];
}
