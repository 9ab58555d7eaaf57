/**
 * kube-apiserver static pod (kubeadm's phases/controlplane/manifests.go getAPIServerCommand).
 */
import path from 'node:path';
import type { Arg, ClusterConfiguration } from '../config/types.js';
import { PORTS } from '../constants.js';
import { argValue, argsModeOf, buildArgs } from './args.js';
import { containerEnv } from './env.js';
import { imageRepository, loopbackFor, probeHostFor, type HostFacts, type StaticPodConfig } from './inputs.js';
import { joinHostPort } from '../net/host-port.js';
import type { Pod } from './pod.js';
import { componentPod, httpProbe, imageRef, kubernetesImageTag, probePorts, volumesAndMounts } from './static-pod.js';
import type { VersionProfile } from '../versions/table-types.js';
import { dualStackFeatureGateArg } from './feature-gates.js';
import { controlPlaneMounts } from './volumes.js';

const ADVERTISE_ADDRESS_ANNOTATION = 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint';
const DEFAULT_AUTHZ_MODES = ['Node', 'RBAC'];
const VALID_AUTHZ_MODES = new Set(['Node', 'RBAC', 'Webhook', 'ABAC', 'AlwaysAllow', 'AlwaysDeny']);

export function renderApiServerPod(cfg: StaticPodConfig, versions: VersionProfile, facts: HostFacts): Pod {
  const { cluster, endpoint } = cfg;
  const probeHost = endpoint.advertiseAddress ? probeHostFor(endpoint.advertiseAddress) : '127.0.0.1';
  const target = { host: probeHost, port: endpoint.bindPort, scheme: 'HTTPS' as const };
  const timeout = cluster.apiServer.timeoutForControlPlaneMs;
  const { volumes, volumeMounts } = volumesAndMounts(controlPlaneMounts('kube-apiserver', cluster, versions, facts.existingHostDirs));
  const env = containerEnv(facts.proxyEnv, cluster.apiServer.extraEnvs, versions.controlPlane.sortedEnv);
  return componentPod(
    {
      command: ['kube-apiserver', ...apiServerArgs(cfg, versions)],
      ...(env.length > 0 ? { env } : {}),
      image: imageRef(imageRepository(cluster, versions), 'kube-apiserver', kubernetesImageTag(cluster.kubernetesVersion)),
      imagePullPolicy: 'IfNotPresent',
      livenessProbe: httpProbe('liveness', target, '/livez', timeout, versions),
      name: 'kube-apiserver',
      ...probePorts(endpoint.bindPort, versions),
      readinessProbe: httpProbe('readiness', target, '/readyz', timeout, versions),
      resources: { requests: { cpu: '250m' } },
      startupProbe: httpProbe('startup', target, '/livez', timeout, versions),
      ...(volumeMounts.length > 0 ? { volumeMounts } : {}),
    },
    volumes,
    { [ADVERTISE_ADDRESS_ANNOTATION]: joinHostPort(endpoint.advertiseAddress, endpoint.bindPort) },
    versions,
  );
}

/**
 * The command's flags. Where user extraArgs keep their order (1.36+), the order shows where
 * kubeadm puts --authorization-mode: its getAPIServerCommand adds the validated modes to the
 * *defaults* (kubeadmapi.SetArgValues on defaultArguments, unless authorization-config is set),
 * so they are sorted with the other defaults and a user's own authorization-mode, being an
 * override, replaces them as written. Before, the merged command was sorted anyway, and tsadm's
 * earlier placement (apiServerOverrides) is kept unchanged for those minors.
 */
function apiServerArgs(cfg: StaticPodConfig, versions: VersionProfile): string[] {
  const mode = argsModeOf(versions);
  const { cluster } = cfg;
  if (mode !== 'list-user-order') return buildArgs(apiServerDefaultArgs(cfg, versions), apiServerOverrides(cluster), mode);
  const extra = cluster.apiServer.extraArgs;
  const authz = argValue(extra, 'authorization-config') !== undefined
    ? []
    : [{ name: 'authorization-mode', value: authorizationModes(argValue(extra, 'authorization-mode')).modes }];
  return buildArgs([...apiServerDefaultArgs(cfg, versions), ...authz], extra, mode);
}

function apiServerDefaultArgs(cfg: StaticPodConfig, versions: VersionProfile): Arg[] {
  const { cluster, endpoint } = cfg;
  const pki = (file: string): string => path.posix.join(cluster.certificatesDir, file);
  const args: Arg[] = [
    { name: 'advertise-address', value: endpoint.advertiseAddress },
    ...(versions.controlPlane.apiserverInsecurePortFlag ? [{ name: 'insecure-port', value: '0' }] : []),
    { name: 'enable-admission-plugins', value: 'NodeRestriction' },
    { name: 'service-cluster-ip-range', value: cluster.networking.serviceSubnet },
    { name: 'service-account-key-file', value: pki('sa.pub') },
    { name: 'service-account-signing-key-file', value: pki('sa.key') },
    { name: 'service-account-issuer', value: `https://kubernetes.default.svc.${cluster.networking.dnsDomain}` },
    { name: 'client-ca-file', value: pki('ca.crt') },
    { name: 'tls-cert-file', value: pki('apiserver.crt') },
    { name: 'tls-private-key-file', value: pki('apiserver.key') },
    { name: 'kubelet-client-certificate', value: pki('apiserver-kubelet-client.crt') },
    { name: 'kubelet-client-key', value: pki('apiserver-kubelet-client.key') },
    { name: 'enable-bootstrap-token-auth', value: 'true' },
    { name: 'secure-port', value: String(endpoint.bindPort) },
    { name: 'allow-privileged', value: 'true' },
    { name: 'kubelet-preferred-address-types', value: 'InternalIP,ExternalIP,Hostname' },
    // Front proxy: added unconditionally, the certs phase always creates its client cert.
    { name: 'requestheader-username-headers', value: 'X-Remote-User' },
    { name: 'requestheader-group-headers', value: 'X-Remote-Group' },
    { name: 'requestheader-extra-headers-prefix', value: 'X-Remote-Extra-' },
    { name: 'requestheader-client-ca-file', value: pki('front-proxy-ca.crt') },
    { name: 'requestheader-allowed-names', value: 'front-proxy-client' },
    { name: 'proxy-client-cert-file', value: pki('front-proxy-client.crt') },
    { name: 'proxy-client-key-file', value: pki('front-proxy-client.key') },
    ...etcdArgs(cfg),
    ...dualStackFeatureGateArg(cluster, versions),
  ];
  return args;
}

function etcdArgs(cfg: StaticPodConfig): Arg[] {
  const { cluster, endpoint } = cfg;
  const etcd = cluster.etcd;
  if (etcd.mode === 'external') {
    return [
      { name: 'etcd-servers', value: etcd.endpoints.join(',') },
      ...(etcd.caFile ? [{ name: 'etcd-cafile', value: etcd.caFile }] : []),
      ...(etcd.certFile && etcd.keyFile ? [{ name: 'etcd-certfile', value: etcd.certFile }, { name: 'etcd-keyfile', value: etcd.keyFile }] : []),
    ];
  }
  // Local etcd listens on the loopback of the advertise address's family, unless the user
  // moved its client URL (then the apiserver follows that URL).
  const servers = argValue(etcd.extraArgs, 'advertise-client-urls')
    ?? `https://${joinHostPort(loopbackFor(endpoint.advertiseAddress), PORTS.etcdClient)}`;
  return [
    { name: 'etcd-servers', value: servers },
    { name: 'etcd-cafile', value: path.posix.join(cluster.certificatesDir, 'etcd/ca.crt') },
    { name: 'etcd-certfile', value: path.posix.join(cluster.certificatesDir, 'apiserver-etcd-client.crt') },
    { name: 'etcd-keyfile', value: path.posix.join(cluster.certificatesDir, 'apiserver-etcd-client.key') },
  ];
}

/**
 * The user's extraArgs with authorization-mode validated: kubeadm always sets it (Node,RBAC by
 * default), keeping only the modes the apiserver knows, unless an authorization config file is
 * used instead (structured authorization).
 */
function apiServerOverrides(cluster: ClusterConfiguration): Arg[] {
  const extra = cluster.apiServer.extraArgs;
  if (argValue(extra, 'authorization-config') !== undefined) return [...extra];
  const modes = authorizationModes(argValue(extra, 'authorization-mode')).modes;
  return [...extra.filter((a) => a.name !== 'authorization-mode'), { name: 'authorization-mode', value: modes }];
}

/** kubeadm's getAuthzModes: the modes to use and the warnings kubeadm prints about them. */
export function authorizationModes(requested: string | undefined): { modes: string; warnings: string[] } {
  const fallback = DEFAULT_AUTHZ_MODES.join(',');
  if (!requested) return { modes: fallback, warnings: [] };
  const warnings: string[] = [];
  const valid: string[] = [];
  for (const mode of requested.split(',')) {
    if (VALID_AUTHZ_MODES.has(mode)) valid.push(mode);
    else warnings.push(`ignoring unknown kube-apiserver authorization-mode "${mode}"`);
  }
  if (valid.length === 0) return { modes: fallback, warnings };
  const modes = valid.join(',');
  if (modes !== fallback) warnings.push(`the default kube-apiserver authorization-mode is "${fallback}"; using "${modes}"`);
  return { modes, warnings };
}

/** Warnings rendering the apiserver implies (logged once by the phase). */
export function apiServerWarnings(cluster: ClusterConfiguration): string[] {
  if (argValue(cluster.apiServer.extraArgs, 'authorization-config') !== undefined) return [];
  return authorizationModes(argValue(cluster.apiServer.extraArgs, 'authorization-mode')).warnings;
}
