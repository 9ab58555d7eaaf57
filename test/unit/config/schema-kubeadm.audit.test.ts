/**
 * Nothing in a kubeadm config file is silently ignored (issue 16, item 7): every field of every
 * kind and API version in the schema (src/config/schema-kubeadm.ts) is either read by code outside
 * src/config (the file named here contains the named expression), refused with a message naming it
 * (the refusal text is in the named file), or listed as having no use in that command (kubeadm's
 * own reading of it there is nothing either) or as owned by another piece of work. A new schema
 * field without an entry, or an entry whose reader disappeared, fails this test.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KUBEADM_SCHEMAS } from '../../../src/config/schema-kubeadm.js';
import type { Schema } from '../../../src/config/schema.js';

type Entry =
  /** Read: `file` (from the repository root) contains `needle`. */
  | { readonly read: string; readonly needle: string }
  /** Refused (or a value of it refused) with a message in `file` containing `needle`. */
  | { readonly refused: string; readonly needle: string }
  /** Type metadata: decides how the document is read. */
  | { readonly typeMeta: true }
  /** kubeadm has no use for it in this command either (said why); tsadm warns where `warned`. */
  | { readonly noUse: string; readonly warned?: { readonly file: string; readonly needle: string } }
  /** Known and not done: said why (listed in the last test, so a new one cannot slip in). */
  | { readonly gap: string };

const r = (file: string, needle: string): Entry => ({ read: file, needle });
const META: Entry = { typeMeta: true };

const COMPONENT = (c: string): Record<string, Entry> => ({
  [`ClusterConfiguration.${c}.extraArgs`]: r('src/manifest/args.ts', 'extraArgs'),
  [`ClusterConfiguration.${c}.extraArgs.name`]: r('src/manifest/args.ts', 'extraArgs'),
  [`ClusterConfiguration.${c}.extraArgs.value`]: r('src/manifest/args.ts', 'extraArgs'),
  [`ClusterConfiguration.${c}.extraEnvs.name`]: r('src/manifest/env.ts', 'extraEnvs'),
  [`ClusterConfiguration.${c}.extraEnvs.value`]: r('src/manifest/env.ts', 'extraEnvs'),
  [`ClusterConfiguration.${c}.extraEnvs.valueFrom`]: { refused: 'src/config/defaults-cluster.ts', needle: 'valueFrom: not supported by tsadm' },
  [`ClusterConfiguration.${c}.extraVolumes.hostPath`]: r('src/manifest/static-pod.ts', 'hostPath'),
  [`ClusterConfiguration.${c}.extraVolumes.mountPath`]: r('src/manifest/static-pod.ts', 'mountPath'),
  [`ClusterConfiguration.${c}.extraVolumes.name`]: r('src/manifest/static-pod.ts', 'extraVolumes'),
  [`ClusterConfiguration.${c}.extraVolumes.pathType`]: r('src/manifest/static-pod.ts', 'pathType'),
  [`ClusterConfiguration.${c}.extraVolumes.readOnly`]: r('src/manifest/static-pod.ts', 'readOnly'),
});

const NODE_REGISTRATION = (kind: string, file: string): Record<string, Entry> => ({
  [`${kind}.nodeRegistration.name`]: r('src/manifest/inputs.ts', 'nodeRegistration.name'),
  [`${kind}.nodeRegistration.criSocket`]: r('src/phases/kubelet/flags-env.ts', 'criSocket'),
  [`${kind}.nodeRegistration.ignorePreflightErrors`]: r(file, 'ignorePreflightErrors'),
  [`${kind}.nodeRegistration.imagePullPolicy`]: r('src/phases/preflight/pull-images.ts', 'nr.imagePullPolicy'),
  [`${kind}.nodeRegistration.imagePullSerial`]: r('src/phases/preflight/pull-images.ts', 'nr.imagePullSerial'),
  [`${kind}.nodeRegistration.kubeletExtraArgs`]: r('src/phases/kubelet/flags-env.ts', 'kubeletExtraArgs'),
  [`${kind}.nodeRegistration.kubeletExtraArgs.name`]: r('src/phases/kubelet/flags-env.ts', 'kubeletExtraArgs'),
  [`${kind}.nodeRegistration.kubeletExtraArgs.value`]: r('src/phases/kubelet/flags-env.ts', 'kubeletExtraArgs'),
  [`${kind}.nodeRegistration.taints.effect`]: r('src/phases/cluster/mark-control-plane.ts', 'taints'),
  [`${kind}.nodeRegistration.taints.key`]: r('src/phases/cluster/mark-control-plane.ts', 'taints'),
  [`${kind}.nodeRegistration.taints.value`]: r('src/phases/cluster/mark-control-plane.ts', 'taints'),
  [`${kind}.nodeRegistration.taints.timeAdded`]: r('src/phases/cluster/mark-control-plane.ts', 'timeAdded'),
});

/** Warned about (when set to a value other than kubeadm's default) by unusedTimeoutWarnings. */
const WARNED = (why: string): Entry => ({ noUse: why, warned: { file: 'src/config/defaults.ts', needle: "does not use it either); remove it to silence this warning" } });

const TIMEOUTS = (kind: string, read: Partial<Record<string, Entry>>): Record<string, Entry> => {
  const names = ['controlPlaneComponentHealthCheck', 'kubeletHealthCheck', 'kubernetesAPICall', 'etcdAPICall', 'tlsBootstrap', 'discovery', 'upgradeManifests'];
  return Object.fromEntries(names.map((n) => {
    const given = read[n];
    if (given) return [`${kind}.timeouts.${n}`, given];
    throw new Error(`no audit entry for ${kind}.timeouts.${n}`);
  }));
};

const AUDIT: Readonly<Record<string, Entry>> = {
  'ClusterConfiguration.apiVersion': META,
  'ClusterConfiguration.kind': META,
  'ClusterConfiguration.apiServer.certSANs': r('src/certs/alt-names.ts', 'certSANs'),
  'ClusterConfiguration.apiServer.timeoutForControlPlane': r('src/phases/kubelet/wait.ts', 'controlPlaneComponentHealthCheckMs'),
  ...COMPONENT('apiServer'),
  ...COMPONENT('controllerManager'),
  ...COMPONENT('scheduler'),
  'ClusterConfiguration.caCertificateValidityPeriod': r('src/certs/validity.ts', 'caCertificateValidityMs'),
  'ClusterConfiguration.certificateValidityPeriod': r('src/certs/validity.ts', 'certificateValidityMs'),
  'ClusterConfiguration.certificatesDir': r('src/manifest/etcd.ts', 'certificatesDir'),
  'ClusterConfiguration.clusterName': r('src/manifest/controller-manager.ts', 'clusterName'),
  'ClusterConfiguration.controlPlaneEndpoint': r('src/config/endpoint.ts', 'controlPlaneEndpoint'),
  'ClusterConfiguration.dns.disabled': r('src/phases/addons/addon-phase.ts', 'dns.disabled'),
  'ClusterConfiguration.dns.imageRepository': r('src/phases/addons/images.ts', 'imageRepository'),
  'ClusterConfiguration.dns.imageTag': r('src/phases/addons/images.ts', 'dns.imageTag'),
  'ClusterConfiguration.dns.type': { refused: 'src/config/upconvert.ts', needle: 'tsadm deploys CoreDNS only' },
  'ClusterConfiguration.encryptionAlgorithm': r('src/kubeconfig/ensure.ts', 'encryptionAlgorithm'),
  'ClusterConfiguration.etcd.external.caFile': r('src/manifest/apiserver.ts', 'caFile'),
  'ClusterConfiguration.etcd.external.certFile': r('src/manifest/apiserver.ts', 'certFile'),
  'ClusterConfiguration.etcd.external.endpoints': r('src/manifest/apiserver.ts', 'endpoints'),
  'ClusterConfiguration.etcd.external.keyFile': r('src/manifest/apiserver.ts', 'keyFile'),
  // kubeadm 1.35+ (PR #134890) reads it in the ExternalEtcdVersion preflight check only (its HTTP
  // /version requests; kube-apiserver keeps `endpoints`); the loader validates it and
  // src/config/serialize.ts stores it in kubeadm-config.
  'ClusterConfiguration.etcd.external.httpEndpoints': { gap: "tsadm's preflight has no ExternalEtcdVersion check yet, the one kubeadm reader of the field (issue 26, preflight work)" },
  'ClusterConfiguration.etcd.local.dataDir': r('src/manifest/etcd.ts', 'dataDir'),
  'ClusterConfiguration.etcd.local.extraArgs': r('src/manifest/etcd.ts', 'extraArgs'),
  'ClusterConfiguration.etcd.local.extraArgs.name': r('src/manifest/etcd.ts', 'extraArgs'),
  'ClusterConfiguration.etcd.local.extraArgs.value': r('src/manifest/etcd.ts', 'extraArgs'),
  'ClusterConfiguration.etcd.local.extraEnvs.name': r('src/manifest/etcd.ts', 'extraEnvs'),
  'ClusterConfiguration.etcd.local.extraEnvs.value': r('src/manifest/etcd.ts', 'extraEnvs'),
  'ClusterConfiguration.etcd.local.extraEnvs.valueFrom': { refused: 'src/config/defaults-cluster.ts', needle: 'valueFrom: not supported by tsadm' },
  'ClusterConfiguration.etcd.local.imageRepository': r('src/manifest/etcd.ts', 'imageRepository'),
  'ClusterConfiguration.etcd.local.imageTag': r('src/manifest/etcd.ts', 'etcd.imageTag'),
  'ClusterConfiguration.etcd.local.peerCertSANs': r('src/certs/alt-names.ts', 'peerCertSANs'),
  'ClusterConfiguration.etcd.local.serverCertSANs': r('src/certs/alt-names.ts', 'serverCertSANs'),
  'ClusterConfiguration.featureGates': r('src/phases/kubelet/config.ts', 'featureGates'),
  'ClusterConfiguration.imageRepository': r('src/manifest/inputs.ts', 'imageRepository'),
  'ClusterConfiguration.kubernetesVersion': r('src/phases/preflight/phase.ts', 'kubernetesVersion'),
  'ClusterConfiguration.networking.dnsDomain': r('src/phases/kubelet/config.ts', 'dnsDomain'),
  'ClusterConfiguration.networking.podSubnet': r('src/phases/preflight/phase.ts', 'podSubnet'),
  'ClusterConfiguration.networking.serviceSubnet': r('src/phases/kubelet/config.ts', 'serviceSubnet'),
  'ClusterConfiguration.proxy.disabled': r('src/phases/addons/addon-phase.ts', 'proxy.disabled'),
  'ClusterConfiguration.useHyperKubeImage': { noUse: 'no hyperkube images are published for the minors tsadm targets', warned: { file: 'src/config/upconvert.ts', needle: 'useHyperKubeImage is ignored' } },
  'ClusterStatus.apiVersion': META,
  'ClusterStatus.kind': META,
  'ClusterStatus.apiEndpoints': r('src/stored-config/cluster-status.ts', 'apiEndpoints'),

  'InitConfiguration.apiVersion': META,
  'InitConfiguration.kind': META,
  'InitConfiguration.bootstrapTokens.description': r('src/token/secret.ts', 'description'),
  'InitConfiguration.bootstrapTokens.expires': r('src/token/secret.ts', 'expires'),
  'InitConfiguration.bootstrapTokens.groups': r('src/token/secret.ts', 'groups'),
  'InitConfiguration.bootstrapTokens.token': r('src/token/secret.ts', 'bt.token'),
  'InitConfiguration.bootstrapTokens.ttl': r('src/token/secret.ts', 'ttlMs'),
  'InitConfiguration.bootstrapTokens.usages': r('src/token/secret.ts', 'usages'),
  'InitConfiguration.certificateKey': r('src/phases/cluster/show-join-command.ts', 'certificateKey'),
  'InitConfiguration.dryRun': r('src/run/runtime.ts', 'dryRun'),
  'InitConfiguration.localAPIEndpoint.advertiseAddress': r('src/manifest/inputs.ts', 'localAPIEndpoint'),
  'InitConfiguration.localAPIEndpoint.bindPort': r('src/phases/preflight/phase.ts', 'bindPort'),
  ...NODE_REGISTRATION('InitConfiguration', 'src/phases/preflight/phase.ts'),
  'InitConfiguration.patches.directory': r('src/phases/kubelet/start.ts', 'patches?.directory'),
  'InitConfiguration.skipPhases': r('src/workflows/init.ts', 'init.skipPhases'),
  ...TIMEOUTS('InitConfiguration', {
    controlPlaneComponentHealthCheck: r('src/phases/kubelet/wait.ts', 'controlPlaneComponentHealthCheckMs'),
    kubeletHealthCheck: r('src/phases/kubelet/wait.ts', 'kubeletHealthCheckMs'),
    kubernetesAPICall: r('src/phases/cluster/api.ts', 'kubernetesAPICallMs'),
    tlsBootstrap: WARNED('init does no TLS bootstrap'),
    discovery: WARNED('init does no discovery'),
    upgradeManifests: WARNED('init upgrades no manifest'),
    etcdAPICall: WARNED('init makes no etcd call'),
  }),

  'JoinConfiguration.apiVersion': META,
  'JoinConfiguration.kind': META,
  'JoinConfiguration.caCertPath': r('src/phases/join/kubelet-start.ts', 'caCertPath'),
  'JoinConfiguration.controlPlane.certificateKey': r('src/phases/join/control-plane-prepare.ts', 'certificateKey'),
  'JoinConfiguration.controlPlane.localAPIEndpoint.advertiseAddress': r('src/stored-config/cluster-config.ts', 'localAPIEndpoint'),
  'JoinConfiguration.controlPlane.localAPIEndpoint.bindPort': r('src/stored-config/cluster-config.ts', 'localAPIEndpoint'),
  'JoinConfiguration.discovery.bootstrapToken.apiServerEndpoint': r('src/discovery/discover.ts', 'apiServerEndpoint'),
  'JoinConfiguration.discovery.bootstrapToken.caCertHashes': r('src/discovery/discover.ts', 'caCertHashes'),
  'JoinConfiguration.discovery.bootstrapToken.token': r('src/discovery/discover.ts', 'token'),
  'JoinConfiguration.discovery.bootstrapToken.unsafeSkipCAVerification': r('src/discovery/discover.ts', 'unsafeSkipCAVerification'),
  'JoinConfiguration.discovery.file.kubeConfigPath': r('src/discovery/discover.ts', 'kubeConfigPath'),
  'JoinConfiguration.discovery.timeout': r('src/discovery/discover.ts', 'timeoutMs'),
  'JoinConfiguration.discovery.tlsBootstrapToken': r('src/discovery/discover.ts', 'tlsBootstrapToken'),
  'JoinConfiguration.dryRun': r('src/run/runtime.ts', 'dryRun'),
  ...NODE_REGISTRATION('JoinConfiguration', 'src/phases/join/preflight.ts'),
  'JoinConfiguration.patches.directory': r('src/phases/join/kubelet-start.ts', 'patches'),
  'JoinConfiguration.skipPhases': r('src/workflows/join.ts', 'join.skipPhases'),
  ...TIMEOUTS('JoinConfiguration', {
    controlPlaneComponentHealthCheck: r('src/stored-config/cluster-config.ts', 'timeouts: join.timeouts'),
    kubeletHealthCheck: r('src/stored-config/cluster-config.ts', 'timeouts: join.timeouts'),
    kubernetesAPICall: r('src/stored-config/cluster-config.ts', 'timeouts: join.timeouts'),
    etcdAPICall: r('src/phases/join/etcd-endpoints.ts', 'timeouts.etcdAPICallMs'),
    tlsBootstrap: r('src/phases/join/kubelet-start.ts', 'tlsBootstrapMs'),
    discovery: r('src/discovery/discover.ts', 'timeoutMs'),
    upgradeManifests: WARNED('join upgrades no manifest'),
  }),

  'ResetConfiguration.apiVersion': META,
  'ResetConfiguration.kind': META,
  'ResetConfiguration.certificatesDir': r('src/phases/reset/cleanup-node.ts', 'reset.certificatesDir'),
  'ResetConfiguration.cleanupTmpDir': r('src/phases/reset/cleanup-node.ts', 'cleanupTmpDir'),
  'ResetConfiguration.criSocket': r('src/phases/reset/cleanup-node.ts', 'reset.criSocket'),
  'ResetConfiguration.dryRun': r('src/run/runtime.ts', 'dryRun'),
  'ResetConfiguration.force': r('src/phases/reset/preflight.ts', 'reset.force'),
  'ResetConfiguration.ignorePreflightErrors': r('src/phases/reset/preflight.ts', 'reset.ignorePreflightErrors'),
  'ResetConfiguration.skipPhases': r('src/workflows/reset.ts', 'skipPhases'),
  'ResetConfiguration.unmountFlags': r('src/phases/reset/cleanup-node.ts', 'unmountFlags'),
  ...TIMEOUTS('ResetConfiguration', {
    kubernetesAPICall: r('src/phases/reset/state.ts', 'kubernetesAPICallMs'),
    etcdAPICall: r('src/phases/reset/remove-etcd-member.ts', 'timeouts?.etcdAPICallMs'),
    controlPlaneComponentHealthCheck: WARNED('reset waits for no control plane'),
    kubeletHealthCheck: WARNED('reset waits for no kubelet'),
    tlsBootstrap: WARNED('reset does no TLS bootstrap'),
    discovery: WARNED('reset does no discovery'),
    upgradeManifests: WARNED('reset upgrades no manifest'),
  }),

  'UpgradeConfiguration.apiVersion': META,
  'UpgradeConfiguration.kind': META,
  'UpgradeConfiguration.apply.allowExperimentalUpgrades': r('src/upgrade-plan/policy.ts', 'allowExperimentalUpgrades'),
  'UpgradeConfiguration.apply.allowRCUpgrades': r('src/upgrade-plan/policy.ts', 'allowRCUpgrades'),
  'UpgradeConfiguration.apply.certificateRenewal': r('src/phases/upgrade/control-plane.ts', 'certificateRenewal'),
  'UpgradeConfiguration.apply.dryRun': r('src/run/runtime.ts', 'dryRun'),
  'UpgradeConfiguration.apply.etcdUpgrade': r('src/phases/upgrade/control-plane.ts', 'etcdUpgrade'),
  'UpgradeConfiguration.apply.forceUpgrade': r('src/phases/upgrade/preflight.ts', 'force'),
  'UpgradeConfiguration.apply.ignorePreflightErrors': r('src/phases/upgrade/preflight.ts', 'ignorePreflightErrors'),
  'UpgradeConfiguration.apply.imagePullPolicy': { refused: 'src/config/load-upgrade.ts', needle: 'tsadm upgrade does not pull images before upgrading' },
  'UpgradeConfiguration.apply.imagePullSerial': { refused: 'src/config/load-upgrade.ts', needle: 'imagePullSerial: false is not supported' },
  'UpgradeConfiguration.apply.kubernetesVersion': r('src/phases/upgrade/state.ts', 'upgrade.kubernetesVersion'),
  'UpgradeConfiguration.apply.patches.directory': r('src/phases/upgrade/state.ts', 'upgrade.patches'),
  'UpgradeConfiguration.apply.printConfig': r('src/phases/upgrade/preflight.ts', 'printConfig'),
  'UpgradeConfiguration.apply.skipPhases': r('src/workflows/upgrade.ts', 'skipPhases'),
  'UpgradeConfiguration.diff.contextLines': r('src/upgrade-plan/diff-run.ts', 'diffContextLines'),
  'UpgradeConfiguration.diff.kubernetesVersion': r('src/upgrade-plan/diff-run.ts', 'kubernetesVersion'),
  'UpgradeConfiguration.node.certificateRenewal': r('src/phases/upgrade/control-plane.ts', 'certificateRenewal'),
  'UpgradeConfiguration.node.dryRun': r('src/run/runtime.ts', 'dryRun'),
  'UpgradeConfiguration.node.etcdUpgrade': r('src/phases/upgrade/control-plane.ts', 'etcdUpgrade'),
  'UpgradeConfiguration.node.ignorePreflightErrors': r('src/phases/upgrade/preflight.ts', 'ignorePreflightErrors'),
  'UpgradeConfiguration.node.imagePullPolicy': { refused: 'src/config/load-upgrade.ts', needle: 'tsadm upgrade does not pull images before upgrading' },
  'UpgradeConfiguration.node.imagePullSerial': { refused: 'src/config/load-upgrade.ts', needle: 'imagePullSerial: false is not supported' },
  'UpgradeConfiguration.node.patches.directory': r('src/phases/upgrade/state.ts', 'upgrade.patches'),
  'UpgradeConfiguration.node.skipPhases': r('src/workflows/upgrade.ts', 'skipPhases'),
  'UpgradeConfiguration.plan.allowExperimentalUpgrades': r('src/upgrade-plan/policy.ts', 'allowExperimentalUpgrades'),
  'UpgradeConfiguration.plan.allowRCUpgrades': r('src/upgrade-plan/policy.ts', 'allowRCUpgrades'),
  'UpgradeConfiguration.plan.dryRun': r('src/run/runtime.ts', 'dryRun'),
  'UpgradeConfiguration.plan.etcdUpgrade': r('src/upgrade-plan/plan-run.ts', 'etcdUpgrade'),
  'UpgradeConfiguration.plan.ignorePreflightErrors': { gap: "tsadm's upgrade plan runs no preflight check to ignore (kubeadm's runs IsPrivilegedUser and its CoreDNS checks)" },
  'UpgradeConfiguration.plan.kubernetesVersion': r('src/upgrade-plan/plan-run.ts', 'kubernetesVersion'),
  'UpgradeConfiguration.plan.printConfig': r('src/upgrade-plan/plan-run.ts', 'printConfig'),
  ...TIMEOUTS('UpgradeConfiguration', {
    kubernetesAPICall: r('src/phases/upgrade/state.ts', 'kubernetesAPICallMs'),
    upgradeManifests: r('src/phases/upgrade/static-pod-upgrade.ts', 'upgradeManifestsTimeoutMs'),
    tlsBootstrap: WARNED('upgrade does no TLS bootstrap'),
    discovery: WARNED('upgrade does no discovery'),
    controlPlaneComponentHealthCheck: { gap: "tsadm's upgrade waits on upgradeManifests only; kubeadm's use of this one in upgrade is not verified" },
    kubeletHealthCheck: { gap: "tsadm's upgrade waits on upgradeManifests only; kubeadm's use of this one in upgrade is not verified" },
    etcdAPICall: { gap: "tsadm's upgrade leaves etcd alone (kubeadm's bounds its etcd upgrade's calls with it)" },
  }),
};

function walk(s: Schema, prefix: string, out: Set<string>): void {
  if (typeof s === 'string') {
    out.add(prefix);
    return;
  }
  if ('list' in s) {
    walk(s.list, prefix, out);
    return;
  }
  if ('map' in s) {
    out.add(prefix);
    return;
  }
  if (s.open) out.add(prefix);
  for (const [k, v] of Object.entries(s.fields)) walk(v, `${prefix}.${k}`, out);
}

function schemaPaths(): string[] {
  const out = new Set<string>();
  for (const kinds of Object.values(KUBEADM_SCHEMAS)) for (const [kind, s] of Object.entries(kinds)) if (s) walk(s, kind, out);
  return [...out].sort();
}

const source = (file: string): string => {
  const p = path.join(process.cwd(), file);
  if (!existsSync(p)) throw new Error(`${file} does not exist`);
  return readFileSync(p, 'utf8');
};

describe('kubeadm config schema audit', () => {
  const paths = schemaPaths();

  test('every schema field has an audit entry, and every entry is a schema field', () => {
    expect(paths.filter((p) => !Object.hasOwn(AUDIT, p))).toEqual([]);
    expect(Object.keys(AUDIT).filter((p) => !paths.includes(p))).toEqual([]);
  });

  test.each(paths.filter((p) => Object.hasOwn(AUDIT, p)))('%s', (p) => {
    const e = AUDIT[p]!;
    if ('read' in e) expect(source(e.read)).toContain(e.needle);
    else if ('refused' in e) expect(source(e.refused)).toContain(e.needle);
    else if ('noUse' in e && e.warned) expect(source(e.warned.file)).toContain(e.warned.needle);
    else expect(e).toBeDefined();
  });

  test('the fields left to other work are exactly the known ones', () => {
    expect(paths.filter((p) => 'gap' in AUDIT[p]!)).toEqual([
      'ClusterConfiguration.etcd.external.httpEndpoints',
      'UpgradeConfiguration.plan.ignorePreflightErrors',
      'UpgradeConfiguration.timeouts.controlPlaneComponentHealthCheck',
      'UpgradeConfiguration.timeouts.etcdAPICall',
      'UpgradeConfiguration.timeouts.kubeletHealthCheck',
    ]);
  });
});
