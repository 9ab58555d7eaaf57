/**
 * Plans against a real kube-apiserver v1.20.2: a dry run of init's API phases with --plan lists
 * every object (create, or update with a field diff) and the Node patches; `tsadm apply` creates
 * exactly those objects (the kubeadm-certs Secret owned by the proxy token the apply created, not
 * by the dry run's made-up uid); a new plan of the same phases then creates nothing; and a plan
 * is refused, naming the object, once an object it read changed, or once the Node's taints
 * moved under it.
 */
import { expect } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeWithApiServer, registerNode, startApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { tempRoot, type TempRoot } from '../helpers/temp-root.js';
import type { ObjectPlanStep, Plan } from '../../src/plan/types.js';
import { readFileSync } from 'node:fs';
import { fixtureText } from '../helpers/kubeadm-fixtures.js';
import { runCli } from '../helpers/run-cli.js';

const TOKEN = 'abcdef.0123456789abcdef';
const CERT_KEY = '0f'.repeat(32);
const SKIP = 'preflight,certs,kubeconfig,kubelet-start,control-plane,etcd,wait-for-kubelet,wait-control-plane,kubelet-finalize,addon,show-join-command';

describeWithApiServer('plans of API phases on a real cluster', () => {
  let server: TestApiServer;
  let root: TempRoot;
  let config: string;

  beforeAll(async () => {
    server = await startApiServer();
    const port = new URL(server.url).port;
    root = tempRoot({
      '/etc/kubernetes/admin.conf': { content: server.adminKubeconfig, mode: 0o600 },
      '/etc/kubernetes/pki/ca.crt': server.caPem,
      '/var/lib/kubelet/config.yaml': fixtureText('kubeadm-1.20-kubelet-config.yaml'),
    });
    config = path.join(root.dir, 'cfg.yaml');
    writeFileSync(config, [
      'apiVersion: kubeadm.k8s.io/v1beta2',
      'kind: InitConfiguration',
      'bootstrapTokens:',
      `- token: ${TOKEN}`,
      `certificateKey: ${CERT_KEY}`,
      'localAPIEndpoint:',
      '  advertiseAddress: 10.250.0.51',
      'nodeRegistration:',
      '  name: cp1',
      '  criSocket: /run/containerd/containerd.sock',
      '---',
      'apiVersion: kubeadm.k8s.io/v1beta2',
      'kind: ClusterConfiguration',
      'kubernetesVersion: v1.20.2',
      `controlPlaneEndpoint: 127.0.0.1:${port}`,
      '',
    ].join('\n'));
    for (const name of ['cp1', 'cp2']) {
      const node = await registerNode(server, name);
      expect(node.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    root?.cleanup();
    await server?.stop();
  }, 30_000);

  const makePlan = async (name: string, extra: readonly string[] = []): Promise<{ file: string; plan: Plan }> => {
    const file = path.join(root.dir, `${name}.json`);
    const r = await runCli(['init', '--config', config, '--rootfs', root.dir, '--upload-certs', '--plan', file, '--skip-phases', SKIP, ...extra]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return { file, plan: JSON.parse(readFileSync(file, 'utf8')) as Plan };
  };
  const objects = (plan: Plan): ObjectPlanStep[] => plan.steps.filter((s): s is ObjectPlanStep => s.type === 'object');
  const get = async (p: string) => (await server.request('GET', p, { auth: 'admin' })).body;

  test('plan, apply, re-plan: the objects are created exactly once, owners resolved', async () => {
    const { file, plan } = await makePlan('first');
    expect(plan.preconditions.clusters).toEqual([{ kubeconfig: '/etc/kubernetes/admin.conf', server: server.url, reachable: true }]);
    expect(plan.steps.some((s) => s.type === 'wait')).toBe(false); // the cluster is up already
    const steps = objects(plan);
    const creates = steps.filter((s) => s.verb === 'create').map((s) => `${s.kind} ${s.name}`);
    expect(creates).toEqual(expect.arrayContaining([
      'ConfigMap kubeadm-config', 'ConfigMap kubelet-config-1.20', 'Secret kubeadm-certs', 'Secret bootstrap-token-abcdef', 'ConfigMap cluster-info',
      'ClusterRoleBinding kubeadm:kubelet-bootstrap',
    ]));
    // Absent objects are preconditions too: they must still be absent (or as planned) at apply time.
    expect(plan.preconditions.objects).toEqual(expect.arrayContaining([{ kubeconfig: '/etc/kubernetes/admin.conf', kind: 'ConfigMap', namespace: 'kube-system', name: 'kubeadm-config', resourceVersion: null }]));
    const patches = steps.filter((s) => s.verb === 'patch');
    expect(patches.map((s) => s.phase)).toEqual(['upload-config/kubelet', 'mark-control-plane']);
    const certs = steps.find((s) => s.verb === 'create' && s.name === 'kubeadm-certs') as ObjectPlanStep & { object: Record<string, unknown> };
    const owner = (certs.object.metadata as { ownerReferences: Array<{ uid: string; name: string }> }).ownerReferences[0]!;
    expect(owner.uid).toMatch(/^dry-run-\d+$/);

    const applied = await runCli(['apply', file, '--rootfs', root.dir, '-o', 'json']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const cm = await get('/api/v1/namespaces/kube-system/configmaps/kubeadm-config');
    expect(cm.data.ClusterConfiguration).toContain('kubernetesVersion: v1.20.2');
    const node = await get('/api/v1/nodes/cp1');
    // The plan's taint is added; the not-ready taint the API server put on the new Node stays.
    expect(node.spec.taints).toEqual(expect.arrayContaining([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]));
    expect(node.metadata.labels).toMatchObject({ 'node-role.kubernetes.io/master': '', 'kubernetes.io/hostname': 'cp1' });
    expect(node.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('/run/containerd/containerd.sock');
    const liveCerts = await get('/api/v1/namespaces/kube-system/secrets/kubeadm-certs');
    const proxy = await get(`/api/v1/namespaces/kube-system/secrets/${owner.name}`);
    expect(liveCerts.metadata.ownerReferences[0]?.uid).toBe(proxy.metadata.uid);
    expect((await get('/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef')).type).toBe('bootstrap.kubernetes.io/token');

    // Planned again, the same phases create nothing: apply made what the dry run described.
    const { plan: again } = await makePlan('again');
    const creatable = objects(again).filter((s) => s.verb === 'create').map((s) => `${s.kind} ${s.name}`);
    // upload-certs renews its proxy token on every run by design (kubeadm does too).
    expect(creatable.filter((c) => !c.startsWith('Secret bootstrap-token-') || c === 'Secret bootstrap-token-abcdef')).toEqual([]);
    expect(objects(again).filter((s) => s.verb === 'patch')).toEqual([]);
    for (const s of objects(again).filter((o) => o.verb === 'update')) {
      // What changes is named field by field, e.g. the token's expiration or the re-encrypted certs.
      expect('diff' in s && s.diff ? s.diff.length : 0).toBeGreaterThan(0);
    }
  }, 120_000);

  test('apply refuses, naming the object, when an object the plan read changed since', async () => {
    const { file, plan } = await makePlan('stale');
    const rv = plan.preconditions.objects.find((o) => o.name === 'kubeadm-config')?.resourceVersion;
    expect(rv).toMatch(/^\d+$/);
    const cm = await get('/api/v1/namespaces/kube-system/configmaps/kubeadm-config');
    const put = await server.request('PUT', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config', {
      auth: 'admin', body: { ...cm, data: { ...cm.data, edited: 'by someone' } },
    });
    expect(put.status).toBe(200);
    const r = await runCli(['apply', file, '--rootfs', root.dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`ConfigMap kube-system/kubeadm-config: changed since the plan was made (resourceVersion ${rv} → ${put.body.metadata.resourceVersion})`);
  }, 60_000);

  test('a Node patch is refused when the keys it changes moved under it; other Node changes do not matter', async () => {
    const file = path.join(root.dir, 'cp2.json');
    const cfg2 = path.join(root.dir, 'cfg2.yaml');
    writeFileSync(cfg2, readFileSync(config, 'utf8').replace('name: cp1', 'name: cp2'));
    const r = await runCli(['init', 'phase', 'mark-control-plane', '--config', cfg2, '--rootfs', root.dir, '--plan', file]);
    expect(r.code).toBe(0);
    const patchNode = (labels: Record<string, string>) => server.request('PATCH', '/api/v1/nodes/cp2', {
      auth: 'admin', body: { metadata: { labels } }, contentType: 'application/strategic-merge-patch+json',
    });
    expect((await patchNode({ unrelated: 'yes' })).status).toBe(200);
    expect((await runCli(['apply', file, '--rootfs', root.dir, '--dry-run'])).code).toBe(0);
    expect((await patchNode({ 'node-role.kubernetes.io/master': 'someone-else' })).status).toBe(200);
    const refused = await runCli(['apply', file, '--rootfs', root.dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Node cp2 changed since the plan was made: label node-role.kubernetes.io/master is "someone-else", the plan expected absent');
    const node = await get('/api/v1/nodes/cp2');
    expect(JSON.stringify(node.spec.taints ?? [])).not.toContain('node-role.kubernetes.io/master');
  }, 60_000);
});
