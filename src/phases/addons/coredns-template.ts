import { corefile, type CorednsInput } from './coredns-render.js';

/**
 * The text of kubeadm's CoreDNS templates (cmd/kubeadm/app/phases/addons/dns/manifests.go), filled
 * in as its coreDNSAddon fills them, in the order it prints them with --print-manifest (dns.go:
 * `---` and the Deployment, ConfigMap, Service, ClusterRole, ClusterRoleBinding and ServiceAccount,
 * each template starting with its own newline). What `init phase addon coredns --print-manifest`
 * prints; the objects tsadm creates are built by coredns-render.ts and parse from this text
 * (test/unit/phases/addons/coredns-template.test.ts).
 *
 * Source: manifests.go as stored at kubernetes/kubernetes 008b3652959c (the newest version read:
 * named probe ports, so 1.33 or later), whose filled text is exactly the expected output of
 * dns_test.go's TestCoreDNSAddon and TestEnsureDNSAddon "print Manifest" cases at 898b9f800267
 * (the 1.36 cycle): test/fixtures/coredns/README.md. UNSURE for 1.35 and 1.37: no revision tied to
 * either was readable; their text is the 1.36-cycle one (docs/kubernetes-1.35-1.38.md records no
 * 1.35–1.37 change to the DNS manifests besides the image). UNSURE below 1.33: the older templates were
 * not read at a release revision; the text is the newest one with the minor's row facts swapped in
 * (each fact sourced in src/versions/table.ts), the layout of the parts they replace taken from
 * older stored versions. kubeadm itself prints the templates only from 1.25 (PR #109995 added
 * --print-manifest); tsadm prints them for every minor.
 */
export function corednsTemplates(i: CorednsInput): [deployment: string, ...others: string[]] {
  return [deploymentText(i), configMapText(i), serviceText(i), clusterRoleText(i), CLUSTER_ROLE_BINDING, SERVICE_ACCOUNT];
}

const ANTI_AFFINITY = `      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchExpressions:
                - key: k8s-app
                  operator: In
                  values: ["kube-dns"]
              topologyKey: kubernetes.io/hostname
`;

const NAMED_PROBE_PORTS = `        - containerPort: 8080
          name: liveness-probe
          protocol: TCP
        - containerPort: 8181
          name: readiness-probe
          protocol: TCP
`;

/** CoreDNSDeployment with DeploymentName, Image, ControlPlaneTaintKey and Replicas filled in. */
function deploymentText(i: CorednsInput): string {
  const a = i.versions.addons;
  const named = a.corednsNamedProbePorts;
  // 1.20–1.25 carried a second toleration for the old taint (kubeadm's OldControlPlaneTaintKey).
  const master = a.corednsMasterToleration ? '      - key: node-role.kubernetes.io/master\n        effect: NoSchedule\n' : '';
  return `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: coredns
  namespace: kube-system
  labels:
    k8s-app: kube-dns
spec:
  replicas: ${i.replicas}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
  selector:
    matchLabels:
      k8s-app: kube-dns
  template:
    metadata:
      labels:
        k8s-app: kube-dns
    spec:
      priorityClassName: system-cluster-critical
      serviceAccountName: coredns
${a.corednsAntiAffinity ? ANTI_AFFINITY : ''}      tolerations:
      - key: CriticalAddonsOnly
        operator: Exists
${master}      - key: node-role.kubernetes.io/control-plane
        effect: NoSchedule
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: coredns
        image: ${i.image}
        imagePullPolicy: IfNotPresent
        resources:
          limits:
            memory: 170Mi
          requests:
            cpu: 100m
            memory: 70Mi
        args: [ "-conf", "/etc/coredns/Corefile" ]
        volumeMounts:
        - name: config-volume
          mountPath: /etc/coredns
          readOnly: true
        ports:
        - containerPort: 53
          name: dns
          protocol: UDP
        - containerPort: 53
          name: dns-tcp
          protocol: TCP
        - containerPort: 9153
          name: metrics
          protocol: TCP
${named ? NAMED_PROBE_PORTS : ''}        livenessProbe:
          httpGet:
            path: /health
            port: ${named ? 'liveness-probe' : '8080'}
            scheme: HTTP
          initialDelaySeconds: 60
          timeoutSeconds: 5
          successThreshold: 1
          failureThreshold: 5
        readinessProbe:
          httpGet:
            path: /ready
            port: ${named ? 'readiness-probe' : '8181'}
            scheme: HTTP
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            add:
            - NET_BIND_SERVICE
            drop:
            - ${a.corednsDropAllUpper ? 'ALL' : 'all'}
          readOnlyRootFilesystem: true
      dnsPolicy: Default
      volumes:
        - name: config-volume
          configMap:
            name: coredns
            items:
            - key: Corefile
              path: Corefile
`;
}

/**
 * CoreDNSConfigMap with DNSDomain filled in: the Corefile is the literal block of the template,
 * every line indented by four more spaces than in the value (the same Corefile the created
 * ConfigMap carries, from corefile()).
 */
function configMapText(i: CorednsInput): string {
  // The cache exclusion sits in the template's `{{- if .DNSDomain }}` block: an empty domain (only
  // in kubeadm's own tests; defaulting always sets one) leaves `cache 30` alone.
  const disableCache = i.versions.addons.corednsCacheDisableClusterDomain && i.dnsDomain !== '';
  const body = corefile(i.dnsDomain, disableCache).replace(/\n$/, '').split('\n').map((l) => `    ${l}\n`).join('');
  return `
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
${body}`;
}

/**
 * CoreDNSService with DNSIP filled in. Its resourceVersion "0" is in kubeadm's text (and in the
 * object it decodes from it); the API server ignores "0" on create, so tsadm's created Service has none.
 */
function serviceText(i: CorednsInput): string {
  return `
apiVersion: v1
kind: Service
metadata:
  labels:
    k8s-app: kube-dns
    kubernetes.io/cluster-service: "true"
    kubernetes.io/name: "${i.versions.addons.corednsServiceLabel}"
  name: kube-dns
  namespace: kube-system
  annotations:
    prometheus.io/port: "9153"
    prometheus.io/scrape: "true"
  # Without this resourceVersion value, an update of the Service between versions will yield:
  #   Service "kube-dns" is invalid: metadata.resourceVersion: Invalid value: "": must be specified for an update
  resourceVersion: "0"
spec:
  clusterIP: ${i.dnsIp}
  ports:
  - name: dns
    port: 53
    protocol: UDP
    targetPort: 53
  - name: dns-tcp
    port: 53
    protocol: TCP
    targetPort: 53
  - name: metrics
    port: 9153
    protocol: TCP
    targetPort: 9153
  selector:
    k8s-app: kube-dns
`;
}

/** CoreDNSClusterRole (no placeholder): the rules of the minor, `nodes: get` up to 1.27 (PR #117521). */
function clusterRoleText(i: CorednsInput): string {
  const a = i.versions.addons;
  const nodes = a.corednsNodesGet ? '- apiGroups:\n  - ""\n  resources:\n  - nodes\n  verbs:\n  - get\n' : '';
  const slices = a.corednsEndpointSlices ? '- apiGroups:\n  - discovery.k8s.io\n  resources:\n  - endpointslices\n  verbs:\n  - list\n  - watch\n' : '';
  return `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:coredns
rules:
- apiGroups:
  - ""
  resources:
  - endpoints
  - services
  - pods
  - namespaces
  verbs:
  - list
  - watch
${nodes}${slices}`;
}

const CLUSTER_ROLE_BINDING = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:coredns
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:coredns
subjects:
- kind: ServiceAccount
  name: coredns
  namespace: kube-system
`;

const SERVICE_ACCOUNT = `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: coredns
  namespace: kube-system
`;
