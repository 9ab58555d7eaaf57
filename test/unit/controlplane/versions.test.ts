/**
 * Version facts: every supported minor renders all four manifests, and each fact of the spec
 * (kubeadm-spec.md §4) shows up exactly in the minors it belongs to.
 */
import type { Container, Pod, Probe } from '../../../src/manifest/pod.js';
import { renderStaticPod, STATIC_POD_COMPONENTS, type StaticPodComponent } from '../../../src/phases/controlplane/render.js';
import { podToJson } from '../../../src/manifest/static-pod.js';
import { toKubeYaml } from '../../../src/yaml/write.js';
import { DEFAULT_PATCH, SUPPORTED_MINORS, VERSION_TABLE, type SupportedMinor } from '../../../src/versions/table.js';
import { staticPodConfigFromInit, NO_HOST_FACTS } from '../../../src/manifest/inputs.js';
import { fixtureInitConfig } from '../../helpers/config-fixture.js';

function render(minor: SupportedMinor, component: StaticPodComponent): Pod {
  const base = fixtureInitConfig();
  const cfg = { ...base, cluster: { ...base.cluster, kubernetesVersion: DEFAULT_PATCH[minor], imageRepository: VERSION_TABLE[minor].defaultImageRepository } };
  return renderStaticPod(component, staticPodConfigFromInit(cfg), VERSION_TABLE[minor], NO_HOST_FACTS);
}

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

  test('renders and serializes all four manifests deterministically', () => {
    for (const c of STATIC_POD_COMPONENTS) {
      const yaml = toKubeYaml(podToJson(pods[c]));
      expect(yaml).toBe(toKubeYaml(podToJson(render(minor, c))));
      expect(yaml.endsWith('status: {}\n')).toBe(true);
      expect(yaml).toContain('  creationTimestamp: null\n');
    }
  });

  test('flags are sorted and images carry the version tag', () => {
    for (const c of STATIC_POD_COMPONENTS) expect(flags(pods[c])).toEqual([...flags(pods[c])].sort());
    expect(container(api).image).toBe(`${VERSION_TABLE[minor].defaultImageRepository}/kube-apiserver:${DEFAULT_PATCH[minor]}`);
    expect(container(etcd).image).toBe(`${VERSION_TABLE[minor].defaultImageRepository}/etcd:${VERSION_TABLE[minor].images.etcdTag}`);
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
