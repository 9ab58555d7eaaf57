import { toKubeYaml } from '../../yaml/write.js';
import { NODE_BOOTSTRAP_TOKEN_GROUP } from '../../constants.js';
import { COMPONENT_CONFIG_HASH_ANNOTATION, configMapHash } from '../../kube/configmap-hash.js';
import type { ConfigMapObject, KubeObject } from '../../kube/types.js';
import type { VersionProfile } from '../../versions/table-types.js';
import { fullKubeProxyFields, kubeProxyTypesOf } from '../../versions/kube-proxy-config.js';
import { clusterRoleBinding, getNamed, group, role, roleBinding, serviceAccount } from '../../kube/rbac.js';

/** Pure builders of the kube-proxy addon (docs/kubeadm-reference.md §7.2; 1.20 objects as observed in kubeadm's dry-run). */
const KUBE_SYSTEM = 'kube-system';
const KUBE_PROXY = 'kube-proxy';
const CONFIG_KEY = 'config.conf';
const KUBECONFIG_KEY = 'kubeconfig.conf';
const KUBECONFIG_PATH = '/var/lib/kube-proxy/kubeconfig.conf';
/** The mode kubeadm 1.37 writes when the user left it empty (PR #139777). */
const KUBE_PROXY_DEFAULT_MODE = 'iptables';

export interface KubeProxyConfigInput {
  /** cfg.componentConfigs.kubeProxy: what the user wrote (may be empty). */
  readonly user: Readonly<Record<string, unknown>>;
  readonly podSubnet: string;
  readonly advertiseAddress: string;
  /** ClusterConfiguration featureGates (IPv6DualStack is forwarded while it is a gate). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  readonly versions: VersionProfile;
}

/**
 * kubeadm's kubeProxyConfig.Default: the user's KubeProxyConfiguration with kubeadm's values
 * filled in where the user left a field empty; a user value that differs from kubeadm's is kept
 * and reported (kubeadm's "overriding" warning). Everything else is left to kube-proxy's defaults,
 * but written out: kubeadm marshals the whole versioned struct, every field of the target minor's
 * types with its zero value (src/versions/kube-proxy-config.ts).
 */
export function kubeProxyConfiguration(i: KubeProxyConfigInput): { config: Record<string, unknown>; warnings: string[] } {
  const warnings: string[] = [];
  const { apiVersion: _a, kind: _k, ...user } = i.user as Record<string, unknown>;
  const config: Record<string, unknown> = { ...user };
  const warn = (field: string, userValue: unknown, ours: unknown): void => {
    warnings.push(`The recommended value for "${field}" in "KubeProxyConfiguration" is: ${String(ours)}; the provided value is: ${String(userValue)}`);
  };
  const defaultBind = i.advertiseAddress.includes(':') ? '::' : '0.0.0.0';
  if (!config.bindAddress) config.bindAddress = defaultBind;
  else if (config.bindAddress !== defaultBind) warn('bindAddress', config.bindAddress, defaultBind);
  if (!config.clusterCIDR && i.podSubnet) config.clusterCIDR = i.podSubnet;
  else if (i.podSubnet && config.clusterCIDR !== i.podSubnet) warn('clusterCIDR', config.clusterCIDR, i.podSubnet);
  const conn = { ...((config.clientConnection as Record<string, unknown> | undefined) ?? {}) };
  if (!conn.kubeconfig) conn.kubeconfig = KUBECONFIG_PATH;
  else if (conn.kubeconfig !== KUBECONFIG_PATH) warn('clientConnection.kubeconfig', conn.kubeconfig, KUBECONFIG_PATH);
  config.clientConnection = conn;
  // 1.37 (PR #139777): an empty or absent mode becomes "iptables", because kube-proxy 1.37 warns
  // when the mode is left unset (the default is to move to nftables). A mode the user chose is kept.
  if (i.versions.addons.kubeProxyDefaultModeIptables && !config.mode) config.mode = KUBE_PROXY_DEFAULT_MODE;
  const gates = { ...((config.featureGates as Record<string, boolean> | undefined) ?? {}) };
  const dualStack = i.featureGates.IPv6DualStack;
  if (i.versions.controlPlane.dualStackFeatureGate && dualStack !== undefined && !('IPv6DualStack' in gates)) gates.IPv6DualStack = dualStack;
  if (Object.keys(gates).length > 0) config.featureGates = gates;
  else delete config.featureGates;
  const full = fullKubeProxyFields(kubeProxyTypesOf(i.versions), config);
  return { config: { apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', ...full }, warnings };
}

/** The in-cluster kubeconfig kube-proxy pods use (service-account token, CA of the pod). */
function kubeProxyKubeconfig(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    '    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
    `    server: ${server}`,
    '  name: default',
    'contexts:',
    '- context:',
    '    cluster: default',
    '    namespace: default',
    '    user: default',
    '  name: default',
    'current-context: default',
    'users:',
    '- name: default',
    '  user:',
    '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token',
  ].join('\n');
}

/** Both values without a trailing newline, as kubeadm's `|-` template leaves them; signed unless user-supplied. */
export function kubeProxyConfigMap(config: Record<string, unknown>, server: string, sign: boolean): ConfigMapObject {
  const data = {
    [CONFIG_KEY]: toKubeYaml(config).replace(/\n$/, ''),
    [KUBECONFIG_KEY]: kubeProxyKubeconfig(server),
  };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: KUBE_PROXY,
      namespace: KUBE_SYSTEM,
      labels: { app: KUBE_PROXY },
      ...(sign ? { annotations: { [COMPONENT_CONFIG_HASH_ANNOTATION]: configMapHash(data) } } : {}),
    },
    data,
  };
}

/**
 * The ConfigMap as kubeadm's KubeProxyConfigMap19 template prints it with --print-manifest
 * (cmd/kubeadm/app/phases/addons/proxy/manifests.go, proxy.go): the template text filled in, the
 * marshalled configuration indented by PrintBytesWithLinePrefix (every line ends with a newline,
 * and the template adds one more), not signed. It starts with the template's leading newline:
 * kubeadm prints it right after a `---` without one.
 */
export function kubeProxyConfigMapTemplate(config: Record<string, unknown>, server: string): string {
  const configLines = toKubeYaml(config).replace(/\n$/, '').split('\n').map((l) => `    ${l}\n`).join('');
  const kubeconfigLines = kubeProxyKubeconfig(server).split('\n').map((l) => `    ${l}`).join('\n');
  return `
kind: ConfigMap
apiVersion: v1
metadata:
  name: ${KUBE_PROXY}
  namespace: kube-system
  labels:
    app: kube-proxy
data:
  ${KUBECONFIG_KEY}: |-
${kubeconfigLines}
  ${CONFIG_KEY}: |-
${configLines}
`;
}

/**
 * The DaemonSet as kubeadm's KubeProxyDaemonSet19 template prints it with --print-manifest: the
 * image filled in, nothing else (the environment's proxy variables are merged into the created
 * object only). The same object as kubeProxyDaemonSet(image, []), in the template's layout.
 */
export function kubeProxyDaemonSetTemplate(image: string): string {
  return `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  labels:
    k8s-app: kube-proxy
  name: ${KUBE_PROXY}
  namespace: kube-system
spec:
  selector:
    matchLabels:
      k8s-app: kube-proxy
  updateStrategy:
    type: RollingUpdate
  template:
    metadata:
      labels:
        k8s-app: kube-proxy
    spec:
      priorityClassName: system-node-critical
      containers:
      - name: kube-proxy
        image: ${image}
        imagePullPolicy: IfNotPresent
        command:
        - /usr/local/bin/kube-proxy
        - --config=/var/lib/kube-proxy/${CONFIG_KEY}
        - --hostname-override=$(NODE_NAME)
        securityContext:
          privileged: true
        volumeMounts:
        - mountPath: /var/lib/kube-proxy
          name: kube-proxy
        - mountPath: /run/xtables.lock
          name: xtables-lock
          readOnly: false
        - mountPath: /lib/modules
          name: lib-modules
          readOnly: true
        env:
          - name: NODE_NAME
            valueFrom:
              fieldRef:
                fieldPath: spec.nodeName
      hostNetwork: true
      serviceAccountName: kube-proxy
      volumes:
      - name: kube-proxy
        configMap:
          name: ${KUBE_PROXY}
      - name: xtables-lock
        hostPath:
          path: /run/xtables.lock
          type: FileOrCreate
      - name: lib-modules
        hostPath:
          path: /lib/modules
      tolerations:
      - key: CriticalAddonsOnly
        operator: Exists
      - operator: Exists
      nodeSelector:
        kubernetes.io/os: linux
`;
}

export interface EnvVar {
  readonly name: string;
  readonly value: string;
}

export function kubeProxyDaemonSet(image: string, proxyEnv: readonly EnvVar[]): KubeObject {
  const labels = { 'k8s-app': KUBE_PROXY };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: KUBE_PROXY, namespace: KUBE_SYSTEM, labels },
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: 'RollingUpdate' },
      template: {
        metadata: { labels },
        spec: {
          priorityClassName: 'system-node-critical',
          containers: [{
            name: KUBE_PROXY,
            image,
            imagePullPolicy: 'IfNotPresent',
            command: ['/usr/local/bin/kube-proxy', `--config=/var/lib/kube-proxy/${CONFIG_KEY}`, '--hostname-override=$(NODE_NAME)'],
            securityContext: { privileged: true },
            volumeMounts: [
              { mountPath: '/var/lib/kube-proxy', name: KUBE_PROXY },
              { mountPath: '/run/xtables.lock', name: 'xtables-lock' },
              { mountPath: '/lib/modules', name: 'lib-modules', readOnly: true },
            ],
            env: [
              { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
              ...proxyEnv.map((e) => ({ name: e.name, value: e.value })),
            ],
          }],
          hostNetwork: true,
          serviceAccountName: KUBE_PROXY,
          volumes: [
            { name: KUBE_PROXY, configMap: { name: KUBE_PROXY } },
            { name: 'xtables-lock', hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' } },
            { name: 'lib-modules', hostPath: { path: '/lib/modules' } },
          ],
          tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { operator: 'Exists' }],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
        },
      },
    },
  };
}

/** kube-proxy pods may read their ConfigMap during join; the SA gets system:node-proxier. */
export function kubeProxyRbac(): KubeObject[] {
  return [
    clusterRoleBinding('kubeadm:node-proxier', 'system:node-proxier', [serviceAccount(KUBE_PROXY, KUBE_SYSTEM)]),
    role(KUBE_PROXY, KUBE_SYSTEM, [getNamed('configmaps', [KUBE_PROXY])]),
    roleBinding(KUBE_PROXY, KUBE_SYSTEM, KUBE_PROXY, [group(NODE_BOOTSTRAP_TOKEN_GROUP)]),
  ];
}

export function kubeProxyServiceAccount(): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: KUBE_PROXY, namespace: KUBE_SYSTEM } };
}

/** kubeadm's GetProxyEnvVars: non-empty *_proxy variables of kubeadm's own environment, in order. */
export function proxyEnvVars(env: Readonly<Record<string, string | undefined>>): EnvVar[] {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[0].toLowerCase().endsWith('_proxy') && Boolean(e[1]))
    .map(([name, value]) => ({ name, value }));
}
