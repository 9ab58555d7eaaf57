/**
 * kube-controller-manager static pod (kubeadm's getControllerManagerCommand): the controller pod
 * (./controller-pod.ts) with the controller-manager's port, kubeconfig and own flags.
 */
import path from 'node:path';
import type { Arg } from '../config/types.js';
import { KUBECONFIG_FILES, PORTS } from '../constants.js';
import type { HostFacts, StaticPodConfig } from './inputs.js';
import type { Pod } from './pod.js';
import type { VersionProfile } from '../versions/table-types.js';
import { dualStackFeatureGateArg } from './feature-gates.js';
import { renderControllerPod } from './controller-pod.js';

export function renderControllerManagerPod(cfg: StaticPodConfig, versions: VersionProfile, facts: HostFacts): Pod {
  return renderControllerPod(cfg, versions, facts, {
    name: 'kube-controller-manager',
    component: cfg.cluster.controllerManager,
    port: PORTS.controllerManager,
    kubeconfigFile: KUBECONFIG_FILES.controllerManager,
    args: ownArgs(cfg, versions, facts.externalCA),
    cpu: '200m',
    livenessPath: '/healthz',
    readiness: false,
  });
}

/** The flags after the six it shares with the scheduler (./controller-pod.ts). */
function ownArgs(cfg: StaticPodConfig, versions: VersionProfile, externalCA: boolean): Arg[] {
  const { cluster } = cfg;
  const pki = (file: string): string => path.posix.join(cluster.certificatesDir, file);
  const net = cluster.networking;
  return [
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
