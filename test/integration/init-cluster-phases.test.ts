import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureInitConfig } from '../helpers/config-fixture.js';
import { describeWithApiServer, KUBE_BIN_DIR, registerNode, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { initCtxFor, type MemoryReporter } from '../helpers/phase-ctx.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';
import type { ResolvedInitConfig } from '../../src/config/types.js';
import type { TsadmEvent } from '../../src/log/events.js';
import { runPhases } from '../../src/engine/runner.js';
import type { Phase } from '../../src/engine/phase.js';
import type { InitCtx } from '../../src/run/context.js';
import { addonPhase } from '../../src/phases/addons/addon-phase.js';
import { bootstrapTokenPhase } from '../../src/phases/cluster/bootstrap-token.js';
import { markControlPlane, markControlPlanePhase } from '../../src/phases/cluster/mark-control-plane.js';
import { showJoinCommandPhase } from '../../src/phases/cluster/show-join-command.js';
import { uploadCertsPhase } from '../../src/phases/cluster/upload-certs.js';
import { decryptBytes } from '../../src/certs/kubeadm-certs-secret.js';
import { uploadConfigPhase } from '../../src/phases/cluster/upload-config.js';
import { clusterApi } from '../../src/phases/cluster/api.js';
import { fixtureText } from '../helpers/kubeadm-fixtures.js';
import { testWithOracles, oracles } from '../helpers/oracle.js';

/**
 * The API phases of init against a real kube-apiserver v1.20.2: everything they create, run
 * twice (the second run must write nothing), and what the created RBAC actually allows.
 */
const TREE: Phase<InitCtx>[] = [uploadConfigPhase, uploadCertsPhase, markControlPlanePhase, bootstrapTokenPhase, addonPhase];
const TOKEN = 'abcdef.0123456789abcdef';
const CERT_KEY = '0f'.repeat(32);

describeWithApiServer('init API phases on a real cluster', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let port: string;

  const pkiFiles: Record<string, string> = {};
  beforeAll(async () => {
    server = await startApiServer();
    port = new URL(server.url).port;
    for (const f of ['ca.key', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'sa.pub', 'sa.key', 'etcd/ca.crt', 'etcd/ca.key']) pkiFiles[f] = `-----FAKE ${f}-----\n`;
    pkiFiles['ca.crt'] = server.caPem;
    root = tempRoot({
      '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 },
      '/var/lib/kubelet/config.yaml': fixtureText('kubeadm-1.20-kubelet-config.yaml'),
      ...Object.fromEntries(Object.entries(pkiFiles).map(([k, v]) => [`/etc/kubernetes/pki/${k}`, v])),
    });
    // What the kubelet does when it registers (tsadm waits for the hostname label).
    const node = await registerNode(server, 'cp1');
    expect(node.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  function config(version = 'v1.20.2', over: Partial<ResolvedInitConfig['init']> = {}): ResolvedInitConfig {
    const base = fixtureInitConfig({
      cluster: { kubernetesVersion: version, controlPlaneEndpoint: `127.0.0.1:${port}`, networking: { serviceSubnet: '10.96.0.0/12', podSubnet: '10.244.0.0/16', dnsDomain: 'cluster.local' } },
    });
    return { ...base, init: { ...base.init, localAPIEndpoint: { advertiseAddress: '127.0.0.1', bindPort: Number(port) }, ...over } };
  }

  function ctxFor(cfg: ResolvedInitConfig, opts: { dryRun?: boolean; uploadCerts?: boolean } = {}): { ctx: InitCtx; reporter: MemoryReporter } {
    const { ctx, reporter } = initCtxFor(cfg, root.dir, { ...(opts.dryRun ? { dryRun: true } : {}) });
    return { ctx: { ...ctx, options: { ...ctx.options, uploadCerts: opts.uploadCerts ?? false } }, reporter };
  }

  const objectEvents = (r: MemoryReporter) => r.events.filter((e): e is Extract<TsadmEvent, { type: 'object' }> => e.type === 'object');
  const logLines = (r: MemoryReporter) => r.events.flatMap((e) => (e.type === 'log' && e.verbosity === 0 ? [`[${e.prefix ?? e.phase}] ${e.message}`] : []));

  async function resourceVersions(events: ReturnType<typeof objectEvents>): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const e of events) {
      const group = ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(e.kind) ? 'apis/rbac.authorization.k8s.io/v1' : ['Deployment', 'DaemonSet'].includes(e.kind) ? 'apis/apps/v1' : 'api/v1';
      const plural = `${e.kind.toLowerCase()}${e.kind.endsWith('s') ? 'es' : 's'}`;
      const p = `/${group}/${e.namespace ? `namespaces/${e.namespace}/` : ''}${plural}/${encodeURIComponent(e.name)}`;
      const r = await server.request('GET', p, { auth: 'admin' });
      expect(r.status).toBe(200);
      out[`${e.kind} ${e.namespace ?? ''}/${e.name}`] = r.body.metadata.resourceVersion;
    }
    return out;
  }

  test('first run creates every object of docs/kubeadm-reference.md §6 and §7 and logs kubeadm\'s lines', async () => {
    const { ctx, reporter } = ctxFor(config());
    await runPhases(TREE, ctx, { filter: [], skip: [] });
    const created = objectEvents(reporter).filter((e) => e.action === 'created').map((e) => `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`);
    expect(created).toEqual([
      'ConfigMap kube-system/kubeadm-config', 'Role kube-system/kubeadm:nodes-kubeadm-config', 'RoleBinding kube-system/kubeadm:nodes-kubeadm-config',
      'ConfigMap kube-system/kubelet-config-1.20', 'Role kube-system/kubeadm:kubelet-config-1.20', 'RoleBinding kube-system/kubeadm:kubelet-config-1.20',
      'Secret kube-system/bootstrap-token-abcdef',
      'ClusterRole kubeadm:get-nodes', 'ClusterRoleBinding kubeadm:get-nodes', 'ClusterRoleBinding kubeadm:kubelet-bootstrap',
      'ClusterRoleBinding kubeadm:node-autoapprove-bootstrap', 'ClusterRoleBinding kubeadm:node-autoapprove-certificate-rotation',
      'ConfigMap kube-public/cluster-info', 'Role kube-public/kubeadm:bootstrap-signer-clusterinfo', 'RoleBinding kube-public/kubeadm:bootstrap-signer-clusterinfo',
      'ConfigMap kube-system/coredns', 'ClusterRole system:coredns', 'ClusterRoleBinding system:coredns', 'ServiceAccount kube-system/coredns',
      'Deployment kube-system/coredns', 'Service kube-system/kube-dns',
      'ServiceAccount kube-system/kube-proxy', 'ConfigMap kube-system/kube-proxy', 'DaemonSet kube-system/kube-proxy',
      'ClusterRoleBinding kubeadm:node-proxier', 'Role kube-system/kube-proxy', 'RoleBinding kube-system/kube-proxy',
    ]);
    expect(objectEvents(reporter).filter((e) => e.action === 'updated').map((e) => `${e.kind}/${e.name}`)).toEqual(['Node/cp1', 'Node/cp1']);
    expect(logLines(reporter)).toEqual([
      '[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace',
      '[kubelet] Creating a ConfigMap "kubelet-config-1.20" in namespace kube-system with the configuration for the kubelets in the cluster',
      '[upload-certs] Skipping phase. Please see --upload-certs',
      '[mark-control-plane] Marking the node cp1 as control-plane by adding the labels "node-role.kubernetes.io/master=\'\'" and "node-role.kubernetes.io/control-plane=\'\' (deprecated)"',
      '[mark-control-plane] Marking the node cp1 as control-plane by adding the taints [node-role.kubernetes.io/master:NoSchedule]',
      `[bootstrap-token] Using token: ${TOKEN}`,
      '[bootstrap-token] Configuring bootstrap tokens, cluster-info ConfigMap, RBAC Roles',
      '[bootstrap-token] configured RBAC rules to allow Node Bootstrap tokens to get nodes',
      '[bootstrap-token] configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials',
      '[bootstrap-token] configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token',
      '[bootstrap-token] configured RBAC rules to allow certificate rotation for all node client certificates in the cluster',
      '[bootstrap-token] Creating the "cluster-info" ConfigMap in the "kube-public" namespace',
      '[addons] Applied essential addon: CoreDNS',
      '[addons] Applied essential addon: kube-proxy',
    ]);
    const node = await server.request('GET', '/api/v1/nodes/cp1', { auth: 'admin' });
    expect(node.body.metadata.labels).toMatchObject({ 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '' });
    expect(node.body.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('/run/containerd/containerd.sock');
    // TaintNodesByCondition added not-ready at registration; kubeadm keeps existing taints after its own.
    expect(node.body.spec.taints).toEqual([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const svc = await server.request('GET', '/api/v1/namespaces/kube-system/services/kube-dns', { auth: 'admin' });
    expect(svc.body.spec.clusterIP).toBe('10.96.0.10');
  });

  test('running every phase again writes nothing: all unchanged, resourceVersions identical', async () => {
    const first = ctxFor(config());
    await runPhases(TREE, first.ctx, { filter: [], skip: [] });
    const before = await resourceVersions(objectEvents(first.reporter));
    const second = ctxFor(config());
    await runPhases(TREE, second.ctx, { filter: [], skip: [] });
    expect(new Set(objectEvents(second.reporter).map((e) => e.action))).toEqual(new Set(['unchanged']));
    expect(await resourceVersions(objectEvents(second.reporter))).toEqual(before);
  });

  test('dry-run over the live cluster: a changed config shows would-update, nothing is written', async () => {
    const changed = config();
    const cfg = { ...changed, cluster: { ...changed.cluster, networking: { ...changed.cluster.networking, dnsDomain: 'example.internal' } } };
    const real = ctxFor(config());
    await runPhases(TREE, real.ctx, { filter: [], skip: [] });
    const before = await resourceVersions(objectEvents(real.reporter));
    const dry = ctxFor(cfg, { dryRun: true });
    await runPhases(TREE, dry.ctx, { filter: [], skip: [] });
    const updates = objectEvents(dry.reporter).filter((e) => e.action === 'would-update').map((e) => `${e.kind}/${e.name}`);
    expect(updates).toEqual(['ConfigMap/kubeadm-config', 'ConfigMap/coredns']);
    expect(objectEvents(dry.reporter).some((e) => e.action === 'created' || e.action === 'updated')).toBe(false);
    expect(await resourceVersions(objectEvents(real.reporter))).toEqual(before);
    expect(logLines(dry.reporter)).toContain('[dryrun] Would perform action UPDATE on resource "configmaps" in API group "core/v1"');
  });

  test('cluster-info is readable anonymously, nothing else is', async () => {
    const info = await server.request('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info');
    expect(info.status).toBe(200);
    expect(info.body.data.kubeconfig).toContain(`server: https://127.0.0.1:${port}`);
    expect((await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config')).status).toBe(403);
    expect((await server.request('GET', '/api/v1/namespaces/kube-public/configmaps')).status).toBe(403);
  });

  test('the bootstrap token can do what joining nodes need, and no more', async () => {
    const as = { auth: { token: TOKEN } } as const;
    expect((await server.request('GET', '/api/v1/nodes/cp1', as)).status).toBe(200);
    for (const cm of ['kubeadm-config', 'kubelet-config-1.20', 'kube-proxy']) {
      expect((await server.request('GET', `/api/v1/namespaces/kube-system/configmaps/${cm}`, as)).status).toBe(200);
    }
    expect((await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/coredns', as)).status).toBe(403);
    expect((await server.request('GET', '/api/v1/namespaces/kube-system/secrets', as)).status).toBe(403);
  });

  test('a CSR posted with the bootstrap token is allowed (kubeadm:kubelet-bootstrap)', async () => {
    const dir = path.join(root.dir, 'csr');
    execFileSync('mkdir', ['-p', dir]);
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', path.join(dir, 'k'), '-out', path.join(dir, 'csr'), '-subj', '/O=system:nodes/CN=system:node:cp2'], { stdio: 'ignore' });
    const request = Buffer.from(readFileSync(path.join(dir, 'csr'))).toString('base64');
    const res = await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      auth: { token: TOKEN },
      body: {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name: 'node-csr-test' },
        spec: { request, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'key encipherment', 'client auth'] },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.spec.username).toBe('system:bootstrap:abcdef');
    // A random token is not allowed to.
    const denied = await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', { auth: { token: 'zzzzzz.0123456789abcdef' }, body: {} });
    expect(denied.status).toBe(401);
  });

  test('upload-certs: encrypted copies owned by a 2h proxy token, readable by bootstrap tokens; the key is printed once', async () => {
    const { ctx, reporter } = ctxFor(config('v1.20.2', { certificateKey: CERT_KEY }), { uploadCerts: true });
    await runPhases([uploadCertsPhase], ctx, { filter: [], skip: [] });
    expect(ctx.state.certificateKey).toBe(CERT_KEY);
    expect(logLines(reporter)).toEqual([
      '[upload-certs] Storing the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace',
      '[upload-certs] Using certificate key:',
      `[] ${CERT_KEY}`,
    ]);
    const secret = (await server.request('GET', '/api/v1/namespaces/kube-system/secrets/kubeadm-certs', { auth: { token: TOKEN } })).body;
    const key = Buffer.from(CERT_KEY, 'hex');
    for (const [file, content] of Object.entries(pkiFiles)) {
      expect(decryptBytes(Buffer.from(secret.data[file.replace('/', '-')]!, 'base64'), key).toString()).toBe(content);
    }
    const owner = secret.metadata.ownerReferences[0];
    const proxy = (await server.request('GET', `/api/v1/namespaces/kube-system/secrets/${owner!.name}`, { auth: 'admin' })).body;
    expect(owner).toEqual({ apiVersion: 'v1', kind: 'Secret', name: proxy.metadata.name, uid: proxy.metadata.uid, controller: true, blockOwnerDeletion: true });
    const data = Object.fromEntries(Object.entries(proxy.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    expect(Object.keys(data).sort()).toEqual(['description', 'expiration', 'token-id', 'token-secret']);
    expect(data.description).toBe('Proxy for managing TTL for the kubeadm-certs secret');
    const ttl = Date.parse(data.expiration as string) - Date.now();
    expect(ttl).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(2 * 3600_000);
  });

  test('a bad --certificate-key fails before anything is written', async () => {
    const { ctx } = ctxFor(config('v1.20.2', { certificateKey: 'nothex' }), { uploadCerts: true });
    await expect(runPhases([uploadCertsPhase], ctx, { filter: [], skip: [] })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: /^error execution phase upload-certs: the certificate key must be 64 hexadecimal characters/ });
  });

  const kubeadmBin = path.join(KUBE_BIN_DIR, 'kubeadm');
  testWithOracles([oracles.kubeadm])('kubeadm v1.20.2\'s own kubeadm-certs Secret decrypts with tsadm (same AES-GCM layout)', () => {
    const cfgPath = path.join(root.dir, 'kubeadm-upload-certs.yaml');
    writeFileSync(cfgPath, [
      'apiVersion: kubeadm.k8s.io/v1beta2',
      'kind: InitConfiguration',
      `certificateKey: "${CERT_KEY}"`,
      'localAPIEndpoint: {advertiseAddress: 192.0.2.10, bindPort: 6443}',
      'nodeRegistration: {name: cp1, criSocket: /run/containerd/containerd.sock}',
      '---',
      'apiVersion: kubeadm.k8s.io/v1beta2',
      'kind: ClusterConfiguration',
      'kubernetesVersion: v1.20.2',
      `certificatesDir: ${root.at('/etc/kubernetes/pki')}`,
      '',
    ].join('\n'));
    execFileSync(kubeadmBin, ['init', 'phase', 'upload-certs', '--upload-certs', '--config', cfgPath, '--kubeconfig', server.adminKubeconfigPath], { stdio: 'pipe' });
    return server.request('GET', '/api/v1/namespaces/kube-system/secrets/kubeadm-certs', { auth: 'admin' }).then((r) => {
      expect(decryptBytes(Buffer.from(r.body.data['ca.crt']!, 'base64'), Buffer.from(CERT_KEY, 'hex')).toString()).toBe(server.caPem);
      expect(decryptBytes(Buffer.from(r.body.data['etcd-ca.key']!, 'base64'), Buffer.from(CERT_KEY, 'hex')).toString()).toBe(pkiFiles['etcd/ca.key']);
    });
  }, 30_000);

  test('mark-control-plane waits for a Node that registers late, bounded', async () => {
    const { ctx, reporter } = ctxFor(config());
    const api = await clusterApi(ctx);
    setTimeout(() => void registerNode(server, 'cp-late'), 800);
    const input = { nodeName: 'cp-late', labels: ['node-role.kubernetes.io/control-plane'], taints: [], logStyle: 'list' as const, patchNode: { timeoutMs: 15_000, intervalMs: 200, ready: () => true } };
    await expect(markControlPlane(api, input, ctx.log)).resolves.toBe('patched');
    await expect(markControlPlane(api, { ...input, nodeName: 'cp-never', patchNode: { timeoutMs: 400, intervalMs: 100 } }, ctx.log)).rejects.toMatchObject({ code: 'E_TIMEOUT' });
    expect(reporter.lines()).toContain('Marking the node cp-late as control-plane by adding the labels: [node-role.kubernetes.io/control-plane]');
  });

  test('a modern minor (1.30) over the same cluster: updates what changed, then is idempotent; cluster-admins bound', async () => {
    const first = ctxFor(config('v1.30.14'));
    await runPhases(TREE, first.ctx, { filter: [], skip: [] });
    const changed = objectEvents(first.reporter).filter((e) => e.action !== 'unchanged').map((e) => `${e.action} ${e.kind}/${e.name}`);
    expect(changed).toEqual(expect.arrayContaining([
      'created ClusterRoleBinding/kubeadm:cluster-admins', 'updated ConfigMap/kubeadm-config', 'created ConfigMap/kubelet-config',
      'updated Deployment/coredns', 'updated Service/kube-dns', 'updated ClusterRole/system:coredns',
    ]));
    const node = await server.request('GET', '/api/v1/nodes/cp1', { auth: 'admin' });
    expect(node.body.spec.taints).toEqual([
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
    ]);
    expect(node.body.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('unix:///run/containerd/containerd.sock');
    const second = ctxFor(config('v1.30.14'));
    await runPhases(TREE, second.ctx, { filter: [], skip: [] });
    expect(new Set(objectEvents(second.reporter).map((e) => e.action))).toEqual(new Set(['unchanged']));
  });

  test('show-join-command prints kubeadm\'s closing text with this cluster\'s endpoint and CA pin', async () => {
    const { ctx, reporter } = ctxFor(config());
    await runPhases([showJoinCommandPhase], ctx, { filter: [], skip: [] });
    const pin = execFileSync('sh', ['-c', 'openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | sha256sum'], { input: server.caPem, encoding: 'utf8' }).split(' ')[0];
    const output = reporter.events.flatMap((e) => (e.type === 'output' ? [e.text] : [])).join('');
    expect(output).toContain(`tsadm join 127.0.0.1:${port} --token ${TOKEN} \\\n    --discovery-token-ca-cert-hash sha256:${pin} \n`);
    expect(ctx.state.joinCommand).toBe(`tsadm join 127.0.0.1:${port} --token ${TOKEN} \\\n    --discovery-token-ca-cert-hash sha256:${pin} `);
  });

  test('1.29+: admin.conf (group kubeadm:cluster-admins) has no rights until bound; super-admin.conf binds it', async () => {
    await server.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:cluster-admins', { auth: 'admin' });
    const modernRoot = tempRoot({
      '/etc/kubernetes/admin.conf': { content: server.clientKubeconfig('kubernetes-admin', 'kubeadm:cluster-admins'), mode: 0o600 },
      '/etc/kubernetes/super-admin.conf': { content: server.clientKubeconfig('kubernetes-super-admin', 'system:masters'), mode: 0o600 },
    });
    try {
      const { ctx } = initCtxFor(config('v1.30.14'), modernRoot.dir);
      const api = await clusterApi(ctx);
      const crb = await server.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:cluster-admins', { auth: 'admin' });
      expect(crb.status).toBe(200);
      expect(crb.body.subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'kubeadm:cluster-admins' }]);
      await expect(api.list('Secret', 'kube-system')).resolves.toBeInstanceOf(Array);
    } finally {
      modernRoot.cleanup();
    }
  });

  test('1.29+ without super-admin.conf: one clear E_PRECONDITION', async () => {
    await server.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:cluster-admins', { auth: 'admin' });
    const modernRoot = tempRoot({ '/etc/kubernetes/admin.conf': { content: server.clientKubeconfig('kubernetes-admin', 'kubeadm:cluster-admins'), mode: 0o600 } });
    try {
      const { ctx } = initCtxFor(config('v1.30.14'), modernRoot.dir);
      await expect(clusterApi(ctx)).rejects.toMatchObject({ code: 'E_PRECONDITION', message: 'admin.conf may not create the kubeadm:cluster-admins ClusterRoleBinding and super-admin.conf is not usable' });
    } finally {
      modernRoot.cleanup();
    }
  });

  test('1.37 (kubeadm PR #138957): bootstrap-token binds system:kubelet-api-admin to the user kube-apiserver-kubelet-client; not at 1.36; create-or-update, then idempotent', async () => {
    const BINDING = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:apiserver-kubelet-client';
    // What a kubelet's webhook authorizer asks the API server before serving kube-apiserver's kubectl logs/exec.
    const kubeletClientMay = async (verb: string, subresource: string): Promise<boolean> => {
      const r = await server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        auth: 'admin',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'kube-apiserver-kubelet-client', resourceAttributes: { verb, resource: 'nodes', subresource, name: 'cp1' } } },
      });
      expect(r.status).toBe(201);
      return (r.body as unknown as { status: { allowed?: boolean } }).status.allowed === true;
    };
    await server.request('DELETE', BINDING, { auth: 'admin' });
    const run = async (version: string) => {
      const { ctx, reporter } = ctxFor(config(version));
      await runPhases([bootstrapTokenPhase], ctx, { filter: [], skip: [] });
      return objectEvents(reporter).filter((e) => e.kind === 'ClusterRoleBinding' && e.name === 'kubeadm:apiserver-kubelet-client').map((e) => e.action);
    };
    expect(await run('v1.36.0')).toEqual([]);
    expect((await server.request('GET', BINDING, { auth: 'admin' })).status).toBe(404);
    expect(await kubeletClientMay('get', 'proxy')).toBe(false);

    expect(await run('v1.37.0')).toEqual(['created']);
    const crb = await server.request('GET', BINDING, { auth: 'admin' });
    expect(crb.status).toBe(200);
    expect((crb.body as unknown as { roleRef: unknown }).roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' });
    expect(crb.body.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'kube-apiserver-kubelet-client' }]);
    for (const sub of ['proxy', 'log', 'stats', 'metrics']) expect(await kubeletClientMay('get', sub)).toBe(true);
    expect(await kubeletClientMay('create', 'proxy')).toBe(true);

    const rv = crb.body.metadata.resourceVersion;
    expect(await run('v1.37.0')).toEqual(['unchanged']);
    expect((await server.request('GET', BINDING, { auth: 'admin' })).body.metadata.resourceVersion).toBe(rv);

    // Someone changed the subjects: kubeadm's CreateOrUpdate puts them back.
    await server.request('PATCH', BINDING, { auth: 'admin', contentType: 'application/merge-patch+json', body: { subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'someone-else' }] } });
    expect(await kubeletClientMay('get', 'proxy')).toBe(false);
    expect(await run('v1.37.0')).toEqual(['updated']);
    expect((await server.request('GET', BINDING, { auth: 'admin' })).body.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'kube-apiserver-kubelet-client' }]);
    expect(await kubeletClientMay('get', 'proxy')).toBe(true);
  });
});
