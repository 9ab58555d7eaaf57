import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { fixtureInitConfig } from '../helpers/config-fixture.js';
import { describeWithApiServer, registerNode, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { initCtxFor, type MemoryReporter } from '../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';
import { upgradeCtxFor } from '../helpers/upgrade-ctx.js';
import { fixtureText } from '../helpers/kubeadm-fixtures.js';
import type { TsadmEvent } from '../../src/log/events.js';
import { runPhases } from '../../src/engine/runner.js';
import type { Phase } from '../../src/engine/phase.js';
import type { InitCtx } from '../../src/run/context.js';
import type { UpgradeCtx } from '../../src/phases/upgrade/context.js';
import { addonPhase } from '../../src/phases/addons/addon-phase.js';
import { bootstrapTokenPhase } from '../../src/phases/cluster/bootstrap-token.js';
import { markControlPlanePhase } from '../../src/phases/cluster/mark-control-plane.js';
import { uploadConfigPhase } from '../../src/phases/cluster/upload-config.js';
import { upgradeAddonPhase } from '../../src/phases/upgrade/addons.js';
import { upgradeBootstrapTokenPhase } from '../../src/phases/upgrade/bootstrap-token.js';
import { upgradeKubeletConfigPhase } from '../../src/phases/upgrade/kubelet-config.js';
import { upgradePostUpgradePhase } from '../../src/phases/upgrade/post-upgrade.js';
import { upgradeUploadConfigPhase } from '../../src/phases/upgrade/upload-config.js';
import { renewCertificates } from '../../src/phases/upgrade/renew-certs.js';
import { openssl, runCerts, subjectOf, verifyWith } from '../helpers/pki-test-utils.js';

/**
 * The object phases of `upgrade apply` against a real kube-apiserver v1.20.2 whose objects were
 * made by tsadm's own init phases at v1.20.2: to v1.20.3, then to v1.21.14, each run twice (the
 * second must write nothing). Expected values are kubeadm's (constants, images and messages of
 * kubeadm 1.20/1.21's source) and what the API server stores.
 */
const INIT: Phase<InitCtx>[] = [uploadConfigPhase, markControlPlanePhase, bootstrapTokenPhase, addonPhase];
/** This node's advertise address (a documentation address: kubeadm refuses loopback); the API is reached through admin.conf. */
const ADVERTISE = '192.0.2.10';
const UPGRADE: Phase<UpgradeCtx>[] = [upgradeUploadConfigPhase, upgradeKubeletConfigPhase, upgradeBootstrapTokenPhase, upgradeAddonPhase, upgradePostUpgradePhase];

describeWithApiServer('upgrade apply object phases on a real cluster', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let port: string;

  const get = async (p: string) => {
    const r = await server.request('GET', p, { auth: 'admin' });
    return r;
  };
  const cm = async (name: string, ns = 'kube-system') => (await get(`/api/v1/namespaces/${ns}/configmaps/${name}`));

  beforeAll(async () => {
    server = await startApiServer();
    port = new URL(server.url).port;
    root = tempRoot({
      '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 },
      '/var/lib/kubelet/config.yaml': fixtureText('kubeadm-1.20-kubelet-config.yaml'),
      '/etc/kubernetes/pki/ca.crt': server.caPem,
      // What readUpgradeCluster takes this node's API endpoint from (kubeadm's annotation).
      '/etc/kubernetes/manifests/kube-apiserver.yaml': [
        'apiVersion: v1', 'kind: Pod', 'metadata:', '  annotations:',
        `    kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint: ${ADVERTISE}:6443`,
        '  name: kube-apiserver', '  namespace: kube-system', 'spec: {}', '',
      ].join('\n'),
    });
    expect((await registerNode(server, 'cp1')).status).toBe(201);
    // A second control plane that only has the pre-1.20 label (kubeadm 1.20's LabelOldControlPlaneNodes target).
    const old = await server.request('POST', '/api/v1/nodes', {
      auth: 'admin',
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cp-old', labels: { 'kubernetes.io/hostname': 'cp-old', 'node-role.kubernetes.io/master': '' } } },
    });
    expect(old.status).toBe(201);
    const base = fixtureInitConfig({
      cluster: { kubernetesVersion: 'v1.20.2', controlPlaneEndpoint: `127.0.0.1:${port}`, networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '10.244.0.0/16', dnsDomain: 'cluster.local' } },
    });
    const cfg = { ...base, init: { ...base.init, localAPIEndpoint: { advertiseAddress: ADVERTISE, bindPort: 6443 } } };
    await runPhases(INIT, initCtxFor(cfg, root.dir).ctx, { filter: [], skip: [] });
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  const objectEvents = (r: MemoryReporter) => r.events.filter((e): e is Extract<TsadmEvent, { type: 'object' }> => e.type === 'object');
  const changes = (r: MemoryReporter) => objectEvents(r).filter((e) => e.action !== 'unchanged').map((e) => `${e.action} ${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`);
  const logLines = (r: MemoryReporter) => r.events.flatMap((e) => (e.type === 'log' && e.verbosity === 0 ? [`[${e.prefix ?? e.phase}] ${e.message}`] : []));

  async function upgrade(version: string, opts: { dryRun?: boolean } = {}): Promise<MemoryReporter> {
    const { ctx, reporter } = upgradeCtxFor(root.dir, { settings: { kubernetesVersion: version }, ...opts });
    await runPhases(UPGRADE, ctx, { filter: [], skip: [] });
    return reporter;
  }

  const clusterConfiguration = async () => yaml.load((await cm('kubeadm-config')).body.data.ClusterConfiguration ?? '') as Record<string, unknown>;
  const image = async (kind: 'deployments' | 'daemonsets', name: string) => (await get(`/apis/apps/v1/namespaces/kube-system/${kind}/${name}`)).body.spec.template.spec.containers[0]?.image;

  test('v1.20.2 → v1.20.3: kubeadm-config, kube-proxy image, old-label node; kubeadm 1.20\'s lines', async () => {
    const r = await upgrade('v1.20.3');
    const cc = await clusterConfiguration();
    expect(cc.kubernetesVersion).toBe('v1.20.3');
    expect(cc.apiVersion).toBe('kubeadm.k8s.io/v1beta2');
    // 1.20 keeps ClusterStatus with this node's endpoint.
    expect(yaml.load((await cm('kubeadm-config')).body.data.ClusterStatus ?? '')).toEqual({
      apiEndpoints: { cp1: { advertiseAddress: ADVERTISE, bindPort: 6443 } }, apiVersion: 'kubeadm.k8s.io/v1beta2', kind: 'ClusterStatus',
    });
    expect(await image('daemonsets', 'kube-proxy')).toBe('k8s.gcr.io/kube-proxy:v1.20.3');
    expect(await image('deployments', 'coredns')).toBe('k8s.gcr.io/coredns:1.7.0');
    // LabelOldControlPlaneNodes: the control-plane label added, the master label kept.
    expect((await get('/api/v1/nodes/cp-old')).body.metadata.labels).toMatchObject({ 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '' });
    expect((await get('/api/v1/nodes/cp1')).body.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('/run/containerd/containerd.sock');
    expect(changes(r)).toEqual(expect.arrayContaining(['updated ConfigMap kube-system/kubeadm-config', 'updated DaemonSet kube-system/kube-proxy', 'updated Node cp-old']));
    expect(changes(r).filter((c) => !c.includes('kubelet-config-1.20'))).toEqual(['updated ConfigMap kube-system/kubeadm-config', 'updated DaemonSet kube-system/kube-proxy', 'updated Node cp-old']);
    const lines = logLines(r);
    expect(lines).toEqual(expect.arrayContaining([
      '[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace',
      '[kubelet] Creating a ConfigMap "kubelet-config-1.20" in namespace kube-system with the configuration for the kubelets in the cluster',
      '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"',
      '[bootstrap-token] configured RBAC rules to allow Node Bootstrap tokens to get nodes',
      '[bootstrap-token] configured RBAC rules to allow certificate rotation for all node client certificates in the cluster',
      '[addons] Applied essential addon: CoreDNS',
      '[addons] Applied essential addon: kube-proxy',
      "[upgrade/postupgrade] Applying label node-role.kubernetes.io/control-plane='' to Nodes with label node-role.kubernetes.io/master='' (deprecated)",
    ]));
    // No token is created and cluster-info is not rewritten.
    expect(lines.some((l) => l.includes('Using token') || l.includes('cluster-info'))).toBe(false);
    // The node's kubelet configuration is the uploaded one (kubeadm marshals one object to both).
    expect(readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8')).toBe((await cm('kubelet-config-1.20')).body.data.kubelet);
  });

  test('running the upgrade to the same version again changes nothing', async () => {
    const before = (await cm('kubeadm-config')).body.metadata.resourceVersion;
    const r = await upgrade('v1.20.3');
    expect(changes(r)).toEqual([]);
    expect(objectEvents(r).length).toBeGreaterThan(15);
    expect((await cm('kubeadm-config')).body.metadata.resourceVersion).toBe(before);
  });

  test('1.20: a kube-dns Deployment is removed once CoreDNS has a ready replica (removeOldDNSDeploymentIfAnotherDNSIsUsed)', async () => {
    const deployments = '/apis/apps/v1/namespaces/kube-system/deployments';
    const kubeDns = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kube-dns', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'old-dns' } },
        template: { metadata: { labels: { 'k8s-app': 'old-dns' } }, spec: { containers: [{ name: 'kubedns', image: 'k8s.gcr.io/k8s-dns-kube-dns:1.14.13' }] } },
      },
    };
    expect((await server.request('POST', deployments, { auth: 'admin', body: kubeDns })).status).toBe(201);
    // No controller runs here, so CoreDNS has no ready replica: kubeadm refuses to remove kube-dns yet.
    await expect(upgrade('v1.20.3')).rejects.toThrow("the DNS deployment isn't ready yet");
    expect((await get(`${deployments}/kube-dns`)).status).toBe(200);
    const ready = await server.request('PATCH', `${deployments}/coredns/status`, {
      auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { replicas: 1, readyReplicas: 1 } },
    });
    expect(ready.status).toBe(200);
    const r = await upgrade('v1.20.3');
    expect(changes(r)).toEqual(['deleted Deployment kube-system/kube-dns']);
    // Foreground deletion: without a garbage collector it stays, marked for deletion; nothing more to do.
    const after = await get(`${deployments}/kube-dns`);
    expect(after.status === 404 || (after.body.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined).toBe(true);
    expect(changes(await upgrade('v1.20.3'))).toEqual([]);
  });

  test('a dry run to v1.21.14 writes nothing to the cluster or the disk', async () => {
    const kubelet = readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8');
    const before = (await cm('kubeadm-config')).body.metadata.resourceVersion;
    const r = await upgrade('v1.21.14', { dryRun: true });
    expect(objectEvents(r).some((e) => e.action === 'created' || e.action === 'updated')).toBe(false);
    expect(objectEvents(r).some((e) => e.action === 'would-create' && e.name === 'kubelet-config-1.21')).toBe(true);
    expect((await cm('kubeadm-config')).body.metadata.resourceVersion).toBe(before);
    expect((await cm('kubelet-config-1.21')).status).toBe(404);
    expect(readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8')).toBe(kubelet);
  });

  test('v1.20.3 → v1.21.14: kubelet-config-1.21 and its RBAC, CoreDNS v1.8.0 with EndpointSlices, a customised Corefile kept with a warning', async () => {
    // "transfer" in the kubernetes block is removed in CoreDNS 1.8.0 (corefile-migration's tables).
    const custom = '.:53 {\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n       transfer to *\n    }\n    forward . 1.1.1.1\n}\n';
    const put = await server.request('PUT', '/api/v1/namespaces/kube-system/configmaps/coredns', {
      auth: 'admin',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: 'kube-system' }, data: { Corefile: custom } },
    });
    expect(put.status).toBe(200);
    const r = await upgrade('v1.21.14');
    expect((await clusterConfiguration()).kubernetesVersion).toBe('v1.21.14');
    // kubeadm 1.21 still stores v1beta2 with ClusterStatus.
    expect((await clusterConfiguration()).apiVersion).toBe('kubeadm.k8s.io/v1beta2');
    expect((await cm('kubeadm-config')).body.data.ClusterStatus).toContain('cp1');
    const kubelet121 = await cm('kubelet-config-1.21');
    expect(kubelet121.status).toBe(200);
    expect(kubelet121.body.data.kubelet).toBe((await cm('kubelet-config-1.20')).body.data.kubelet);
    const role = await get('/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/kubeadm:kubelet-config-1.21');
    expect(role.body).toMatchObject({ rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubelet-config-1.21'] }] });
    // Nodes and bootstrap tokens may read the new ConfigMap (RBAC as the API server evaluates it).
    expect((await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/kubelet-config-1.21', { auth: { token: 'abcdef.0123456789abcdef' } })).status).toBe(200);
    expect(await image('deployments', 'coredns')).toBe('k8s.gcr.io/coredns/coredns:v1.8.0');
    expect(await image('daemonsets', 'kube-proxy')).toBe('k8s.gcr.io/kube-proxy:v1.21.14');
    const corednsRole = await get('/apis/rbac.authorization.k8s.io/v1/clusterroles/system:coredns');
    expect(JSON.stringify(corednsRole.body)).toContain('endpointslices');
    expect((await cm('coredns')).body.data.Corefile).toBe(custom);
    expect(logLines(r)).toContainEqual(expect.stringMatching(/^\[addons\] the CoreDNS Configuration was not migrated: .*"transfer".*The existing CoreDNS Corefile configuration has been retained\.$/));
    // 1.21 has no LabelOldControlPlaneNodes step.
    expect(logLines(r).some((l) => l.startsWith('[upgrade/postupgrade]'))).toBe(false);
    const again = await upgrade('v1.21.14');
    expect(changes(again)).toEqual([]);
  });

  test('an edited kube-proxy configuration is kept and not re-signed (kubeadm treats an edit as the user\'s configuration)', async () => {
    const live = (await cm('kube-proxy')).body;
    const conf = live.data['config.conf'] ?? '';
    // kubeadm writes the whole KubeProxyConfiguration, zero values included: mode is "" (iptables).
    expect(conf).toMatch(/^mode: ""$/m);
    expect(live.metadata.annotations['kubeadm.kubernetes.io/component-config.hash']).toMatch(/^sha256:/);
    const edited = conf.replace(/^mode: ""$/m, 'mode: ipvs');
    expect(edited).not.toBe(conf);
    const put = await server.request('PUT', '/api/v1/namespaces/kube-system/configmaps/kube-proxy', {
      auth: 'admin', body: { ...live, data: { ...live.data, 'config.conf': edited } },
    });
    expect(put.status).toBe(200);
    const r = await upgrade('v1.21.14');
    const after = (await cm('kube-proxy')).body;
    expect(after.data['config.conf']).toBe(edited);
    // The signature over the original data stays as it was: it does not match the edit, so the
    // next upgrade treats the configuration as the user's again (kubeadm drops it; see the report).
    expect(after.metadata.annotations['kubeadm.kubernetes.io/component-config.hash']).toBe(live.metadata.annotations['kubeadm.kubernetes.io/component-config.hash']);
    expect(changes(r)).toEqual([]);
    expect(changes(await upgrade('v1.21.14'))).toEqual([]);
  });

  test('an addon whose ConfigMap is gone is not redeployed (kubeadm: "Assuming that … was not deployed")', async () => {
    expect((await server.request('DELETE', '/api/v1/namespaces/kube-system/configmaps/kube-proxy', { auth: 'admin' })).status).toBe(200);
    expect((await server.request('DELETE', '/api/v1/namespaces/kube-system/configmaps/coredns', { auth: 'admin' })).status).toBe(200);
    const r = await upgrade('v1.21.14');
    expect(changes(r)).toEqual([]);
    expect((await cm('kube-proxy')).status).toBe(404);
    expect((await cm('coredns')).status).toBe(404);
    const lines = logLines(r);
    expect(lines.some((l) => l.includes('the ConfigMap "kube-proxy" in the namespace "kube-system" was not found. Assuming that kube-proxy was not deployed for this cluster.'))).toBe(true);
    expect(lines.some((l) => l.includes('the ConfigMaps "coredns" in the namespace "kube-system" were not found. Assuming that a DNS server was not deployed for this cluster.'))).toBe(true);
  });

  test('post-upgrade of 1.24 and 1.25 (kubeadm\'s apply.go): the master label goes and the control-plane taint comes, then the master taint goes', async () => {
    const post = async (version: string): Promise<MemoryReporter> => {
      const { ctx, reporter } = upgradeCtxFor(root.dir, { settings: { kubernetesVersion: version } });
      await runPhases([upgradePostUpgradePhase], ctx, { filter: [], skip: [] });
      return reporter;
    };
    const r124 = await post('v1.24.17');
    for (const name of ['cp1', 'cp-old']) {
      const node = (await get(`/api/v1/nodes/${name}`)).body;
      expect(node.metadata.labels['node-role.kubernetes.io/master']).toBeUndefined();
      expect(node.metadata.labels['node-role.kubernetes.io/control-plane']).toBe('');
      expect(node.spec.taints).toEqual(expect.arrayContaining([{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]));
    }
    expect((await get('/api/v1/nodes/cp1')).body.spec.taints).toEqual(expect.arrayContaining([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }]));
    // 1.24 writes CRI sockets as URLs (kubeadm 1.24's AnnotateCRISocket of the converted socket).
    expect((await get('/api/v1/nodes/cp1')).body.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('unix:///run/containerd/containerd.sock');
    expect(logLines(r124)).toEqual([
      "[upgrade/postupgrade] Removing the deprecated label node-role.kubernetes.io/master='' from all control plane Nodes. After this step only the label node-role.kubernetes.io/control-plane='' will be present on control plane Nodes.",
      '[upgrade/postupgrade] Adding the new taint node-role.kubernetes.io/control-plane:NoSchedule to all control plane Nodes. After this step both taints node-role.kubernetes.io/control-plane:NoSchedule and node-role.kubernetes.io/master:NoSchedule should be present on control plane Nodes.',
    ]);
    const r125 = await post('v1.25.16');
    expect((await get('/api/v1/nodes/cp1')).body.spec.taints).not.toEqual(expect.arrayContaining([expect.objectContaining({ key: 'node-role.kubernetes.io/master' })]));
    expect(logLines(r125)).toEqual([
      '[upgrade/postupgrade] Removing the old taint node-role.kubernetes.io/master:NoSchedule from all control plane Nodes. After this step only the node-role.kubernetes.io/control-plane:NoSchedule taint will be present on control plane Nodes.',
    ]);
    expect(changes(await post('v1.25.16'))).toEqual([]);
    expect(changes(await post('v1.26.15'))).toEqual([]);
  });

  test('kubelet-config applies the kubeletconfiguration --patches where the minor has the target (1.25+), to the file only', async () => {
    const patches = root.at('/srv/patches');
    mkdirSync(patches, { recursive: true });
    writeFileSync(`${patches}/kubeletconfiguration+merge.yaml`, 'maxPods: 42\n');
    const write = async (version: string): Promise<string> => {
      const { ctx } = upgradeCtxFor(root.dir, { settings: { kubernetesVersion: version, patches: { directory: '/srv/patches' } } });
      await runPhases([upgradeKubeletConfigPhase], ctx, { filter: [], skip: [] });
      return readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8');
    };
    expect(await write('v1.21.14')).not.toContain('maxPods');
    expect(await write('v1.25.16')).toContain('maxPods: 42\n');
    expect((await cm('kubelet-config-1.21')).body.data.kubelet).not.toContain('maxPods');
  });

  test('upgrade node: kubelet-config writes the cluster\'s stored configuration for this node', async () => {
    const { ctx, reporter } = upgradeCtxFor(root.dir, { command: 'node' });
    await runPhases([upgradeKubeletConfigPhase], ctx, { filter: [], skip: [] });
    expect(readFileSync(root.at('/var/lib/kubelet/config.yaml'), 'utf8')).toBe((await cm('kubelet-config-1.21')).body.data.kubelet);
    expect(logLines(reporter)).toContain('[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"');
  });

  test('v1.21.14 → v1.22.17: kubeadm-config in v1beta3 without ClusterStatus (kubeadm 1.22), kubelet-config-1.22', async () => {
    const r = await upgrade('v1.22.17');
    const cc = await clusterConfiguration();
    expect(cc).toMatchObject({ apiVersion: 'kubeadm.k8s.io/v1beta3', kind: 'ClusterConfiguration', kubernetesVersion: 'v1.22.17' });
    expect((await cm('kubeadm-config')).body.data.ClusterStatus).toBeUndefined();
    expect((await cm('kubelet-config-1.22')).status).toBe(200);
    expect(changes(r)).toEqual(expect.arrayContaining(['updated ConfigMap kube-system/kubeadm-config', 'created ConfigMap kube-system/kubelet-config-1.22']));
    expect(changes(await upgrade('v1.22.17'))).toEqual([]);
  });

  test('upgrade apply bootstrap-token to 1.37 creates the kubeadm:apiserver-kubelet-client binding (kubeadm PR #138957); to 1.36 it does not; a second run writes nothing', async () => {
    const BINDING = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:apiserver-kubelet-client';
    const token = async (version: string): Promise<MemoryReporter> => {
      const { ctx, reporter } = upgradeCtxFor(root.dir, { settings: { kubernetesVersion: version } });
      await runPhases([upgradeBootstrapTokenPhase], ctx, { filter: [], skip: [] });
      return reporter;
    };
    expect(changes(await token('v1.36.0'))).not.toContain('created ClusterRoleBinding kubeadm:apiserver-kubelet-client');
    expect((await get(BINDING)).status).toBe(404);
    expect(changes(await token('v1.37.0'))).toContain('created ClusterRoleBinding kubeadm:apiserver-kubelet-client');
    const crb = (await get(BINDING)).body as unknown as { roleRef: unknown; subjects: unknown };
    expect(crb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' });
    expect(crb.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'kube-apiserver-kubelet-client' }]);
    expect(changes(await token('v1.37.0'))).toEqual([]);
  });

  test('post-upgrade to 1.35 removes --pod-infra-container-image from kubeadm-flags.env (kubeadm PR #133778); to 1.36 the file is left alone (PR #135807); a second run writes nothing', async () => {
    const FLAGS = '/var/lib/kubelet/kubeadm-flags.env';
    const withFlag = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10.1"\n';
    const post = async (version: string): Promise<MemoryReporter> => {
      const { ctx, reporter } = upgradeCtxFor(root.dir, { settings: { kubernetesVersion: version } });
      await runPhases([upgradePostUpgradePhase], ctx, { filter: [], skip: [] });
      return reporter;
    };
    writeFileSync(root.at(FLAGS), withFlag, { mode: 0o644 });
    await post('v1.36.0');
    expect(readFileSync(root.at(FLAGS), 'utf8')).toBe(withFlag);
    const r135 = await post('v1.35.0');
    expect(readFileSync(root.at(FLAGS), 'utf8')).toBe('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n');
    expect(logLines(r135)).toContain(`[upgrade/postupgrade] Removing the flags --pod-infra-container-image from "${FLAGS}": the kubelet of this version no longer accepts them`);
    const { statSync } = await import('node:fs');
    const inode = statSync(root.at(FLAGS)).ino;
    const again = await post('v1.35.0');
    expect(logLines(again).filter((l) => l.includes('kubeadm-flags.env'))).toEqual([]);
    expect(statSync(root.at(FLAGS)).ino).toBe(inode);
  });

  test('v1.35.4 → v1.35.5, the first 1.35 patch with kubeadm PR #138957 (cherry-pick #138959): bootstrap-token creates the kubeadm:apiserver-kubelet-client binding, the renewed apiserver-kubelet-client.crt keeps its subject, and the API server lets that user use the kubelet API', async () => {
    const BINDING = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:apiserver-kubelet-client';
    const CERT = '/etc/kubernetes/pki/apiserver-kubelet-client.crt';
    // What a kubelet's webhook authorizer asks before serving kube-apiserver's kubectl logs/exec (the user only: no O).
    const kubeletClientMay = async (): Promise<boolean> => {
      const r = await server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        auth: 'admin',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'kube-apiserver-kubelet-client', resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'proxy', name: 'cp1' } } },
      });
      expect(r.status).toBe(201);
      return (r.body as unknown as { status: { allowed?: boolean } }).status.allowed === true;
    };
    const config = (version: string) => {
      const base = fixtureInitConfig({ cluster: { kubernetesVersion: version, controlPlaneEndpoint: `127.0.0.1:${port}` } });
      return { ...base, init: { ...base.init, localAPIEndpoint: { advertiseAddress: ADVERTISE, bindPort: 6443 } } };
    };
    const token = async (version: string): Promise<string[]> => {
      const { ctx, reporter } = upgradeCtxFor(root.dir, { settings: { kubernetesVersion: version } });
      await runPhases([upgradeBootstrapTokenPhase], ctx, { filter: [], skip: [] });
      return changes(reporter).filter((c) => c.endsWith('kubeadm:apiserver-kubelet-client'));
    };
    // A v1.35.4 cluster: no binding (the 1.37 test above made one), and the certificate init wrote
    // at v1.35.4, signed by this API server's CA (its key put beside it, as on a control plane).
    await server.request('DELETE', BINDING, { auth: 'admin' });
    writeFileSync(root.at('/etc/kubernetes/pki/ca.key'), server.caKeyPem, { mode: 0o600 });
    await runCerts(initCtxFor(config('v1.35.4'), root.dir).ctx, ['certs/apiserver-kubelet-client']);
    expect(subjectOf(root.at(CERT))).toBe('CN=kube-apiserver-kubelet-client,O=kubeadm:cluster-admins');
    const serialBefore = openssl(['x509', '-in', root.at(CERT), '-noout', '-serial']);

    // Upgrading within the patches before #138959 adds nothing.
    expect(await token('v1.35.4')).toEqual([]);
    expect((await get(BINDING)).status).toBe(404);
    expect(await kubeletClientMay()).toBe(false);

    // upgrade apply v1.35.5: kubeadm's bootstrap-token phase calls AllowAPIServerToAccessKubeletAPI.
    expect(await token('v1.35.5')).toEqual(['created ClusterRoleBinding kubeadm:apiserver-kubelet-client']);
    const crb = (await get(BINDING)).body as unknown as { roleRef: unknown; subjects: unknown };
    expect(crb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' });
    expect(crb.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'kube-apiserver-kubelet-client' }]);
    expect(await kubeletClientMay()).toBe(true);
    expect(await token('v1.35.5')).toEqual([]);

    // Its control-plane phase renews kube-apiserver's certificates (renewCertsByComponent): kubeadm's
    // renewal takes the subject from the certificate on disk (renewal/manager.go certToConfig, no
    // mutator for this certificate), so O=kubeadm:cluster-admins stays until the file is re-created;
    // the binding gives the same rights to a certificate issued without O.
    const view = initCtxFor(config('v1.35.5'), root.dir).ctx;
    await renewCertificates(view, ['apiserver-kubelet-client'], view.log, true);
    expect(subjectOf(root.at(CERT))).toBe('CN=kube-apiserver-kubelet-client,O=kubeadm:cluster-admins');
    expect(openssl(['x509', '-in', root.at(CERT), '-noout', '-serial'])).not.toBe(serialBefore);
    expect(verifyWith(root.at('/etc/kubernetes/pki/ca.crt'), root.at(CERT))).toBe(true);
  });
});
