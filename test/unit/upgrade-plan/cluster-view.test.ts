import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { fixtureText, kubeadmObjects } from '../../helpers/kubeadm-fixtures.js';
import { tempRoot, type TempRoot } from '../../helpers/temp-root.js';
import { RootedHost } from '../../../src/host/rooted-host.js';
import { RestKubeApi } from '../../../src/kube/rest-api.js';
import { transportFromKubeconfig } from '../../../src/kube/transport.js';
import type { ConfigMapObject, NodeObject } from '../../../src/kube/types.js';
import { readUpgradeCluster, targetInitConfig, type UpgradeClusterView } from '../../../src/upgrade-plan/cluster-view.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** kubeadm v1.20.2's own kube-apiserver manifest (its advertise-address annotation is the oracle). */
const KUBEADM_APISERVER_MANIFEST = readFileSync(path.join(here, '../../fixtures/manifests/v1.20.2/full/kube-apiserver.yaml'), 'utf8');
/** What kubeadm v1.20.2 stored in kubeadm-config (its dry-run output). */
const STORED = kubeadmObjects('kubeadm-1.20-cluster-objects.yaml').find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'kubeadm-config') as ConfigMapObject;
const KUBELET_YAML = fixtureText('kubeadm-1.20-kubelet-config.yaml');

function view(over: Partial<UpgradeClusterView> = {}): UpgradeClusterView {
  return {
    texts: { clusterConfigurationYaml: STORED.data!.ClusterConfiguration!, clusterStatusYaml: STORED.data!.ClusterStatus, kubeletConfigurationYaml: KUBELET_YAML },
    storedVersion: 'v1.20.2',
    serverVersion: 'v1.20.2',
    kubeletVersions: ['v1.20.2'],
    nodes: [],
    nodeName: 'cp1',
    node: {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name: 'cp1', annotations: { 'kubeadm.alpha.kubernetes.io/cri-socket': '/run/containerd/containerd.sock' } },
      spec: { taints: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }] },
    },
    controlPlane: true,
    localAPIEndpoint: { advertiseAddress: '192.168.10.11', bindPort: 6443 },
    ...over,
  };
}

describe('targetInitConfig', () => {
  const now = new Date('2026-11-25T12:00:00Z');

  test('keeps the stored ClusterConfiguration and changes only the version', () => {
    const t = targetInitConfig(view(), { version: 'v1.20.3', ignorePreflightErrors: [], now });
    expect(t.cfg.cluster.kubernetesVersion).toBe('v1.20.3');
    // The values kubeadm stored, carried over.
    expect(t.cfg.cluster.controlPlaneEndpoint).toBe('cp.example.com:6443');
    expect(t.cfg.cluster.networking.podSubnet).toBe('10.244.0.0/16');
    expect(t.cfg.cluster.imageRepository).toBe('k8s.gcr.io');
    expect(t.cfg.cluster.apiServer.extraArgs).toEqual([{ name: 'authorization-mode', value: 'Node,RBAC' }]);
    expect(t.versions.kubelet.configMapName).toBe('kubelet-config-1.20');
  });

  test("takes this node's registration from its Node and its endpoint from the local manifest", () => {
    const t = targetInitConfig(view(), { version: 'v1.20.3', ignorePreflightErrors: ['all'], patchesDir: '/p', now });
    expect(t.cfg.init.nodeRegistration.name).toBe('cp1');
    expect(t.cfg.init.nodeRegistration.criSocket).toBe('/run/containerd/containerd.sock');
    expect(t.cfg.init.nodeRegistration.taints).toEqual([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }]);
    expect(t.cfg.init.nodeRegistration.ignorePreflightErrors).toEqual(['all']);
    expect(t.cfg.init.localAPIEndpoint).toEqual({ advertiseAddress: '192.168.10.11', bindPort: 6443 });
    expect(t.cfg.init.patches).toEqual({ directory: '/p' });
    expect(t.cfg.init.bootstrapTokens).toEqual([]);
  });

  test('a given ClusterConfiguration replaces the stored one (kubeadm 1.20 --config flow)', () => {
    const text = STORED.data!.ClusterConfiguration!.replace('podSubnet: 10.244.0.0/16', 'podSubnet: 10.32.0.0/12');
    const t = targetInitConfig(view(), { version: 'v1.20.3', clusterOverride: { text, source: 'new.yaml' }, ignorePreflightErrors: [], now });
    expect(t.cfg.cluster.networking.podSubnet).toBe('10.32.0.0/12');
  });

  test("a worker's placeholder endpoint is its Node's InternalIP (no default route needed)", () => {
    const worker = view({
      nodeName: 'w1', controlPlane: false, localAPIEndpoint: undefined,
      node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' }, status: { addresses: [{ type: 'Hostname', address: 'w1' }, { type: 'InternalIP', address: '10.0.0.7' }] } },
    });
    const t = targetInitConfig(worker, { version: 'v1.20.3', ignorePreflightErrors: [], now });
    expect(t.cfg.init.localAPIEndpoint).toEqual({ advertiseAddress: '10.0.0.7', bindPort: 6443 });
    expect(t.cfg.init.nodeRegistration.name).toBe('w1');
  });

  test('a damaged stored configuration is a one-line error pointing at kubeadm-config', () => {
    const bad = view({ texts: { ...view().texts, clusterConfigurationYaml: 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nnetworking:\n  podSubnet: not-a-cidr\n' } });
    expect(() => targetInitConfig(bad, { version: 'v1.20.3', ignorePreflightErrors: [], now })).toThrow(/could not be read for the upgrade to v1.20.3/);
    const none = view({ texts: { ...view().texts, clusterConfigurationYaml: 'kind: Other\n' } });
    expect(() => targetInitConfig(none, { version: 'v1.20.3', ignorePreflightErrors: [], now })).toThrow(/no ClusterConfiguration document/);
  });
});

describeWithApiServer('readUpgradeCluster on a real API server', () => {
  let server: TestApiServer;
  let root: TempRoot;

  beforeAll(async () => {
    server = await startApiServer();
    for (const cm of [
      { metadata: { name: 'kubeadm-config', namespace: 'kube-system' }, data: STORED.data },
      { metadata: { name: 'kubelet-config-1.20', namespace: 'kube-system' }, data: { kubelet: KUBELET_YAML } },
    ]) {
      const r = await server.request('POST', '/api/v1/namespaces/kube-system/configmaps', { auth: 'admin', body: { apiVersion: 'v1', kind: 'ConfigMap', ...cm } });
      expect(r.status).toBe(201);
    }
    for (const [name, kubelet] of [['cp1', 'v1.20.2'], ['w1', 'v1.19.7']] as const) {
      const r = await server.request('POST', '/api/v1/nodes', {
        auth: 'admin',
        body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: name === 'cp1' ? { 'node-role.kubernetes.io/master': '' } : {} } },
      });
      expect(r.status).toBe(201);
      const s = await server.request('PATCH', `/api/v1/nodes/${name}/status`, {
        auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { nodeInfo: { kubeletVersion: kubelet } } },
      });
      expect(s.status).toBe(200);
    }
    root = tempRoot({
      '/etc/kubernetes/manifests/kube-apiserver.yaml': KUBEADM_APISERVER_MANIFEST,
      '/etc/kubernetes/kubelet.conf': server.clientKubeconfig('system:node:cp1', 'system:nodes'),
    });
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  test('reads the stored config, the versions, this node and its endpoint; writes nothing', async () => {
    const api = new RestKubeApi(await transportFromKubeconfig(server.adminKubeconfig, 'admin.conf'));
    try {
      const before = (await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config', { auth: 'admin' })).body.metadata.resourceVersion;
      const v = await readUpgradeCluster(api, new RootedHost(root.dir), 'not-the-hostname');
      expect(v.storedVersion).toBe('v1.20.2');
      // The real API server's own version, not the stored one.
      expect(v.serverVersion).toBe('v1.20.2');
      expect([...(v.kubeletVersions ?? [])].sort()).toEqual(['v1.19.7', 'v1.20.2']);
      // kubelet.conf's client certificate names the node (kubeadm's getNodeNameFromKubeletConfig).
      expect(v.nodeName).toBe('cp1');
      expect((v.node as NodeObject).metadata.name).toBe('cp1');
      expect(v.controlPlane).toBe(true);
      expect(v.localAPIEndpoint).toEqual({ advertiseAddress: '10.250.0.2', bindPort: 6444 });
      expect(v.texts.kubeletConfigurationYaml).toBe(KUBELET_YAML);
      const after = (await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config', { auth: 'admin' })).body.metadata.resourceVersion;
      expect(after).toBe(before);
    } finally {
      api.close();
    }
  });

  test('a manifest without kubeadm\'s annotation: the endpoint from its --advertise-address and --secure-port', async () => {
    const api = new RestKubeApi(await transportFromKubeconfig(server.adminKubeconfig, 'admin.conf'));
    const plain = tempRoot({ '/etc/kubernetes/manifests/kube-apiserver.yaml': KUBEADM_APISERVER_MANIFEST.replace(/^ {4}kubeadm\.kubernetes\.io\/kube-apiserver\.advertise-address\.endpoint: .*\n/m, '') });
    try {
      expect(readFileSync(plain.at('/etc/kubernetes/manifests/kube-apiserver.yaml'), 'utf8')).not.toContain('advertise-address.endpoint');
      const v = await readUpgradeCluster(api, new RootedHost(plain.dir), 'cp1');
      expect(v.localAPIEndpoint).toEqual({ advertiseAddress: '10.250.0.2', bindPort: 6444 });
    } finally {
      plain.cleanup();
      api.close();
    }
  });

  test('a worker (no kube-apiserver manifest, no kubelet.conf) falls back to the hostname', async () => {
    const api = new RestKubeApi(await transportFromKubeconfig(server.adminKubeconfig, 'admin.conf'));
    const worker = tempRoot();
    try {
      const v = await readUpgradeCluster(api, new RootedHost(worker.dir), 'w1');
      expect(v.nodeName).toBe('w1');
      expect(v.controlPlane).toBe(false);
      expect(v.localAPIEndpoint).toBeUndefined();
    } finally {
      worker.cleanup();
      api.close();
    }
  });
});
