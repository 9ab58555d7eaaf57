/**
 * The resolved configurations of the golden scenarios in test/fixtures/manifests/v1.20.2/*:
 * each mirrors that scenario's root/cfg.yaml after kubeadm's defaulting, so tsadm's renderers
 * can be compared byte-for-byte with what kubeadm v1.20.2 wrote for the same input.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClusterConfiguration, ResolvedInitConfig } from '../../../src/config/types.js';
import type { HostFacts, StaticPodConfig } from '../../../src/manifest/inputs.js';
import { staticPodConfigFromInit } from '../../../src/manifest/inputs.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

export const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/manifests/v1.20.2');

export function golden(scenario: string, file: string): string {
  return readFileSync(path.join(GOLDEN_DIR, scenario, file), 'utf8');
}

export interface Scenario {
  readonly name: string;
  readonly cfg: ResolvedInitConfig;
  readonly facts: HostFacts;
  readonly components: readonly string[];
}

const none: HostFacts = { existingHostDirs: new Set(), proxyEnv: [], externalCA: false };

function withCluster(base: ResolvedInitConfig, cluster: Partial<ClusterConfiguration>): ResolvedInitConfig {
  return { ...base, cluster: { ...base.cluster, ...cluster } };
}

const ALL = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

function fullConfig(): ResolvedInitConfig {
  const base = fixtureInitConfig({
    init: {
      localAPIEndpoint: { advertiseAddress: '10.250.0.2', bindPort: 6444 },
      nodeRegistration: { ...fixtureInitConfig().init.nodeRegistration, name: 'cp-full' },
    },
  });
  const b = base.cluster;
  return withCluster(base, {
    clusterName: 'prod-cluster',
    imageRepository: 'registry.local/k8s',
    featureGates: { IPv6DualStack: false },
    networking: { serviceSubnet: '10.112.0.0/12', podSubnet: '10.244.0.0/16', dnsDomain: 'corp.local' },
    apiServer: {
      ...b.apiServer,
      timeoutForControlPlaneMs: 150_000,
      extraArgs: [
        { name: 'authorization-mode', value: 'Node,RBAC,Webhook' },
        { name: 'audit-log-path', value: '/var/log/kubernetes/audit.log' },
        { name: 'service-node-port-range', value: '20000-22767' },
        { name: 'cors-allowed-origins', value: 'https://console.example.com,https://console-two.example.com,https://three.example.com with spaces to wrap' },
        { name: 'event-ttl', value: '1h0m0s' },
      ],
      extraVolumes: [
        { name: 'audit', hostPath: '/var/log/kubernetes', mountPath: '/var/log/kubernetes', readOnly: false, pathType: 'DirectoryOrCreate' },
        { name: 'a-policy', hostPath: '/etc/kubernetes/audit-policy.yaml', mountPath: '/etc/kubernetes/audit-policy.yaml', readOnly: true, pathType: 'File' },
      ],
    },
    controllerManager: {
      ...b.controllerManager,
      extraArgs: [
        { name: 'bind-address', value: '0.0.0.0' },
        { name: 'flex-volume-plugin-dir', value: '/opt/flex' },
        { name: 'node-cidr-mask-size', value: '24' },
      ],
    },
    scheduler: {
      ...b.scheduler,
      extraArgs: [{ name: 'bind-address', value: '10.250.0.2' }, { name: 'v', value: '2' }],
      extraVolumes: [{ name: 'kubeconfig', hostPath: '/etc/kubernetes/sched-custom.conf', mountPath: '/etc/kubernetes/scheduler.conf', readOnly: true, pathType: 'File' }],
    },
    etcd: {
      mode: 'local',
      imageRepository: 'registry.local/etcd',
      imageTag: '3.4.13-0',
      dataDir: '/data/etcd',
      extraArgs: [
        { name: 'listen-metrics-urls', value: 'http://127.0.0.1:2382,http://10.250.0.2:2382' },
        { name: 'advertise-client-urls', value: 'https://10.250.0.2:2379' },
        { name: 'election-timeout', value: '5000' },
      ],
      extraEnvs: [],
      serverCertSANs: [],
      peerCertSANs: [],
    },
  });
}

function ipv6Config(): ResolvedInitConfig {
  const base = fixtureInitConfig({
    init: {
      localAPIEndpoint: { advertiseAddress: 'fd00:10::11', bindPort: 6443 },
      nodeRegistration: { ...fixtureInitConfig().init.nodeRegistration, name: 'cp6' },
    },
  });
  return withCluster(base, { networking: { serviceSubnet: 'fd00:96::/108', podSubnet: 'fd00:244::/56', dnsDomain: 'cluster.local' } });
}

function externalEtcdConfig(): ResolvedInitConfig {
  return withCluster(fixtureInitConfig(), {
    etcd: {
      mode: 'external',
      endpoints: ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'],
      caFile: '/etc/etcd/pki/ca.crt',
      certFile: '/etc/etcd/pki/client/apiserver.crt',
      keyFile: '/srv/keys/apiserver.key',
    },
  });
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'default', cfg: fixtureInitConfig(), facts: none, components: ALL },
  {
    name: 'full',
    cfg: fullConfig(),
    facts: {
      existingHostDirs: new Set(['/etc/pki', '/usr/share/ca-certificates']),
      proxyEnv: [{ name: 'HTTP_PROXY', value: 'http://proxy.local:3128' }, { name: 'no_proxy', value: 'localhost,10.0.0.0/8' }],
      externalCA: true,
    },
    components: ALL,
  },
  { name: 'ipv6', cfg: ipv6Config(), facts: none, components: ALL },
  {
    name: 'external-etcd',
    cfg: externalEtcdConfig(),
    facts: { ...none, existingHostDirs: new Set(['/etc/ca-certificates']) },
    components: ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'],
  },
];

export function podConfig(s: Scenario): StaticPodConfig {
  return staticPodConfigFromInit(s.cfg);
}
