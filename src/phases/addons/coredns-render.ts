import type { ConfigMapObject, KubeObject } from '../../kube/types.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { clusterRole, clusterRoleBinding, serviceAccount } from '../../kube/rbac.js';
import { KUBE_SYSTEM } from '../../constants.js';

/** Pure builders of the CoreDNS addon (docs/kubeadm-reference.md §7.1; 1.20 objects as observed in kubeadm's dry-run). */
export const COREDNS = 'coredns';
const DNS_SERVICE = 'kube-dns';
export const DNS_LABELS = { 'k8s-app': 'kube-dns' } as const;
export const DEFAULT_COREDNS_REPLICAS = 2;

export interface CorednsInput {
  readonly versions: VersionProfile;
  readonly image: string;
  readonly dnsDomain: string;
  readonly dnsIp: string;
  /** Replicas of a deployment already running (kubeadm keeps them), else 2. */
  readonly replicas: number;
}

export function corefile(dnsDomain: string, disableClusterDomainCache: boolean): string {
  const cache = disableClusterDomainCache
    ? `    cache 30 {\n       disable success ${dnsDomain}\n       disable denial ${dnsDomain}\n    }\n`
    : '    cache 30\n';
  return '.:53 {\n'
    + '    errors\n'
    + '    health {\n       lameduck 5s\n    }\n'
    + '    ready\n'
    + `    kubernetes ${dnsDomain} in-addr.arpa ip6.arpa {\n       pods insecure\n       fallthrough in-addr.arpa ip6.arpa\n       ttl 30\n    }\n`
    + '    prometheus :9153\n'
    + '    forward . /etc/resolv.conf {\n       max_concurrent 1000\n    }\n'
    + cache
    + '    loop\n'
    + '    reload\n'
    + '    loadbalance\n'
    + '}\n';
}

/**
 * Whether a Corefile is one kubeadm itself wrote (any minor's variant, any cluster domain):
 * replacing it loses no user edit. kubeadm's CoreDNS migration makes the same distinction.
 */
export function isDefaultCorefile(text: string): boolean {
  const domain = /^ {4}kubernetes (\S+) in-addr\.arpa ip6\.arpa \{$/m.exec(text)?.[1];
  return domain !== undefined && (text === corefile(domain, false) || text === corefile(domain, true));
}

export function corednsConfigMap(i: CorednsInput): ConfigMapObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: COREDNS, namespace: KUBE_SYSTEM },
    data: { Corefile: corefile(i.dnsDomain, i.versions.addons.corednsCacheDisableClusterDomain) },
  };
}

function corednsClusterRole(versions: VersionProfile): KubeObject {
  return clusterRole('system:coredns', [
    { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
    ...(versions.addons.corednsNodesGet ? [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] : []),
    ...(versions.addons.corednsEndpointSlices ? [{ apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] }] : []),
  ]);
}

export function corednsDeployment(i: CorednsInput): KubeObject {
  const a = i.versions.addons;
  const probePort = (named: string, port: number): string | number => (a.corednsNamedProbePorts ? named : port);
  const tolerations: object[] = [{ key: 'CriticalAddonsOnly', operator: 'Exists' }];
  if (a.corednsMasterToleration) tolerations.push({ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' });
  tolerations.push({ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' });
  const ports: object[] = [
    { containerPort: 53, name: 'dns', protocol: 'UDP' },
    { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
    { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
  ];
  if (a.corednsNamedProbePorts) {
    ports.push({ containerPort: 8080, name: 'liveness-probe', protocol: 'TCP' }, { containerPort: 8181, name: 'readiness-probe', protocol: 'TCP' });
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: COREDNS, namespace: KUBE_SYSTEM, labels: { ...DNS_LABELS } },
    spec: {
      replicas: i.replicas,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      selector: { matchLabels: { ...DNS_LABELS } },
      template: {
        metadata: { labels: { ...DNS_LABELS } },
        spec: {
          priorityClassName: 'system-cluster-critical',
          serviceAccountName: COREDNS,
          ...(a.corednsAntiAffinity
            ? {
                affinity: {
                  podAntiAffinity: {
                    preferredDuringSchedulingIgnoredDuringExecution: [{
                      weight: 100,
                      podAffinityTerm: {
                        labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] },
                        topologyKey: 'kubernetes.io/hostname',
                      },
                    }],
                  },
                },
              }
            : {}),
          tolerations,
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [{
            name: COREDNS,
            image: i.image,
            imagePullPolicy: 'IfNotPresent',
            resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
            args: ['-conf', '/etc/coredns/Corefile'],
            volumeMounts: [{ name: 'config-volume', mountPath: '/etc/coredns', readOnly: true }],
            ports,
            livenessProbe: {
              httpGet: { path: '/health', port: probePort('liveness-probe', 8080), scheme: 'HTTP' },
              initialDelaySeconds: 60,
              timeoutSeconds: 5,
              successThreshold: 1,
              failureThreshold: 5,
            },
            readinessProbe: { httpGet: { path: '/ready', port: probePort('readiness-probe', 8181), scheme: 'HTTP' } },
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { add: ['NET_BIND_SERVICE'], drop: [a.corednsDropAllUpper ? 'ALL' : 'all'] },
              readOnlyRootFilesystem: true,
            },
          }],
          dnsPolicy: 'Default',
          volumes: [{ name: 'config-volume', configMap: { name: COREDNS, items: [{ key: 'Corefile', path: 'Corefile' }] } }],
        },
      },
    },
  };
}

export function dnsService(i: CorednsInput): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: DNS_SERVICE,
      namespace: KUBE_SYSTEM,
      labels: { ...DNS_LABELS, 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': i.versions.addons.corednsServiceLabel },
      annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
    },
    spec: {
      clusterIP: i.dnsIp,
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
      ],
      selector: { ...DNS_LABELS },
    },
  };
}

/** All CoreDNS objects in kubeadm's creation order. */
export function corednsObjects(i: CorednsInput): KubeObject[] {
  return [
    corednsConfigMap(i),
    corednsClusterRole(i.versions),
    clusterRoleBinding('system:coredns', 'system:coredns', [serviceAccount(COREDNS, KUBE_SYSTEM)]),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: COREDNS, namespace: KUBE_SYSTEM } },
    corednsDeployment(i),
    dnsService(i),
  ];
}
