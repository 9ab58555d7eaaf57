/**
 * The one reader of kube-system/kubeadm-config (src/kube/kubeadm-config.ts), against a real
 * kube-apiserver: the API server stores and returns the ConfigMap (the oracle of what a client
 * reads), RBAC decides what a client may read.
 */
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { TsadmError } from '../../../src/errors.js';
import { getKubeSystemConfigMap, parseClusterConfiguration, readKubeadmConfig } from '../../../src/kube/kubeadm-config.js';
import { NO_RETRY } from '../../../src/kube/retry.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import type { KubeApi } from '../../../src/kube/types.js';

const CLUSTER = 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\ncontrolPlaneEndpoint: cp.example.com:6443\n';
const STATUS = [
  'apiEndpoints:',
  '  cp1:', '    advertiseAddress: 10.0.0.1', '    bindPort: 6443',
  '  cp2:', '    advertiseAddress: fd00::2', '    bindPort: 6444',
  'apiVersion: kubeadm.k8s.io/v1beta2', 'kind: ClusterStatus', '',
].join('\n');

async function rejection(p: Promise<unknown>): Promise<TsadmError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(TsadmError);
  return err as TsadmError;
}

describe('parseClusterConfiguration', () => {
  test('a mapping is its document; damaged YAML or a non-mapping is a one-line precondition error', () => {
    expect(parseClusterConfiguration(CLUSTER)).toEqual({ apiVersion: 'kubeadm.k8s.io/v1beta2', kind: 'ClusterConfiguration', kubernetesVersion: 'v1.20.2', controlPlaneEndpoint: 'cp.example.com:6443' });
    expect(() => parseClusterConfiguration('a: [')).toThrow(/^the stored ClusterConfiguration in the ConfigMap kube-system\/kubeadm-config is not valid YAML: line \d+, column \d+: [^\n]+$/);
    // Timestamps stay strings, as kubeadm's decoder reads them.
    expect(parseClusterConfiguration('kind: ClusterConfiguration\nkubernetesVersion: 2024-01-01\n').kubernetesVersion).toBe('2024-01-01');
    expect(() => parseClusterConfiguration('- a\n')).toThrow('the stored ClusterConfiguration in the ConfigMap kube-system/kubeadm-config is not a mapping');
  });
});

describeWithApiServer('readKubeadmConfig on a real API server', () => {
  let server: TestApiServer;
  const seams: Array<{ close(): void }> = [];

  const open = async (kubeconfig: string): Promise<KubeApi> => {
    const seam = createApiSeam({ readFile: () => Promise.resolve(Buffer.from(kubeconfig)) }, false);
    seams.push(seam);
    return seam.open({ path: '/etc/kubernetes/admin.conf' }, { log: new PhaseLogger(new MemoryReporter()), retry: NO_RETRY });
  };
  const put = async (data: Record<string, string> | undefined): Promise<void> => {
    await server.request('DELETE', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config', { auth: 'admin' });
    if (data === undefined) return;
    const r = await server.request('POST', '/api/v1/namespaces/kube-system/configmaps', { auth: 'admin', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: 'kube-system' }, data } });
    expect(r.status).toBe(201);
  };

  beforeAll(async () => {
    server = await startApiServer();
  }, 120_000);
  afterAll(async () => {
    for (const s of seams) s.close();
    await server?.stop();
  });

  test('a v1beta2 cluster: both texts as stored, both documents parsed', async () => {
    await put({ ClusterConfiguration: CLUSTER, ClusterStatus: STATUS });
    const c = await readKubeadmConfig(await open(server.adminKubeconfig));
    expect(c.clusterConfigurationYaml).toBe(CLUSTER);
    expect(c.clusterConfiguration).toMatchObject({ kind: 'ClusterConfiguration', kubernetesVersion: 'v1.20.2', controlPlaneEndpoint: 'cp.example.com:6443' });
    expect(c.clusterStatusYaml).toBe(STATUS);
    expect(c.clusterStatus).toEqual({ apiEndpoints: { cp1: { advertiseAddress: '10.0.0.1', bindPort: 6443 }, cp2: { advertiseAddress: 'fd00::2', bindPort: 6444 } } });
  });

  test('a v1beta3 cluster keeps no ClusterStatus', async () => {
    await put({ ClusterConfiguration: CLUSTER.replace('v1beta2', 'v1beta3') });
    const c = await readKubeadmConfig(await open(server.adminKubeconfig));
    expect(c.clusterStatusYaml).toBeUndefined();
    expect(c.clusterStatus).toBeUndefined();
  });

  test('absent: an error saying how to upload it, or undefined when asked', async () => {
    await put(undefined);
    const api = await open(server.adminKubeconfig);
    const err = await rejection(readKubeadmConfig(api));
    expect(err.code).toBe('E_PRECONDITION');
    expect(err.message).toBe('unable to fetch the kubeadm-config ConfigMap: it does not exist in the kube-system Namespace');
    expect(err.hint).toContain('tsadm init phase upload-config all');
    expect(await readKubeadmConfig(api, { ifAbsent: 'undefined' })).toBeUndefined();
    expect(await getKubeSystemConfigMap(api, 'kubelet-config-1.20', { ifAbsent: 'undefined' })).toBeUndefined();
    expect((await rejection(getKubeSystemConfigMap(api, 'kubelet-config-1.20'))).message).toBe('unable to fetch the kubelet-config-1.20 ConfigMap: it does not exist in the kube-system Namespace');
    await put({ ClusterStatus: STATUS });
    expect((await rejection(readKubeadmConfig(api))).message).toBe('the ConfigMap kube-system/kubeadm-config has no ClusterConfiguration');
    expect(await readKubeadmConfig(api, { ifAbsent: 'undefined' })).toBeUndefined();
  });

  test('damaged documents are typed one-line errors naming the ConfigMap', async () => {
    const api = await open(server.adminKubeconfig);
    await put({ ClusterConfiguration: 'kind: [' });
    const bad = await rejection(readKubeadmConfig(api, { ifAbsent: 'undefined' }));
    expect(bad.code).toBe('E_PRECONDITION');
    expect(bad.message).toMatch(/^the stored ClusterConfiguration in the ConfigMap kube-system\/kubeadm-config is not valid YAML: [^\n]+$/);
    await put({ ClusterConfiguration: CLUSTER, ClusterStatus: 'apiEndpoints: [' });
    expect((await rejection(readKubeadmConfig(api))).message).toMatch(/^the stored ClusterStatus in the ConfigMap kube-system\/kubeadm-config is not valid YAML: /);
  });

  test('credentials that RBAC does not let read it: E_API, forbidden, naming whose credentials', async () => {
    await put({ ClusterConfiguration: CLUSTER });
    const api = await open(server.clientKubeconfig('nobody'));
    const err = await rejection(readKubeadmConfig(api));
    expect(err.code).toBe('E_API');
    expect(err.message).toBe('the credentials in use may not read the ConfigMap kube-system/kubeadm-config (forbidden)');
    const kubelet = await rejection(getKubeSystemConfigMap(api, 'kubelet-config-1.20', { ifAbsent: 'undefined', credentials: 'the bootstrap credentials' }));
    expect(kubelet.message).toBe('the bootstrap credentials may not read the ConfigMap kube-system/kubelet-config-1.20 (forbidden)');
  });
});
