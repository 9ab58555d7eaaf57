/**
 * `tsadm init` on a real machine of the harness (real kubelet, containerd, etcd, kube-apiserver
 * v1.20.2), then the reference kubeadm joins a second machine with the command tsadm printed.
 * Covers issue 4 (control plane on disk, wait) and issue 5 (in-cluster phases, tokens) "Done when".
 */
import { expect } from '@jest/globals';
import https from 'node:https';
import { createHash } from 'node:crypto';
import {
  createMachine, destroyMachine, kubectl, machineExec, podPhases, provision, referenceJoin, requireComponents,
  tsadm, waitClusterReady, waitFor, writeSharedFile, kubeadmConfig, type Machine,
} from './harness.js';
import { verifyDetachedSignature } from '../../src/token/jws.js';

const CP: Machine = { name: 't1', ip: '10.250.0.61' };
const WORKER: Machine = { name: 't2', ip: '10.250.0.62' };
const MIN = 60_000;
const TOKEN = 'e2e0ab.0123456789abcdef';

let configPath: string;
let initOut = '';

beforeAll(async () => {
  await provision();
  requireComponents();
  for (const m of [CP, WORKER]) await destroyMachine(m.name).catch(() => undefined);
  await Promise.all([CP, WORKER].map((m) => createMachine(m.name, m.ip)));
  // A fixed token: without one, every `init phase bootstrap-token` makes a new token (as kubeadm).
  const config = (await kubeadmConfig(CP.ip, CP.name)).replace('kind: InitConfiguration\n', `kind: InitConfiguration\nbootstrapTokens:\n- token: ${TOKEN}\n  ttl: 2h0m0s\n`);
  configPath = writeSharedFile(`tsadm-${CP.name}.yaml`, config);
}, 20 * MIN);

afterAll(async () => {
  for (const m of [CP, WORKER]) await destroyMachine(m.name).catch(() => undefined);
}, 5 * MIN);

/** sha256 of each static pod manifest on the control plane. */
async function manifestHashes(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const c of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
    const r = await machineExec(CP.name, ['cat', `/etc/kubernetes/manifests/${c}.yaml`]);
    out[c] = createHash('sha256').update(r.stdout).digest('hex');
  }
  return out;
}

/** resourceVersion of each object the in-cluster phases create (kind/namespace/name). */
async function resourceVersions(): Promise<Record<string, string>> {
  const objects = [
    ['configmap', 'kube-system', 'kubeadm-config'], ['configmap', 'kube-system', 'kubelet-config-1.20'],
    ['role', 'kube-system', 'kubeadm:nodes-kubeadm-config'], ['rolebinding', 'kube-system', 'kubeadm:kubelet-config-1.20'],
    ['configmap', 'kube-public', 'cluster-info'], ['clusterrolebinding', '', 'kubeadm:kubelet-bootstrap'],
    ['clusterrolebinding', '', 'kubeadm:node-autoapprove-bootstrap'], ['clusterrole', '', 'kubeadm:get-nodes'],
    ['rolebinding', 'kube-public', 'kubeadm:bootstrap-signer-clusterinfo'],
    ['deployment', 'kube-system', 'coredns'], ['configmap', 'kube-system', 'coredns'], ['service', 'kube-system', 'kube-dns'],
    ['daemonset', 'kube-system', 'kube-proxy'], ['configmap', 'kube-system', 'kube-proxy'], ['serviceaccount', 'kube-system', 'kube-proxy'],
  ];
  const out: Record<string, string> = {};
  for (const [kind, ns, name] of objects) {
    // Controllers update a workload's status (and so its resourceVersion) as its pods start;
    // its generation changes only when someone writes its spec.
    const field = kind === 'deployment' || kind === 'daemonset' ? 'generation' : 'resourceVersion';
    const args = ['get', kind as string, name as string, '-o', `jsonpath={.metadata.${field}}`, ...(ns ? ['-n', ns] : [])];
    out[`${kind}/${ns}/${name}`] = await kubectl(CP.name, args);
  }
  return out;
}

function anonymousGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get(url, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('tsadm init on a harness machine', () => {
  test('init brings up etcd, apiserver, controller-manager and scheduler; /healthz answers ok', async () => {
    const r = await tsadm(CP.name, ['init', '--config', configPath], { timeoutMs: 8 * MIN });
    initOut = r.stdout;
    expect(r.stdout).toContain('[apiclient] All control plane components are healthy');
    expect(r.stdout).toContain('Your Kubernetes control-plane has initialized successfully!');
    expect(r.stdout).toMatch(/tsadm join 10\.250\.0\.61:6443 --token [a-z0-9]{6}\.[a-z0-9]{16} \\\n\s+--discovery-token-ca-cert-hash sha256:[0-9a-f]{64}/);
    expect((await kubectl(CP.name, ['get', '--raw', '/healthz'])).trim()).toBe('ok');
    await waitFor(async () => {
      const p = await podPhases(CP.name, 'kube-system');
      return ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].every((c) => p[`${c}-${CP.name}`] === 'Running');
    }, 4 * MIN, 'control-plane mirror pods Running');
    const node = JSON.parse(await kubectl(CP.name, ['get', 'node', CP.name, '-o', 'json'])) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: { taints?: { key: string; effect: string }[] } };
    expect(Object.keys(node.metadata.labels)).toEqual(expect.arrayContaining(['node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane']));
    expect(node.spec.taints).toEqual(expect.arrayContaining([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }]));
    expect(node.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).toBe('/run/containerd/containerd.sock');
  }, 10 * MIN);

  test('cluster-info is readable anonymously and carries a valid JWS for the init token', async () => {
    const token = /--token ([a-z0-9]{6})\.([a-z0-9]{16})/.exec(initOut);
    expect(token).not.toBeNull();
    const [, id, secret] = token as RegExpExecArray;
    const cm = await waitFor(async () => {
      const r = await anonymousGet(`https://${CP.ip}:6443/api/v1/namespaces/kube-public/configmaps/cluster-info`);
      if (r.status !== 200) return undefined;
      const body = JSON.parse(r.body) as { data: Record<string, string> };
      return body.data[`jws-kubeconfig-${id}`] ? body : undefined;
    }, 2 * MIN, 'cluster-info to be signed');
    expect(await verifyDetachedSignature(cm.data[`jws-kubeconfig-${id}`], cm.data.kubeconfig as string, id as string, secret as string)).toBe(true);
    expect(await verifyDetachedSignature(cm.data[`jws-kubeconfig-${id}`], cm.data.kubeconfig as string, id as string, 'wrongwrongwrong0')).toBe(false);
    // tsadm init signs cluster-info itself (the controller-manager signs nothing for its first
    // ~15 s): once the bootstrapsigner has synced and had its turn, it found the signature
    // current and never rewrote the ConfigMap.
    await waitFor(async () => {
      const r = await machineExec(CP.name, ['bash', '-c', 'cat /var/log/pods/kube-system_kube-controller-manager-*/kube-controller-manager/*.log']);
      return r.stdout.includes('Caches are synced for bootstrap_signer') ? true : undefined;
    }, 2 * MIN, "the controller-manager's bootstrapsigner to start");
    await new Promise((res) => setTimeout(res, 3000));
    const after = JSON.parse((await anonymousGet(`https://${CP.ip}:6443/api/v1/namespaces/kube-public/configmaps/cluster-info`)).body) as { data: Record<string, string>; metadata: { managedFields?: { manager: string }[] } };
    expect(after.data[`jws-kubeconfig-${id}`]).toBe(cm.data[`jws-kubeconfig-${id}`]);
    expect((after.metadata.managedFields ?? []).map((f) => f.manager)).not.toContain('kube-controller-manager');
    // Anonymous access stops at cluster-info.
    expect((await anonymousGet(`https://${CP.ip}:6443/api/v1/namespaces/kube-system/configmaps/kubeadm-config`)).status).toBe(403);
  }, 3 * MIN);

  // Runs after the bootstrapsigner has signed cluster-info (the test above waits for it).
  test('re-running control-plane, upload-config, mark-control-plane, bootstrap-token and addon changes nothing', async () => {
    const manifests = await manifestHashes();
    const before = await resourceVersions();
    for (const phase of [['control-plane', 'all'], ['etcd', 'local'], ['upload-config', 'all'], ['mark-control-plane'], ['bootstrap-token'], ['addon', 'all']]) {
      const r = await tsadm(CP.name, ['init', 'phase', ...phase, '--config', configPath, '-v', '1'], { timeoutMs: 2 * MIN });
      expect(r.stdout).not.toMatch(/\] (created|updated) /);
    }
    expect(await manifestHashes()).toEqual(manifests);
    expect(await resourceVersions()).toEqual(before);
  }, 6 * MIN);

  test('the reference kubeadm joins a worker with the printed command; its bootstrap CSR is auto-approved; both nodes Ready', async () => {
    const joinLine = initOut.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l.startsWith('tsadm join') && !l.includes('--control-plane')).pop();
    expect(joinLine).toBeDefined();
    const args = (joinLine as string).split(/\s+/).slice(2);
    const out = await referenceJoin(WORKER, args);
    expect(out).toContain('This node has joined the cluster');
    await waitClusterReady(CP, [CP, WORKER]);
    const csrs = (JSON.parse(await kubectl(CP.name, ['get', 'csr', '-o', 'json'])) as { items: unknown }).items as Array<{ spec: { username: string }; status: { conditions?: Array<{ type: string }>; certificate?: string } }>;
    const bootstrap = csrs.filter((c) => c.spec.username.startsWith('system:bootstrap:'));
    expect(bootstrap.length).toBeGreaterThan(0);
    for (const c of bootstrap) {
      expect(c.status.conditions?.map((x) => x.type)).toContain('Approved');
      expect(c.status.certificate).toBeTruthy();
    }
  }, 10 * MIN);

  test('tsadm token create/list/delete against the live cluster', async () => {
    const created = (await tsadm(CP.name, ['token', 'create', '--ttl', '1h', '--description', 'e2e'])).stdout.trim();
    expect(created).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    const id = created.split('.')[0] as string;
    expect((await tsadm(CP.name, ['token', 'list'])).stdout).toContain(id);
    const dup = await tsadm(CP.name, ['token', 'create', created], { reject: false });
    expect(dup.exitCode).not.toBe(0);
    expect(dup.stderr).toContain(`a token with id "${id}" already exists`);
    expect((await tsadm(CP.name, ['token', 'delete', id])).stdout).toContain(`bootstrap token "${id}" deleted`);
    const gone = await tsadm(CP.name, ['token', 'delete', id], { reject: false });
    expect(gone.exitCode).not.toBe(0);
    expect(gone.stderr).toContain('not found');
  }, 3 * MIN);
});
