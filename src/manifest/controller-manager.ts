/**
 * kube-controller-manager static pod (kubeadm's getControllerManagerCommand).
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

export function renderControllerManagerPod(cfg: StaticPodConfig, versions: VersionProfile, facts: HostFacts): Pod {
  const { cluster } = cfg;
  const kcm = cluster.controllerManager;
  const bind = argValue(kcm.extraArgs, 'bind-address');
  const target = { host: bind === undefined ? '127.0.0.1' : probeHostFor(bind), port: PORTS.controllerManager, scheme: 'HTTPS' as const };
  const timeout = cluster.apiServer.timeoutForControlPlaneMs;
  const { volumes, volumeMounts } = volumesAndMounts(controlPlaneMounts('kube-controller-manager', cluster, versions, facts.existingHostDirs));
  const env = containerEnv(facts.proxyEnv, kcm.extraEnvs, versions.controlPlane.sortedEnv);
  return componentPod(
    {
      command: ['kube-controller-manager', ...buildArgs(defaultArgs(cfg, versions, facts.externalCA), kcm.extraArgs, argsModeOf(versions))],
      ...(env.length > 0 ? { env } : {}),
      image: imageRef(imageRepository(cluster, versions), 'kube-controller-manager', kubernetesImageTag(cluster.kubernetesVersion)),
      imagePullPolicy: 'IfNotPresent',
      livenessProbe: httpProbe('liveness', target, '/healthz', timeout, versions),
      name: 'kube-controller-manager',
      ...probePorts(PORTS.controllerManager, versions),
      resources: { requests: { cpu: '200m' } },
      startupProbe: httpProbe('startup', target, '/healthz', timeout, versions),
      ...(volumeMounts.length > 0 ? { volumeMounts } : {}),
    },
    volumes,
    undefined,
    versions,
  );
}

function defaultArgs(cfg: StaticPodConfig, versions: VersionProfile, externalCA: boolean): Arg[] {
  const { cluster } = cfg;
  const kubeconfig = path.posix.join(KUBERNETES_DIR, KUBECONFIG_FILES.controllerManager);
  const pki = (file: string): string => path.posix.join(cluster.certificatesDir, file);
  const net = cluster.networking;
  return [
    ...(versions.controlPlane.componentPortZeroFlag ? [{ name: 'port', value: '0' }] : []),
    { name: 'bind-address', value: '127.0.0.1' },
    { name: 'leader-elect', value: 'true' },
    { name: 'kubeconfig', value: kubeconfig },
    { name: 'authentication-kubeconfig', value: kubeconfig },
    { name: 'authorization-kubeconfig', value: kubeconfig },
    { name: 'client-ca-file', value: pki('ca.crt') },
    { name: 'requestheader-client-ca-file', value: pki('front-proxy-ca.crt') },
    { name: 'root-ca-file', value: pki('ca.crt') },
    { name: 'service-account-private-key-file', value: pki('sa.key') },
    // With an external CA the signer gets empty paths, so the csrsigning controller stays off
    // instead of failing on a missing key.
    { name: 'cluster-signing-cert-file', value: externalCA ? '' : pki('ca.crt') },
    { name: 'cluster-signing-key-file', value: externalCA ? '' : pki('ca.key') },
    { name: 'use-service-account-credentials', value: 'true' },
    { name: 'controllers', value: '*,bootstrapsigner,tokencleaner' },
    // Node CIDR allocation only when a pod network range was given.
    ...(net.podSubnet
      ? [
        { name: 'allocate-node-cidrs', value: 'true' },
        { name: 'cluster-cidr', value: net.podSubnet },
        ...(net.serviceSubnet ? [{ name: 'service-cluster-ip-range', value: net.serviceSubnet }] : []),
      ]
      : []),
    ...(cluster.clusterName ? [{ name: 'cluster-name', value: cluster.clusterName }] : []),
    ...dualStackFeatureGateArg(cluster, versions),
  ];
}
