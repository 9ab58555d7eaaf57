import { readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { fixtureInitConfig } from '../../../helpers/config-fixture.js';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../../helpers/apiserver.js';
import { initCtxFor, type MemoryReporter } from '../../../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../../../helpers/temp-root.js';
import type { ResolvedInitConfig } from '../../../../src/config/types.js';
import type { TsadmEvent } from '../../../../src/log/events.js';
import { addonPhase } from '../../../../src/phases/addons/addon-phase.js';
import { runPhases } from '../../../../src/engine/runner.js';

/** The addon phase against a real kube-apiserver v1.20.2: create, keep, update, skip. */
describeWithApiServer('addon phase on a real cluster', () => {
  let server: TestApiServer;
  let root: TempRoot;

  beforeAll(async () => {
    server = await startApiServer();
    root = tempRoot({ '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 } });
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  const cfg = (cluster: Record<string, unknown> = {}): ResolvedInitConfig => fixtureInitConfig({ cluster: { controlPlaneEndpoint: 'cp.example.com:6443', ...cluster } });
  async function run(c: ResolvedInitConfig): Promise<MemoryReporter> {
    const { ctx, reporter } = initCtxFor(c, root.dir);
    await runPhases([addonPhase], ctx, { filter: [], skip: [] });
    return reporter;
  }
  const actions = (r: MemoryReporter): string[] => r.events.flatMap((e: TsadmEvent) => (e.type === 'object' ? [`${e.action} ${e.kind}/${e.name}`] : []));
  const get = async (p: string) => (await server.request('GET', p, { auth: 'admin' })).body;

  test('creates CoreDNS and kube-proxy; a second run changes nothing', async () => {
    const first = await run(cfg());
    expect(actions(first).filter((a) => !a.startsWith('created'))).toEqual([]);
    expect(actions(first)).toHaveLength(12);
    const rvs = async () => [
      (await get('/apis/apps/v1/namespaces/kube-system/deployments/coredns')).metadata.resourceVersion,
      (await get('/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy')).metadata.resourceVersion,
      (await get('/api/v1/namespaces/kube-system/configmaps/kube-proxy')).metadata.resourceVersion,
    ];
    const before = await rvs();
    const second = await run(cfg());
    expect(new Set(actions(second).map((a) => a.split(' ')[0]))).toEqual(new Set(['unchanged']));
    expect(await rvs()).toEqual(before);
    const kp = await get('/api/v1/namespaces/kube-system/configmaps/kube-proxy');
    expect(kp.data['kubeconfig.conf']).toContain('server: https://cp.example.com:6443');
  });

  test('a scaled CoreDNS keeps its replicas; an edited Corefile is kept', async () => {
    await server.request('PATCH', '/apis/apps/v1/namespaces/kube-system/deployments/coredns', { auth: 'admin', contentType: 'application/merge-patch+json', body: { spec: { replicas: 3 } } });
    const cm = await get('/api/v1/namespaces/kube-system/configmaps/coredns');
    const edited = cm.data.Corefile!.replace('cache 30', 'cache 60');
    await server.request('PATCH', '/api/v1/namespaces/kube-system/configmaps/coredns', { auth: 'admin', contentType: 'application/merge-patch+json', body: { data: { Corefile: edited } } });
    const r = await run(cfg());
    expect(actions(r)).toContain('unchanged Deployment/coredns');
    expect(actions(r)).toContain('unchanged ConfigMap/coredns');
    expect((await get('/apis/apps/v1/namespaces/kube-system/deployments/coredns')).spec.replicas).toBe(3);
    expect((await get('/api/v1/namespaces/kube-system/configmaps/coredns')).data.Corefile).toBe(edited);
  });

  test('kubeadm\'s own Corefile follows a domain change; a new image repository updates the workloads', async () => {
    await server.request('PATCH', '/api/v1/namespaces/kube-system/configmaps/coredns', { auth: 'admin', contentType: 'application/merge-patch+json', body: { data: { Corefile: (await get('/api/v1/namespaces/kube-system/configmaps/coredns')).data.Corefile!.replace('cache 60', 'cache 30') } } });
    const r = await run(cfg({ imageRepository: 'registry.local/k8s', networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '', dnsDomain: 'example.internal' } }));
    expect(actions(r)).toEqual(expect.arrayContaining(['updated ConfigMap/coredns', 'updated Deployment/coredns', 'updated DaemonSet/kube-proxy']));
    expect((await get('/api/v1/namespaces/kube-system/configmaps/coredns')).data.Corefile).toContain('kubernetes example.internal in-addr.arpa');
    expect((await get('/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy')).spec.template.spec.containers[0]?.image).toBe('registry.local/k8s/kube-proxy:v1.20.2');
  });

  test('dns.disabled / proxy.disabled skip their phase with the reason', async () => {
    const { ctx, reporter } = initCtxFor(cfg({ dns: { disabled: true, imageRepository: '', imageTag: '' }, proxy: { disabled: true } }), root.dir);
    await runPhases([addonPhase], ctx, { filter: [], skip: [] });
    expect(actions(reporter)).toEqual([]);
    expect(reporter.events.flatMap((e) => (e.type === 'phase-finish' ? [`${e.phase}:${e.status}:${e.reason ?? ''}`] : []))).toEqual([
      'addon/coredns:skipped:the DNS addon is disabled in the ClusterConfiguration (dns.disabled)',
      'addon/kube-proxy:skipped:the kube-proxy addon is disabled in the ClusterConfiguration (proxy.disabled)',
    ]);
  });
  test('corednsdeployment --patches (kubeadm 1.31, PR #124820): applied to the Deployment sent at 1.31, not read at 1.30', async () => {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(root.at('/srv/patches'), { recursive: true });
    writeFileSync(root.at('/srv/patches/corednsdeployment+merge.yaml'), 'metadata:\n  labels:\n    patched-by: corednsdeployment\n');
    const withPatches = (version: string): ResolvedInitConfig => {
      const c = cfg({ kubernetesVersion: version });
      return { ...c, init: { ...c.init, patches: { directory: '/srv/patches' } } };
    };
    const at130 = await run(withPatches('v1.30.14'));
    // kubeadm 1.30's addon phase reads no patches at all (its static pod phases skip the file as an unknown target).
    expect(at130.lines().join('\n')).not.toContain('corednsdeployment');
    expect((await get('/apis/apps/v1/namespaces/kube-system/deployments/coredns')).metadata.labels?.['patched-by']).toBeUndefined();
    const at131 = await run(withPatches('v1.31.14'));
    expect(at131.lines()).toContain('Applied patch of type "application/merge-patch+json" to target "corednsdeployment"');
    expect(actions(at131)).toContain('updated Deployment/coredns');
    expect((await get('/apis/apps/v1/namespaces/kube-system/deployments/coredns')).metadata.labels?.['patched-by']).toBe('corednsdeployment');
    // A second run with the same patch changes nothing.
    expect(actions(await run(withPatches('v1.31.14')))).toContain('unchanged Deployment/coredns');
  });

  test('kubeproxydaemonset --patches (kubeadm 1.37, PR #138090): not read at 1.36, applied to the DaemonSet sent at 1.37; mode iptables in the 1.37 ConfigMap (PR #139777)', async () => {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(root.at('/srv/kp-patches'), { recursive: true });
    writeFileSync(root.at('/srv/kp-patches/kubeproxydaemonset+merge.yaml'), 'metadata:\n  labels:\n    patched-by: kubeproxydaemonset\n');
    const withPatches = (version: string): ResolvedInitConfig => {
      const c = cfg({ kubernetesVersion: version });
      return { ...c, init: { ...c.init, patches: { directory: '/srv/kp-patches' } } };
    };
    const daemonSet = async () => get('/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy');
    const proxyConfig = async () => (await get('/api/v1/namespaces/kube-system/configmaps/kube-proxy')).data['config.conf'] ?? '';
    const at136 = await run(withPatches('v1.36.0'));
    // kubeadm 1.36 knows no such target: the directory reader skips the file as unknown, nothing is applied.
    expect(at136.lines().join('\n')).not.toContain('to target "kubeproxydaemonset"');
    expect((await daemonSet()).metadata.labels?.['patched-by']).toBeUndefined();
    // 1.36 writes the whole configuration with mode left at its zero value ("").
    expect((await proxyConfig()).split('\n')).toContain('mode: ""');
    const at137 = await run(withPatches('v1.37.0'));
    expect(at137.lines()).toContain('Applied patch of type "application/merge-patch+json" to target "kubeproxydaemonset"');
    expect(actions(at137)).toEqual(expect.arrayContaining(['updated DaemonSet/kube-proxy', 'updated ConfigMap/kube-proxy']));
    expect((await daemonSet()).metadata.labels).toEqual({ 'k8s-app': 'kube-proxy', 'patched-by': 'kubeproxydaemonset' });
    expect((await daemonSet()).spec.template.spec.containers[0]?.image).toMatch(/\/kube-proxy:v1\.37\.0$/);
    expect((await proxyConfig()).split('\n')).toContain('mode: iptables');
    // A second run with the same patch changes nothing.
    const again = await run(withPatches('v1.37.0'));
    expect(actions(again)).toEqual(expect.arrayContaining(['unchanged DaemonSet/kube-proxy', 'unchanged ConfigMap/kube-proxy']));
  });
});

/**
 * `--print-manifest` (kubeadm's addon phases: "Print the addon manifests to STDOUT instead of
 * installing them"): no cluster is asked (there is no admin.conf and no API server here), every
 * object is printed as a YAML document. Expected values are kubeadm v1.20.2's: its CoreDNS image,
 * coreDNSReplicas (2), GetDNSIP of 10.96.0.0/12 (10.96.0.10), its kube-proxy image. The order is
 * the one kubeadm prints in, not the one it applies in: coreDNSAddon prints `---` and then the
 * Deployment, ConfigMap, Service, ClusterRole, ClusterRoleBinding and ServiceAccount templates
 * (cmd/kubeadm/app/phases/addons/dns/dns.go); printOrCreateKubeProxyObjects prints the
 * ServiceAccount, ClusterRoleBinding, Role and RoleBinding (MarshalToYaml, each after a `---`
 * line), then `---` and the ConfigMap and DaemonSet templates as filled in, before kubeadm signs
 * the ConfigMap or adds the environment's proxy variables to the DaemonSet
 * (cmd/kubeadm/app/phases/addons/proxy/proxy.go).
 */
describe('addon phase with --print-manifest', () => {
  test('prints the twelve objects of CoreDNS and kube-proxy without a cluster, in kubeadm\'s print order', async () => {
    const empty = tempRoot({});
    try {
      const c = fixtureInitConfig({ cluster: { kubernetesVersion: 'v1.20.2', controlPlaneEndpoint: 'cp.example.com:6443' } });
      const { ctx, reporter } = initCtxFor(c, empty.dir, { api: { open: () => Promise.reject(new Error('no cluster may be asked')), close: () => undefined } as never });
      const printing = { ...ctx, options: { ...ctx.options, flags: { 'print-manifest': true } } };
      const saved = process.env.HTTPS_PROXY;
      process.env.HTTPS_PROXY = 'http://proxy.example:3128';
      try {
        await runPhases([addonPhase], printing, { filter: [], skip: [] });
      } finally {
        if (saved === undefined) delete process.env.HTTPS_PROXY;
        else process.env.HTTPS_PROXY = saved;
      }
      expect(reporter.events.filter((e) => e.type === 'object')).toEqual([]);
      const text = reporter.events.flatMap((e) => (e.type === 'output' ? [e.text] : [])).join('');
      // Every document starts with a `---` line of its own and ends with a newline.
      expect(text.startsWith('---\n')).toBe(true);
      expect(text.endsWith('\n')).toBe(true);
      const docs = text.split(/^---\n/m).filter((d) => d !== '').map((d) => yaml.load(d) as { kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: Record<string, unknown> });
      expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
        'Deployment/coredns', 'ConfigMap/coredns', 'Service/kube-dns', 'ClusterRole/system:coredns', 'ClusterRoleBinding/system:coredns', 'ServiceAccount/coredns',
        'ServiceAccount/kube-proxy', 'ClusterRoleBinding/kubeadm:node-proxier', 'Role/kube-proxy', 'RoleBinding/kube-proxy', 'ConfigMap/kube-proxy', 'DaemonSet/kube-proxy',
      ]);
      const deployment = docs[0] as unknown as { spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } };
      expect(deployment.spec.replicas).toBe(2);
      expect(deployment.spec.template.spec.containers[0]?.image).toBe('k8s.gcr.io/coredns:1.7.0');
      expect((docs[2] as unknown as { spec: { clusterIP: string } }).spec.clusterIP).toBe('10.96.0.10');
      // The ConfigMap template as filled in: not signed (kubeadm signs only the object it creates).
      expect(docs[10]?.metadata.annotations).toBeUndefined();
      const ds = docs[11] as unknown as { spec: { template: { spec: { containers: Array<{ image: string; env: Array<{ name: string }> }> } } } };
      expect(ds.spec.template.spec.containers[0]?.image).toBe('k8s.gcr.io/kube-proxy:v1.20.2');
      // kube-proxy's ConfigMap and DaemonSet are printed as kubeadm's templates read: kind before
      // apiVersion in the ConfigMap, which ends with the template's blank line before the next `---`.
      expect(text).toContain('---\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: kube-proxy\n');
      expect(text).toContain('      sourceVip: ""\n\n---\napiVersion: apps/v1\nkind: DaemonSet\n');
      // The template's only variable: the environment's *_proxy variables are merged into the created object only.
      expect(ds.spec.template.spec.containers[0]?.env.map((e) => e.name)).toEqual(['NODE_NAME']);
      expect(reporter.lines().join('\n')).not.toContain('Applied essential addon');
      // The four objects MarshalToYaml prints carry 1.20's zero timestamp; the templates have none.
      expect(docs.slice(6, 10).map((d) => (d.metadata as { creationTimestamp?: unknown }).creationTimestamp)).toEqual([null, null, null, null]);
      expect(text.split('\n  creationTimestamp: null\n')).toHaveLength(5);
    } finally {
      empty.cleanup();
    }
  });

  // kubeadm's TestEnsureDNSAddon "print Manifest" case (dns_test.go at 898b9f80): the CoreDNS
  // templates as text, with its inputs (DNS repository foo.bar.io, service subnet 10.0.0.0/16),
  // the domain cluster.local filled in (test/fixtures/coredns/README.md).
  test('1.36: CoreDNS is printed as kubeadm\'s template text, byte for byte', async () => {
    const empty = tempRoot({});
    try {
      const c = fixtureInitConfig({ cluster: {
        kubernetesVersion: 'v1.36.0',
        dns: { disabled: false, imageRepository: 'foo.bar.io', imageTag: '' },
        networking: { serviceSubnet: '10.0.0.0/16', podSubnet: '', dnsDomain: 'cluster.local' },
        proxy: { disabled: true },
      } });
      const { ctx, reporter } = initCtxFor(c, empty.dir, { api: { open: () => Promise.reject(new Error('no cluster may be asked')), close: () => undefined } as never });
      await runPhases([addonPhase], { ...ctx, options: { ...ctx.options, flags: { 'print-manifest': true } } }, { filter: [], skip: [] });
      const text = reporter.events.flatMap((e) => (e.type === 'output' ? [e.text] : [])).join('');
      expect(text).toBe(readFileSync(new URL('../../../fixtures/coredns/print-manifest-1.36.yaml', import.meta.url), 'utf8'));
    } finally {
      empty.cleanup();
    }
  });

  // k8s.io/apimachinery v0.34.0 tags ObjectMeta.CreationTimestamp `omitzero` (kubernetes PR
  // #130989): kubeadm 1.34+'s MarshalToYaml omits the zero timestamp instead of printing null.
  test('1.35: the objects kubeadm marshals are printed without creationTimestamp', async () => {
    const empty = tempRoot({});
    try {
      const c = fixtureInitConfig({ cluster: { kubernetesVersion: 'v1.35.0', controlPlaneEndpoint: 'cp.example.com:6443' } });
      const { ctx, reporter } = initCtxFor(c, empty.dir, { api: { open: () => Promise.reject(new Error('no cluster may be asked')), close: () => undefined } as never });
      await runPhases([addonPhase], { ...ctx, options: { ...ctx.options, flags: { 'print-manifest': true } } }, { filter: [], skip: [] });
      const text = reporter.events.flatMap((e) => (e.type === 'output' ? [e.text] : [])).join('');
      expect(text).toContain('kind: ServiceAccount\nmetadata:\n  name: kube-proxy\n');
      expect(text).not.toContain('creationTimestamp');
    } finally {
      empty.cleanup();
    }
  });
});
