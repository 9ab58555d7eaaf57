/**
 * kube-controller-manager and kube-scheduler: one static pod around two commands. kubeadm builds
 * both pods alike (GetStaticPodSpecs), and getControllerManagerCommand and getSchedulerCommand
 * begin with the same six flags: loopback bind, leader election, and one kubeconfig for the API
 * and for delegated authentication and authorization.
 */
import path from 'node:path';
import type { Arg, ControlPlaneComponent } from '../config/types.js';
import { KUBERNETES_DIR } from '../constants.js';
import { argValue, argsModeOf, buildArgs } from './args.js';
import { containerEnv } from './env.js';
import { imageRepository, probeHostFor, type HostFacts, type StaticPodConfig } from './inputs.js';
import type { Pod } from './pod.js';
import { componentPod, httpProbe, imageRef, kubernetesImageTag, probePorts, volumesAndMounts } from './static-pod.js';
import type { VersionProfile } from '../versions/table-types.js';
import { controlPlaneMounts } from './volumes.js';

export interface ControllerPodSpec {
  readonly name: 'kube-controller-manager' | 'kube-scheduler';
  /** Its section of the ClusterConfiguration (extraArgs, extraEnvs). */
  readonly component: ControlPlaneComponent;
  readonly port: number;
  /** Its kubeconfig's file name under /etc/kubernetes. */
  readonly kubeconfigFile: string;
  /** The flags after the six both share, in kubeadm's order. */
  readonly args: readonly Arg[];
  readonly cpu: string;
  readonly livenessPath: string;
  /** Whether it has a readiness probe (on livenessPath's sibling /readyz). */
  readonly readiness: boolean;
}

function sharedArgs(kubeconfigFile: string, versions: VersionProfile): Arg[] {
  const kubeconfig = path.posix.join(KUBERNETES_DIR, kubeconfigFile);
  return [
    ...(versions.controlPlane.componentPortZeroFlag ? [{ name: 'port', value: '0' }] : []),
    { name: 'bind-address', value: '127.0.0.1' },
    { name: 'leader-elect', value: 'true' },
    { name: 'kubeconfig', value: kubeconfig },
    { name: 'authentication-kubeconfig', value: kubeconfig },
    { name: 'authorization-kubeconfig', value: kubeconfig },
  ];
}

export function renderControllerPod(cfg: StaticPodConfig, versions: VersionProfile, facts: HostFacts, spec: ControllerPodSpec): Pod {
  const { cluster } = cfg;
  const { name, component } = spec;
  const bind = argValue(component.extraArgs, 'bind-address');
  const target = { host: bind === undefined ? '127.0.0.1' : probeHostFor(bind), port: spec.port, scheme: 'HTTPS' as const };
  const timeout = cluster.apiServer.timeoutForControlPlaneMs;
  const { volumes, volumeMounts } = volumesAndMounts(controlPlaneMounts(name, cluster, versions, facts.existingHostDirs));
  const env = containerEnv(facts.proxyEnv, component.extraEnvs, versions.controlPlane.sortedEnv);
  return componentPod(
    {
      command: [name, ...buildArgs([...sharedArgs(spec.kubeconfigFile, versions), ...spec.args], component.extraArgs, argsModeOf(versions))],
      ...(env.length > 0 ? { env } : {}),
      image: imageRef(imageRepository(cluster, versions), name, kubernetesImageTag(cluster.kubernetesVersion)),
      imagePullPolicy: 'IfNotPresent',
      livenessProbe: httpProbe('liveness', target, spec.livenessPath, timeout, versions),
      name,
      ...probePorts(spec.port, versions),
      ...(spec.readiness ? { readinessProbe: httpProbe('readiness', target, '/readyz', timeout, versions) } : {}),
      resources: { requests: { cpu: spec.cpu } },
      startupProbe: httpProbe('startup', target, spec.livenessPath, timeout, versions),
      ...(volumeMounts.length > 0 ? { volumeMounts } : {}),
    },
    volumes,
    undefined,
    versions,
  );
}
