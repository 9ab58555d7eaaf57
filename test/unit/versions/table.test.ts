/**
 * tsadm's output for a minor against golden facts of kubeadm of that release
 * (test/fixtures/versions/<minor>.yaml, written from kubeadm's own source; see the README there).
 * The expected values come only from those files, never from src/versions/table.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import { TsadmError } from '../../../src/errors.js';
import { resolveInitConfig } from '../../../src/config/load.js';
import { printInitDefaults, printUpgradeDefaults } from '../../../src/config/print.js';
import type { ResolvedInitConfig } from '../../../src/config/types.js';
import type { Container, Pod, Probe } from '../../../src/manifest/pod.js';
import { NO_HOST_FACTS, imageRepository, staticPodConfigFromInit } from '../../../src/manifest/inputs.js';
import { podToJson } from '../../../src/manifest/static-pod.js';
import { corednsConfigMap, corednsDeployment, dnsService } from '../../../src/phases/addons/coredns-render.js';
import { corednsImage, kubeProxyImage } from '../../../src/phases/addons/images.js';
import { kubeProxyConfigMap, kubeProxyConfiguration } from '../../../src/phases/addons/kube-proxy-render.js';
import { renderKubeletFlagsEnv } from '../../../src/phases/kubelet/flags-env.js';
import { usesNodeLocalCriSocket } from '../../../src/phases/kubelet/settings.js';
import { patchTargetsFor } from '../../../src/patches/filename.js';
import { clusterInfoConfigMap, clusterInfoRbac, kubeletApiAdminRbac, nodeBootstrapRbac } from '../../../src/phases/cluster/bootstrap-token-render.js';
import { controlPlaneTaints, markControlPlaneMutation, taintToString } from '../../../src/phases/cluster/mark-control-plane.js';
import { kubeadmConfigMap, kubeadmConfigRbac, kubeletConfigMap, kubeletConfigRbac } from '../../../src/stored-config/render.js';
import { CERT_ROWS } from '../../../src/certs/cert-table.js';
import { controlPlaneImages } from '../../../src/phases/controlplane/images.js';
import { renderStaticPod, STATIC_POD_COMPONENTS, type StaticPodComponent } from '../../../src/manifest/render.js';
import { serverFor } from '../../../src/kubeconfig/ensure.js';
import { KUBECONFIG_ROWS } from '../../../src/kubeconfig/kubeconfig-table.js';
import type { Host } from '../../../src/host/host.js';
import type { KubeObject } from '../../../src/kube/types.js';
import type { SystemProbe } from '../../../src/host/system-probe.js';
import { kubeletVersionCheck } from '../../../src/phases/preflight/checks.js';
import { profileFor } from '../../../src/versions/resolve.js';
import type { VersionProfile } from '../../../src/versions/table-types.js';
import { initPhases } from '../../../src/workflows/init.js';
import { toKubeYaml } from '../../../src/yaml/write.js';
import { joinPhases } from '../../../src/workflows/join.js';

interface ProbeFacts { liveness: string | null; readiness: string | null; startup: string | null; port: number | string }
interface Subject { cn: string; o: string[] }
interface Golden {
  minor: string;
  release: string;
  images: { repository: string; etcd: string; coredns: string; pause: string };
  manifests: { seccompRuntimeDefault: boolean; priority: number | null; creationTimestampNull: boolean } & Record<StaticPodComponent, { flags: string[]; probes: ProbeFacts }>;
  certs: Record<string, Subject>;
  kubeconfigs: Record<string, Subject & { server: string }>;
  phases: { init: string[]; kubeletFinalize: string[]; join?: string[]; joinIncludes?: string[] };
  configMaps: { names: string[] };
  rbac: { roles: string[]; clusterRoles: string[]; clusterRoleBindings: string[] };
  skew: { minKubelet: string };
  markControlPlane: { labels: string[]; taints: string[] };
  config: { apiVersion: string; upgradePlanDefaults: Record<string, unknown> | null };
  coredns: { tolerations: string[]; antiAffinity: boolean; drop: string[]; probePorts: Array<number | string>; serviceName: string };
  // Sections added for 1.35+ (issue 26); older golden files do not have them.
  featureGates?: Record<string, { default: boolean; stage: string; locked?: boolean; removed?: boolean } | string>;
  controllerManagerVolumes?: { always: string[]; flexvolumeDir: string | null };
  kubeProxy?: { image: string; mode: string };
  patchTargets?: { targets: string[] };
  kubeletFlagsEnv?: { content: string };
}

const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/versions');
const GOLDEN_MINORS = ['1.24', '1.29', '1.31', '1.34', '1.35', '1.36', '1.37'];
const CONTROL_PLANE_ENDPOINT = 'cp.example.test:6443';

/**
 * Golden facts tsadm does not meet yet, with why. Each entry must still diverge (the test
 * asserts it), so fixing one fails the test until the entry is removed.
 */
const KNOWN_DIVERGENCES: Record<string, Record<string, string>> = {};

function loadGolden(minor: string): Golden {
  return yaml.load(readFileSync(path.join(GOLDEN_DIR, `${minor}.yaml`), 'utf8')) as Golden;
}

/** The configuration as `tsadm init` resolves it from flags, defaults of the golden's release. */
function configFor(release: string): ResolvedInitConfig {
  return resolveInitConfig({
    flags: {
      'kubernetes-version': release,
      'control-plane-endpoint': CONTROL_PLANE_ENDPOINT,
      'apiserver-advertise-address': '192.168.10.11',
      'node-name': 'cp1',
      'cri-socket': 'unix:///run/containerd/containerd.sock',
    },
    env: { hostname: 'cp1', defaultAdvertiseAddress: '192.168.10.11', now: new Date('2026-01-01T00:00:00Z') },
  });
}

/** The keys of a golden section that are facts (not its `source` note), sorted. */
const factNames = (section: object): string[] => Object.keys(section).filter((k) => k !== 'source').sort();
/** A golden section without its `source` note. */
function withoutSource<T extends object>(section: T): Omit<T, 'source'> {
  const { source: _source, ...facts } = section as T & { source?: string };
  return facts;
}
const container = (pod: Pod): Container => pod.spec.containers[0] as Container;
const probePath = (p: Probe | undefined): string | null => p?.httpGet.path ?? null;
const ref = (o: KubeObject): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

/** Each fact checked by this file: a name and a thunk giving [tsadm's value, the golden value]. */
function facts(golden: Golden, cfg: ResolvedInitConfig, v: VersionProfile): Array<[string, () => [unknown, unknown]]> {
  const repo = imageRepository(cfg.cluster, v);
  const pods = Object.fromEntries(STATIC_POD_COMPONENTS.map((c) => [c, renderStaticPod(c, staticPodConfigFromInit(cfg), v, NO_HOST_FACTS)])) as Record<StaticPodComponent, Pod>;
  const images = controlPlaneImages(cfg.cluster, v);
  const out: Array<[string, () => [unknown, unknown]]> = [
    ['images.repository', () => [repo, golden.images.repository]],
    ['images.etcd', () => [container(pods.etcd).image, `${golden.images.repository}/etcd:${golden.images.etcd}`]],
    ['images.coredns', () => [corednsImage(cfg.cluster, v), `${golden.images.repository}/${golden.images.coredns}`]],
    ['images.list', () => {
      const kube = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy'].map((n) => `${golden.images.repository}/${n}:${golden.release}`);
      const pause = `${golden.images.repository}/pause:${golden.images.pause}`;
      const etcd = `${golden.images.repository}/etcd:${golden.images.etcd}`;
      const dns = `${golden.images.repository}/${golden.images.coredns}`;
      // kubeadm's GetControlPlaneImages lists CoreDNS before pause and etcd from 1.29 (kubeadm v1.28.0 vs v1.29.0 output).
      const modern = Number(golden.release.split('.')[1]) >= 29;
      return [images, modern ? [...kube, dns, pause, etcd] : [...kube, pause, etcd, dns]];
    }],
  ];
  for (const c of STATIC_POD_COMPONENTS) {
    const ctr = container(pods[c]);
    const g = golden.manifests[c];
    out.push(
      [`manifests.${c}.flags`, () => [ctr.command.slice(1), g.flags]],
      [`manifests.${c}.probes`, () => [
        { liveness: probePath(ctr.livenessProbe), readiness: probePath(ctr.readinessProbe), startup: probePath(ctr.startupProbe), port: ctr.livenessProbe?.httpGet.port },
        g.probes,
      ]],
      [`manifests.${c}.seccomp`, () => [pods[c].spec.securityContext?.seccompProfile?.type === 'RuntimeDefault', golden.manifests.seccompRuntimeDefault]],
      [`manifests.${c}.priority`, () => [pods[c].spec.priority ?? null, golden.manifests.priority]],
      // As written to disk: the line is there (null) or the key is absent.
      [`manifests.${c}.creationTimestampNull`, () => [toKubeYaml(podToJson(pods[c])).includes('\n  creationTimestamp: null\n'), golden.manifests.creationTimestampNull]],
    );
  }
  out.push(['certs.names', () => [CERT_ROWS.map((r) => r.name).sort(), factNames(golden.certs)]]);
  for (const row of CERT_ROWS) {
    out.push([`certs.${row.name}`, () => {
      const s = row.config(cfg, v).subject;
      return [{ cn: s.commonName, o: [...(s.organization ?? [])] }, golden.certs[row.name]];
    }]);
  }
  const files = KUBECONFIG_ROWS.filter((r) => r.exists?.(v) ?? true);
  out.push(['kubeconfigs.files', () => [files.map((r) => r.file).sort(), factNames(golden.kubeconfigs)]]);
  for (const row of files) {
    out.push([`kubeconfigs.${row.file}`, () => {
      const id = row.identity(cfg, v);
      return [{ cn: id.commonName, o: [...(id.organization ?? [])], server: serverFor({ cfg, versions: v }, row) }, golden.kubeconfigs[row.file]];
    }]);
  }
  const init = initPhases(v);
  // tsadm's own phases (host, wait-for-kubelet, certs-auto-renew: src/versions/kubeadm-phases.ts) are
  // marked `own` and listed apart by help, as a phase kubeadm dropped is marked `retired`: the tree
  // help shows as kubeadm's is the rest.
  const visible = <T extends { hidden?: boolean; own?: boolean; retired?: boolean; name: string }>(ps: readonly T[]): string[] =>
    ps.filter((p) => !p.hidden && !p.own && !p.retired).map((p) => p.name);
  out.push(['phases.init', () => [visible(init), golden.phases.init]]);
  out.push(['phases.init.extra', () => [visible(init).filter((n) => !golden.phases.init.includes(n)), []]]);
  out.push(['phases.kubeletFinalize', () => {
    const child = init.find((p) => p.name === 'kubelet-finalize')?.children?.[0];
    // tsadm has one child named as the release names it, the other spelling an alias.
    const accepted = child ? [child.name, ...(child.aliases ?? [])] : [];
    return [{ name: child?.name, accepts: golden.phases.kubeletFinalize.every((n) => accepted.includes(n)) }, { name: golden.phases.kubeletFinalize[0], accepts: true }];
  }]);
  const join = visible(joinPhases(v));
  out.push(['phases.join', () => (golden.phases.join
    ? [join, golden.phases.join]
    : [(golden.phases.joinIncludes ?? []).filter((n) => join.includes(n)), golden.phases.joinIncludes])]);
  out.push(['configMaps', () => [[
    kubeadmConfigMap('', undefined),
    kubeletConfigMap(v, '', false),
    clusterInfoConfigMap(''),
    corednsConfigMap({ versions: v, image: '', dnsDomain: 'cluster.local', dnsIp: '10.96.0.10', replicas: 2 }),
    kubeProxyConfigMap({}, 'https://192.168.10.11:6443', false),
  ].map(ref), golden.configMaps.names]]);
  // The kubelet API binding of 1.37 (PR #138957) is made in the same bootstrap-token phase, after the node bootstrap RBAC.
  const rbac = [...kubeadmConfigRbac(), ...kubeletConfigRbac(v), ...clusterInfoRbac(), ...nodeBootstrapRbac().flatMap((s) => s.objects),
    ...(v.controlPlane.kubeletApiAdminBinding ? kubeletApiAdminRbac().objects : [])];
  out.push(['rbac.roles', () => [rbac.filter((o) => o.kind === 'Role').map(ref), golden.rbac.roles]]);
  out.push(['rbac.clusterRoles', () => [rbac.filter((o) => o.kind === 'ClusterRole').map(ref), golden.rbac.clusterRoles]]);
  out.push(['rbac.clusterRoleBindings', () => {
    // kubeadm:cluster-admins is created with the admin client (src/phases/cluster/api.ts) where super-admin.conf exists.
    const bindings = rbac.filter((o) => o.kind === 'ClusterRoleBinding').map(ref);
    return [v.kubeconfig.superAdmin ? [...bindings, 'kubeadm:cluster-admins'] : bindings, golden.rbac.clusterRoleBindings];
  }]);
  out.push(['markControlPlane', () => {
    // What the mark-control-plane phase does to a bare Node object, with the configuration's default taints.
    const node = { metadata: { name: 'cp1', labels: {} as Record<string, string> }, spec: {} as { taints?: Array<{ key: string; value?: string; effect: string }> } };
    markControlPlaneMutation(v.controlPlane.markLabels, controlPlaneTaints(cfg.init.nodeRegistration.taints, v))(node as never);
    return [{ labels: Object.keys(node.metadata.labels), taints: (node.spec.taints ?? []).map((t) => taintToString(t as never)) }, { labels: golden.markControlPlane.labels, taints: golden.markControlPlane.taints }];
  }]);
  out.push(['coredns', () => {
    const input = { versions: v, image: '', dnsDomain: 'cluster.local', dnsIp: '10.96.0.10', replicas: 2 };
    interface PodSpec { tolerations: Array<{ key: string }>; affinity?: unknown; containers: Array<{ securityContext: { capabilities: { drop: string[] } }; livenessProbe: Probe; readinessProbe: Probe }> }
    const pod = (corednsDeployment(input) as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
    const ctr = pod.containers[0] as PodSpec['containers'][number];
    return [{
      tolerations: pod.tolerations.map((t) => t.key),
      antiAffinity: pod.affinity !== undefined,
      drop: ctr.securityContext.capabilities.drop,
      probePorts: [ctr.livenessProbe.httpGet.port, ctr.readinessProbe.httpGet.port],
      serviceName: dnsService(input).metadata.labels?.['kubernetes.io/name'],
    }, withoutSource(golden.coredns)];
  }]);
  out.push(['config.apiVersion', () => {
    const apiVersions = printInitDefaults({ version: golden.release, componentConfigs: [] }).split(/^---$/m)
      .map((doc) => (yaml.load(doc) as { apiVersion: string }).apiVersion);
    return [[...new Set(apiVersions)], [golden.config.apiVersion]];
  }]);
  out.push(['config.upgradePlanDefaults', () => {
    // `config print upgrade-defaults`' plan section; null where UpgradeConfiguration does not exist (before v1beta4).
    let plan: unknown = null;
    try {
      plan = (yaml.load(printUpgradeDefaults({ version: golden.release })) as { plan: unknown }).plan;
    } catch (err) {
      if (!(err instanceof TsadmError) || err.code !== 'E_USAGE') throw err;
    }
    return [plan, golden.config.upgradePlanDefaults];
  }]);
  out.push(...newerFacts(golden, cfg, v, pods));
  return out;
}

/** Facts of the sections the 1.35+ golden files add (issue 26). */
function newerFacts(golden: Golden, cfg: ResolvedInitConfig, v: VersionProfile, pods: Record<StaticPodComponent, Pod>): Array<[string, () => [unknown, unknown]]> {
  const out: Array<[string, () => [unknown, unknown]]> = [];
  const gates = golden.featureGates;
  if (gates) {
    for (const [name, fact] of Object.entries(gates)) {
      if (name === 'source' || typeof fact === 'string') continue;
      out.push([`featureGates.${name}`, () => {
        const ours = v.featureGates[name];
        return [ours && { default: ours.default, stage: ours.stage, locked: ours.locked ?? false, removed: ours.removed ?? false },
          { default: fact.default, stage: fact.stage, locked: fact.locked ?? false, removed: fact.removed ?? false }];
      }]);
    }
    out.push(['featureGates.names', () => [Object.keys(v.featureGates).filter((n) => !v.featureGates[n]?.removed).sort(),
      Object.entries(gates).filter(([n, f]) => n !== 'source' && typeof f !== 'string' && !f.removed).map(([n]) => n).sort()]]);
  }
  const volumes = golden.controllerManagerVolumes;
  if (volumes) {
    out.push(['controllerManagerVolumes', () => {
      const vols = pods['kube-controller-manager'].spec.volumes ?? [];
      const flex = vols.find((vol) => vol.name === 'flexvolume-dir');
      // Compared as sets: kubeadm writes a pod's volumes sorted by name (staticpod.VolumeMapToSlice).
      return [{ always: vols.map((vol) => vol.name).filter((n) => volumes.always.includes(n) || n === 'flexvolume-dir').sort(), flexvolumeDir: flex?.hostPath?.path ?? null },
        { always: [...volumes.always].sort(), flexvolumeDir: volumes.flexvolumeDir }];
    }]);
  }
  const proxy = golden.kubeProxy;
  if (proxy) {
    out.push(['kubeProxy.image', () => [kubeProxyImage(cfg.cluster, v), proxy.image]]);
    out.push(['kubeProxy.mode', () => {
      const { config } = kubeProxyConfiguration({ user: {}, advertiseAddress: '192.168.10.11', podSubnet: '', featureGates: {}, versions: v });
      return [config.mode ?? '', proxy.mode];
    }]);
  }
  const targets = golden.patchTargets;
  if (targets) out.push(['patchTargets', () => [[...patchTargetsFor(v)].sort(), [...targets.targets].sort()]]);
  const env = golden.kubeletFlagsEnv;
  if (env) {
    out.push(['kubeletFlagsEnv.content', () => [renderKubeletFlagsEnv({
      nodeRegistration: { ...cfg.init.nodeRegistration, criSocket: 'unix:///var/run/containerd/containerd.sock' },
      hostname: 'cp1',
      pauseImage: `${imageRepository(cfg.cluster, v)}/pause:${v.images.pauseTag}`,
      registerTaints: false,
      nodeLocalCriSocket: usesNodeLocalCriSocket(cfg.cluster, v),
    }, v).trimEnd(), env.content]]);
  }
  return out;
}

test('every golden file is compared (a new test/fixtures/versions/<minor>.yaml joins GOLDEN_MINORS)', () => {
  expect(readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')).sort()).toEqual([...GOLDEN_MINORS].sort());
});

describe.each(GOLDEN_MINORS)('kubeadm %s golden facts', (minor) => {
  const golden = loadGolden(minor);
  const cfg = configFor(golden.release);
  const v = profileFor(cfg.cluster.kubernetesVersion);
  const known = KNOWN_DIVERGENCES[minor] ?? {};
  const all = facts(golden, cfg, v);

  test('the golden file is for this minor and the configuration targets its release', () => {
    expect([golden.minor, v.minor, cfg.cluster.kubernetesVersion]).toEqual([minor, minor, golden.release]);
  });

  test.each(all.filter(([name]) => !(name in known)).map(([name, f]) => [name, f] as const))('%s', (_name, f) => {
    const [actual, expected] = f();
    expect(expected).toBeDefined();
    expect(actual).toEqual(expected);
  });

  test(`skew: preflight accepts kubelet v${golden.skew.minKubelet} and refuses the patch release before that minor`, async () => {
    const kubeletAt = (version: string): Host => ({ exec: () => Promise.resolve({ exitCode: 0, stdout: `Kubernetes v${version}\n`, stderr: '' }) }) as unknown as Host;
    const errorsWith = async (version: string): Promise<readonly string[]> =>
      (await kubeletVersionCheck(v, golden.release).run({ host: kubeletAt(version), system: {} as SystemProbe })).errors;
    const [major, minor] = golden.skew.minKubelet.split('.').map(Number) as [number, number];
    expect(await errorsWith(golden.skew.minKubelet)).toEqual([]);
    expect((await errorsWith(`${major}.${minor - 1}.99`))[0]).toMatch(/lower than kubeadm can support/);
  });

  // jest refuses an empty table: a minor without known divergences has no such test.
  if (Object.keys(known).length > 0) {
    test.each(Object.entries(known))('known divergence %s still diverges (%s)', (name) => {
      const entry = all.find(([n]) => n === name);
      expect(entry).toBeDefined();
      const [actual, expected] = (entry as [string, () => [unknown, unknown]])[1]();
      expect(expected).toBeDefined();
      expect(actual).not.toEqual(expected);
    });
  }
});
