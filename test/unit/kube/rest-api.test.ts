import { describeWithApiServer, registerNode, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { MemoryReporter } from '../../helpers/phase-ctx.js';
import { PhaseLogger } from '../../../src/log/logger.js';
import { DryRunKubeApi } from '../../../src/kube/dry-run-api.js';
import { ApiError } from '../../../src/kube/errors.js';
import { createApiSeam } from '../../../src/kube/seam.js';
import { RestKubeApi } from '../../../src/kube/rest-api.js';
import { NO_RETRY } from '../../../src/kube/retry.js';
import { transportFromKubeconfig } from '../../../src/kube/transport.js';
import type { ConfigMapObject, KubeApi, KubeObject, NodeObject } from '../../../src/kube/types.js';

/** RestKubeApi against a real kube-apiserver v1.20.2. */
describeWithApiServer('RestKubeApi on a real API server', () => {
  let server: TestApiServer;
  let api: KubeApi;
  let reporter: MemoryReporter;

  beforeAll(async () => {
    server = await startApiServer();
    reporter = new MemoryReporter();
    const log = new PhaseLogger(reporter);
    api = await createApiSeam({ readFile: () => Promise.resolve(Buffer.from(server.adminKubeconfig)) }, false).open({ path: '/etc/kubernetes/admin.conf' }, { log });
  }, 120_000);
  afterAll(async () => {
    api?.close();
    await server?.stop();
  }, 30_000);

  const objectEvents = () => reporter.events.filter((e) => e.type === 'object');

  test('objects tsadm writes name it as their field manager (User-Agent tsadm/…)', async () => {
    await api.ensure({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'who-wrote-me', namespace: 'default' }, data: { k: 'v' } });
    const raw = await server.request('GET', '/api/v1/namespaces/default/configmaps/who-wrote-me', { auth: 'admin' });
    const managers = (raw.body.metadata.managedFields ?? []).map((f) => `${f.manager} ${f.operation}`);
    expect(managers).toEqual(['tsadm Update']);
  });

  test('Pods are listed by label (join finds the etcd members by their static pods)', async () => {
    const pod = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'kube-system', labels, annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': `https://${name}:2379` } },
      spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'registry.invalid/c' }] },
    });
    // Service-account admission looks up the Pod's account (no controller-manager makes it here).
    await api.ensure({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'kube-system' } });
    expect((await server.request('POST', '/api/v1/namespaces/kube-system/pods', { auth: 'admin', body: pod('etcd-a', { component: 'etcd', tier: 'control-plane' }) })).status).toBe(201);
    expect((await server.request('POST', '/api/v1/namespaces/kube-system/pods', { auth: 'admin', body: pod('other', { component: 'other', tier: 'control-plane' }) })).status).toBe(201);
    const listed = await api.list('Pod', 'kube-system', { labelSelector: 'component=etcd,tier=control-plane' });
    expect(listed.map((p) => p.metadata.name)).toEqual(['etcd-a']);
  });

  test('ensure: create, then unchanged (no write), then update only when different', async () => {
    const cm: ConfigMapObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ensure-me', namespace: 'default', labels: { a: '1' } }, data: { k: 'v' } };
    const first = await api.ensure(cm);
    expect(first.action).toBe('created');
    const rv = first.object.metadata.resourceVersion;
    const second = await api.ensure(cm);
    expect(second.action).toBe('unchanged');
    expect(second.object.metadata.resourceVersion).toBe(rv);
    const third = await api.ensure({ ...cm, data: { k: 'v2' } });
    expect(third.action).toBe('updated');
    expect(third.object.metadata.resourceVersion).not.toBe(rv);
    expect((await api.get<ConfigMapObject>('ConfigMap', 'ensure-me', 'default'))?.data).toEqual({ k: 'v2' });
    expect(objectEvents().filter((e) => e.type === 'object' && e.name === 'ensure-me').map((e) => e.type === 'object' && e.action)).toEqual(['created', 'unchanged', 'updated']);
  });

  test('ensure with rebase: another writer lands between read and write (a conflict); the retry re-applies this change to their version', async () => {
    const name = 'edited-by-two';
    const cm = (members: string): ConfigMapObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { members } });
    await api.ensure(cm('a'));
    const addC = (live: ConfigMapObject | undefined): ConfigMapObject => cm([...new Set([...(live?.data?.members ?? '').split(',').filter(Boolean), 'c'])].join(','));
    // The other control plane writes right after this client's first read: its PUT then conflicts.
    const target = api as { get: KubeApi['get'] };
    const realGet = api.get.bind(api);
    const statuses: number[] = [];
    target.get = (async (kind, n, ns) => {
      const live = await realGet(kind, n, ns);
      if (n === name && statuses.length === 0) {
        const other = { ...(live as ConfigMapObject), data: { members: 'a,b' } };
        statuses.push((await server.request('PUT', `/api/v1/namespaces/default/configmaps/${name}`, { auth: 'admin', body: other })).status);
      }
      return live;
    }) as KubeApi['get'];
    try {
      const result = await api.ensure(addC(undefined), 'update', addC);
      expect(statuses).toEqual([200]);
      expect(result.action).toBe('updated');
    } finally {
      target.get = realGet;
    }
    // Neither change is lost (without rebase the retry would write "a,c" over "a,b").
    expect((await api.get<ConfigMapObject>('ConfigMap', name, 'default'))?.data?.members).toBe('a,b,c');
  });

  test('retain keeps a live object that differs', async () => {
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'keep-me', namespace: 'default', labels: { v: '1' } } };
    await api.ensure(sa);
    const res = await api.ensure({ ...sa, metadata: { ...sa.metadata, labels: { v: '2' } } }, 'retain');
    expect(res.action).toBe('unchanged');
    expect(res.object.metadata.labels).toEqual({ v: '1' });
  });

  test('a Service update keeps its allocated clusterIP; defaulted fields do not count as changes', async () => {
    const svc: KubeObject = {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'default' },
      spec: { ports: [{ name: 'p', port: 80, protocol: 'TCP', targetPort: 80 }], selector: { app: 'x' } },
    };
    const created = await api.ensure(svc);
    const ip = (created.object as unknown as { spec: { clusterIP: string } }).spec.clusterIP;
    expect(ip).toMatch(/^10\./);
    expect((await api.ensure(svc)).action).toBe('unchanged');
    const updated = await api.ensure({ ...svc, metadata: { ...svc.metadata, labels: { changed: 'yes' } } });
    expect(updated.action).toBe('updated');
    expect((updated.object as unknown as { spec: { clusterIP: string } }).spec.clusterIP).toBe(ip);
  });

  test('create fails on an existing object with status 409', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'once', namespace: 'default' }, data: {} };
    await api.create(cm);
    const err = (await api.create(cm).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(409);
    expect(err.reason).toBe('AlreadyExists');
  });

  test('list with label and field selectors; delete reports whether something was deleted', async () => {
    await api.ensure({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'default', labels: { pick: 'me' } }, type: 'Opaque', data: { a: 'Yg==' } });
    await api.ensure({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2', namespace: 'default' }, type: 'kubernetes.io/basic-auth', data: { username: 'dQ==' } });
    expect((await api.list('Secret', 'default', { labelSelector: 'pick=me' })).map((s) => s.metadata.name)).toEqual(['s1']);
    const basic = await api.list('Secret', 'default', { fieldSelector: 'type=kubernetes.io/basic-auth' });
    expect(basic.map((s) => [s.kind, s.metadata.name])).toEqual([['Secret', 's2']]);
    expect(await api.delete('Secret', 's1', 'default')).toBe(true);
    expect(await api.delete('Secret', 's1', 'default')).toBe(false);
  });

  test('patchNode waits until the kubelet has registered the Node, then patches only what changed', async () => {
    const name = 'late-node';
    setTimeout(() => {
      void registerNode(server, name);
    }, 700);
    const ready = (n: NodeObject): boolean => n.metadata.labels?.['kubernetes.io/hostname'] !== undefined;
    const res = await api.patchNode(name, (n) => {
      n.metadata.labels.role = 'x';
    }, { timeoutMs: 20_000, intervalMs: 100, ready });
    expect(res).toBe('patched');
    const node = await api.get<NodeObject>('Node', name);
    expect(node?.metadata.labels).toMatchObject({ role: 'x', 'kubernetes.io/hostname': name });
    const again = await api.patchNode(name, (n) => {
      n.metadata.labels.role = 'x';
    }, { timeoutMs: 1000, ready });
    expect(again).toBe('unchanged');
    expect((await api.get<NodeObject>('Node', name))?.metadata.resourceVersion).toBe(node?.metadata.resourceVersion);
  });

  test('patchNode gives up with E_TIMEOUT when the Node never appears', async () => {
    const err = (await api.patchNode('ghost', () => undefined, { timeoutMs: 300, intervalMs: 100 }).catch((e: unknown) => e)) as Error & { code: string; hint: string };
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.message).toBe('timed out after 0s patching Node "ghost": it was not found');
    expect(err.hint).toMatch(/kubelet/);
  });

  test('healthz', async () => {
    await expect(api.healthz()).resolves.toBe(true);
  });

  test('credentials the server does not know: one E_API line, 401, no retries', async () => {
    const a = new RestKubeApi(await transportFromKubeconfig(server.tokenKubeconfig('abcdef.0123456789abcdef'), 'stale.conf'), { retry: NO_RETRY });
    const err = (await a.list('Secret', 'kube-system').catch((e: unknown) => e)) as ApiError;
    a.close();
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(401);
    expect(err.code).toBe('E_API');
    expect(err.message).toBe('list secrets: Unauthorized');
    expect(err.hint).toMatch(/rejected the kubeconfig's credentials/);
  });

  test('a user without RBAC: 403 with a hint to use the admin kubeconfig', async () => {
    const a = new RestKubeApi(await transportFromKubeconfig(server.clientKubeconfig('nobody'), 'nobody.conf'), { retry: NO_RETRY });
    const err = (await a.list('Secret', 'kube-system').catch((e: unknown) => e)) as ApiError;
    a.close();
    expect(err.status).toBe(403);
    expect(err.message).toMatch(/^list secrets: secrets is forbidden: User "nobody" cannot list resource "secrets"/);
    expect(err.hint).toMatch(/admin kubeconfig/);
  });

  test('the API seam without a kubeconfig: E_PRECONDITION naming the file', async () => {
    const log = new PhaseLogger(new MemoryReporter());
    const err = (await createApiSeam({ readFile: () => Promise.resolve(undefined) }, false).open({ path: '/etc/kubernetes/admin.conf' }, { log }).catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe('E_PRECONDITION');
    expect(err.message).toBe("couldn't read the kubeconfig /etc/kubernetes/admin.conf: no such file");
  });

  test('dry-run over the real server: reads pass through, nothing is written', async () => {
    await api.ensure({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry-existing', namespace: 'default' }, data: { k: 'v' } });
    const before = await server.request('GET', '/api/v1/namespaces/default/configmaps', { auth: 'admin' });
    const dryReporter = new MemoryReporter();
    const reader = new RestKubeApi(await transportFromKubeconfig(server.adminKubeconfig, 'admin.conf'), { retry: NO_RETRY });
    const dry = new DryRunKubeApi(reader, new PhaseLogger(dryReporter));
    expect((await dry.ensure({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry-existing', namespace: 'default' }, data: { k: 'v' } })).action).toBe('unchanged');
    expect((await dry.ensure({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry-existing', namespace: 'default' }, data: { k: 'changed' } })).action).toBe('updated');
    expect((await dry.ensure({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry-new', namespace: 'default' }, data: {} })).action).toBe('created');
    expect(await dry.delete('ConfigMap', 'dry-existing', 'default')).toBe(true);
    dry.close();
    const after = await server.request('GET', '/api/v1/namespaces/default/configmaps', { auth: 'admin' });
    const names = (r: typeof after) => (r.body.items as Array<{ metadata: { name: string; resourceVersion: string } }>).map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`);
    expect(names(after)).toEqual(names(before));
    expect(dryReporter.events.flatMap((e) => (e.type === 'object' ? [e.action] : []))).toEqual(['unchanged', 'would-update', 'would-create']);
  });
});
