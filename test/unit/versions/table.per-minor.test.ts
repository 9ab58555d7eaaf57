/**
 * Version facts across every supported minor: each fact of a static pod that changed in some
 * minor shows up exactly in the minors it belongs to. Expected values are written here as kubeadm
 * has them (thresholds and tags from kubeadm's source, with the pull request that changed them),
 * never read from src/versions/table.ts; test/unit/versions/table.test.ts checks whole minors
 * against golden files, and golden.test.ts checks v1.20.2 byte for byte against kubeadm's output.
 */
import * as yaml from 'js-yaml';
import type { Container, Pod, Probe } from '../../../src/manifest/pod.js';
import { renderStaticPod, STATIC_POD_COMPONENTS, type StaticPodComponent } from '../../../src/manifest/render.js';
import { podToJson } from '../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../src/yaml/write.js';
import { DEFAULT_PATCH, SUPPORTED_MINORS, type SupportedMinor } from '../../../src/versions/minors.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { staticPodConfigFromInit, NO_HOST_FACTS } from '../../../src/manifest/inputs.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

/** kubeadm's SupportedEtcdVersion for each minor at its .0 release (cmd/kubeadm/app/constants/constants.go). */
const ETCD_TAG: Record<SupportedMinor, string> = {
  '1.20': '3.4.13-0', '1.21': '3.4.13-0', '1.22': '3.5.0-0', '1.23': '3.5.1-0', '1.24': '3.5.3-0',
  '1.25': '3.5.4-0', '1.26': '3.5.6-0', '1.27': '3.5.7-0', '1.28': '3.5.9-0', '1.29': '3.5.10-0',
  '1.30': '3.5.12-0', '1.31': '3.5.15-0', '1.32': '3.5.16-0', '1.33': '3.5.21-0', '1.34': '3.6.4-0',
  // 1.35: PRs #134251 and #135271 (3.6.6); 1.36: PR #137107 (3.6.8); 1.37: PRs #139427 and #140333 (3.7.0).
  '1.35': '3.6.6-0', '1.36': '3.6.8-0', '1.37': '3.7.0-0',
  // 1.38 (preview): "Updated the default etcd version to 3.7.1" (PR #141032, v1.38.0-alpha.1 notes).
  '1.38': '3.7.1-0',
};

/** The default registry: k8s.gcr.io until registry.k8s.io became kubeadm's default in 1.25. */
const registryFor = (n: number): string => (n >= 25 ? 'registry.k8s.io' : 'k8s.gcr.io');

/** The fixture configuration at this minor's default patch, with the image registry left to its default. */
function render(minor: SupportedMinor, component: StaticPodComponent, version = DEFAULT_PATCH[minor]): Pod {
  const base = fixtureInitConfig();
  const cfg = { ...base, cluster: { ...base.cluster, kubernetesVersion: version, imageRepository: '' } };
  return renderStaticPod(component, staticPodConfigFromInit(cfg), profileFor(version), NO_HOST_FACTS);
}

/** The minor's .0 release (ETCD_TAG's version), or its named pre-release for the preview minor. */
const firstRelease = (minor: SupportedMinor): string => (DEFAULT_PATCH[minor].includes('-') ? DEFAULT_PATCH[minor] : `v${minor}.0`);

const container = (pod: Pod): Container => pod.spec.containers[0] as Container;
const flags = (pod: Pod): string[] => container(pod).command.slice(1);
const at = (minor: string): number => Number(minor.split('.')[1]);

describe.each(SUPPORTED_MINORS.map((m) => [m]))('Kubernetes %s', (minor) => {
  const n = at(minor);
  const pods = Object.fromEntries(STATIC_POD_COMPONENTS.map((c) => [c, render(minor, c)])) as Record<StaticPodComponent, Pod>;
  const api = pods['kube-apiserver'];
  const kcm = pods['kube-controller-manager'];
  const sched = pods['kube-scheduler'];
  const etcd = pods.etcd;

  // apimachinery v0.34.0 tags ObjectMeta.CreationTimestamp `omitempty,omitzero` (kubernetes PR
  // #130989, in kubernetes-1.34.0 and not in any v0.33.x tag): kubeadm ≤1.33 writes
  // `creationTimestamp: null`, 1.34+ omits the key.
  test(`each manifest serializes as kubeadm writes it: the YAML reads back to the pod, ${n >= 34 ? 'without creationTimestamp' : 'with creationTimestamp: null'}, with an empty status`, () => {
    for (const c of STATIC_POD_COMPONENTS) {
      const text = toKubeYaml(podToJson(pods[c]));
      const back = yaml.load(text) as { metadata: Record<string, unknown>; spec: { containers: Array<{ command: string[]; image: string }> }; status: unknown };
      expect(back.spec.containers[0]?.command).toEqual(container(pods[c]).command);
      expect(back.spec.containers[0]?.image).toBe(container(pods[c]).image);
      if (n >= 34) {
        expect(Object.hasOwn(back.metadata, 'creationTimestamp')).toBe(false);
        expect(text).not.toContain('creationTimestamp');
      } else {
        expect(back.metadata.creationTimestamp).toBeNull();
        expect(text).toContain('\n  creationTimestamp: null\n');
      }
      expect(back.status).toEqual({});
      expect(text.endsWith('status: {}\n')).toBe(true);
    }
  });

  // etcd at the .0 release: patch releases moved some minors' etcd on (PATCH_CHANGES, tested in
  // test/unit/versions/resolve.test.ts).
  test(`flags are sorted; images from ${registryFor(n)}, kube-apiserver at ${DEFAULT_PATCH[minor]}, etcd ${ETCD_TAG[minor]} at ${firstRelease(minor)}`, () => {
    for (const c of STATIC_POD_COMPONENTS) expect(flags(pods[c])).toEqual([...flags(pods[c])].sort());
    expect(container(api).image).toBe(`${registryFor(n)}/kube-apiserver:${DEFAULT_PATCH[minor]}`);
    expect(container(render(minor, 'etcd', firstRelease(minor))).image).toBe(`${registryFor(n)}/etcd:${ETCD_TAG[minor]}`);
    expect(container(etcd).image).toMatch(new RegExp(`^${registryFor(n)}/etcd:3\\.`));
  });

  test(`--insecure-port=0 ${n <= 21 ? 'present' : 'absent'} (1.20–1.21)`, () => {
    expect(flags(api).includes('--insecure-port=0')).toBe(n <= 21);
  });

  test(`--port=0 ${n <= 22 ? 'present' : 'absent'} on controller-manager and scheduler (≤1.22)`, () => {
    expect(flags(kcm).includes('--port=0')).toBe(n <= 22);
    expect(flags(sched).includes('--port=0')).toBe(n <= 22);
  });

  test(`seccompProfile RuntimeDefault ${n >= 22 ? 'set' : 'absent'} (1.22+)`, () => {
    for (const c of STATIC_POD_COMPONENTS) {
      expect(pods[c].spec.securityContext).toEqual(n >= 22 ? { seccompProfile: { type: 'RuntimeDefault' } } : undefined);
    }
  });

  test(`spec.priority ${n >= 27 ? 'set' : 'absent'} (1.27+)`, () => {
    for (const c of STATIC_POD_COMPONENTS) {
      expect(pods[c].spec.priority).toBe(n >= 27 ? 2000001000 : undefined);
      expect(pods[c].spec.priorityClassName).toBe('system-node-critical');
    }
  });

  test('etcd probe endpoints for this minor', () => {
    const path = (p: Probe | undefined): string | undefined => p?.httpGet.path;
    const c = container(etcd);
    if (n <= 24) {
      expect([path(c.livenessProbe), path(c.startupProbe), path(c.readinessProbe)]).toEqual(['/health', '/health', undefined]);
    } else if (n <= 30) {
      expect([path(c.livenessProbe), path(c.startupProbe), path(c.readinessProbe)])
        .toEqual(['/health?exclude=NOSPACE&serializable=true', '/health?serializable=false', undefined]);
    } else {
      expect([path(c.livenessProbe), path(c.startupProbe), path(c.readinessProbe)]).toEqual(['/livez', '/readyz', '/readyz']);
    }
  });

  test('etcd flags for this minor (corrupt check 1.24+, watch progress 1.25+, etcd 3.6 spelling 1.34)', () => {
    const f = flags(etcd);
    expect(f.includes('--experimental-initial-corrupt-check=true')).toBe(n >= 24 && n < 34);
    expect(f.includes('--experimental-watch-progress-notify-interval=5s')).toBe(n >= 25 && n < 34);
    expect(f.includes('--feature-gates=InitialCorruptCheck=true')).toBe(n >= 34);
    expect(f.includes('--watch-progress-notify-interval=5s')).toBe(n >= 34);
  });

  test(`kube-controller-manager flexvolume-dir mount ${n <= 35 ? 'present' : 'absent'} (removed in 1.36, PR #136423)`, () => {
    const flex = '/usr/libexec/kubernetes/kubelet-plugins/volume/exec';
    expect(kcm.spec.volumes?.some((v) => v.name === 'flexvolume-dir' && v.hostPath.path === flex)).toBe(n <= 35);
    expect(container(kcm).volumeMounts?.some((m) => m.name === 'flexvolume-dir' && m.mountPath === flex)).toBe(n <= 35);
  });

  test(`etcd with a pinned 3.5 image tag: ${n >= 36 ? 'the etcd 3.6 spelling (etcd < 3.6 unsupported from 1.36, PR #135701)' : 'the experimental spelling where the flags exist (1.25+; the tag decides in 1.34–1.35)'}`, () => {
    const base = fixtureInitConfig();
    const etcd = { ...base.cluster.etcd, imageTag: '3.5.21-0' } as typeof base.cluster.etcd;
    const cfg = { ...base, cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], imageRepository: '', etcd } };
    const f = flags(renderStaticPod('etcd', staticPodConfigFromInit(cfg), profileFor(DEFAULT_PATCH[minor]), NO_HOST_FACTS));
    expect(f.includes('--watch-progress-notify-interval=5s')).toBe(n >= 36);
    expect(f.includes('--experimental-watch-progress-notify-interval=5s')).toBe(n >= 25 && n < 36);
    expect(f.includes('--feature-gates=InitialCorruptCheck=true')).toBe(n >= 36);
  });

  // PR #135400 is in 1.36 and, cherry-picked, in v1.35.1 (#135853): the default 1.35 patch has it;
  // the default patches of 1.32-1.34 are older than their cherry-picks (v1.32.12, v1.33.8, v1.34.4).
  const keepsOrder = n >= 35;
  test(`user extraArgs ${keepsOrder ? 'follow the sorted defaults in the order written' : 'are sorted with the defaults'} at ${DEFAULT_PATCH[minor]} (PR #135400 in 1.36 and v1.35.1; kubeadm-flags.env and every static pod)`, () => {
    const base = fixtureInitConfig();
    const extraArgs = [{ name: 'v', value: '2' }, { name: 'audit-log-maxage', value: '7' }];
    const cfg = { ...base, cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], imageRepository: '', apiServer: { ...base.cluster.apiServer, extraArgs } } };
    const f = flags(renderStaticPod('kube-apiserver', staticPodConfigFromInit(cfg), profileFor(DEFAULT_PATCH[minor]), NO_HOST_FACTS));
    if (keepsOrder) {
      expect(f.slice(-2)).toEqual(['--v=2', '--audit-log-maxage=7']);
      expect(f.slice(0, -2)).toEqual([...f.slice(0, -2)].sort());
    } else {
      expect(f).toEqual([...f].sort());
    }
  });

  test(`etcd ephemeral-storage request ${n === 20 ? 'present' : 'absent'}`, () => {
    expect(container(etcd).resources.requests?.['ephemeral-storage']).toBe(n === 20 ? '100Mi' : undefined);
  });

  test(`scheduler probes ${n >= 32 ? '/livez + /readyz' : '/healthz'} (1.32+)`, () => {
    const c = container(sched);
    expect(c.livenessProbe?.httpGet.path).toBe(n >= 32 ? '/livez' : '/healthz');
    expect(c.startupProbe?.httpGet.path).toBe(n >= 32 ? '/livez' : '/healthz');
    expect(c.readinessProbe?.httpGet.path).toBe(n >= 32 ? '/readyz' : undefined);
  });

  test(`probes use ${n >= 34 ? 'the named port probe-port' : 'numeric ports'} (1.34+)`, () => {
    const expected: Record<StaticPodComponent, number> = { etcd: 2381, 'kube-apiserver': 6443, 'kube-controller-manager': 10257, 'kube-scheduler': 10259 };
    for (const comp of STATIC_POD_COMPONENTS) {
      const c = container(pods[comp]);
      for (const p of [c.livenessProbe, c.readinessProbe, c.startupProbe]) if (p) expect(p.httpGet.port).toBe(n >= 34 ? 'probe-port' : expected[comp]);
      expect(c.ports).toEqual(n >= 34 ? [{ containerPort: expected[comp], name: 'probe-port', protocol: 'TCP' }] : undefined);
    }
  });

  test('apiserver probes: liveness /livez, readiness /readyz, startup /livez with 24 failures for 4m', () => {
    const c = container(api);
    expect([c.livenessProbe?.httpGet.path, c.readinessProbe?.httpGet.path, c.startupProbe?.httpGet.path]).toEqual(['/livez', '/readyz', '/livez']);
    expect(c.startupProbe?.failureThreshold).toBe(24);
    expect(c.livenessProbe).toMatchObject({ initialDelaySeconds: 10, timeoutSeconds: 15, periodSeconds: 10, failureThreshold: 8 });
    expect(c.readinessProbe).toMatchObject({ timeoutSeconds: 15, periodSeconds: 1, failureThreshold: 3 });
    expect(c.readinessProbe?.initialDelaySeconds).toBeUndefined();
  });
});
