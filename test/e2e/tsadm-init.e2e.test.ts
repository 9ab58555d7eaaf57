/**
 * `tsadm init` on a real machine of the harness (real kubelet, containerd, etcd, kube-apiserver
 * v1.20.2), then the reference kubeadm joins a second machine with the command tsadm printed.
 * Covers issue 4 (control plane on disk, wait) and issue 5 (in-cluster phases, tokens) "Done when".
 *
 * Then, on the same control plane (one init for all; these were certs-renew.e2e.test.ts and
 * gaps.e2e.test.ts, each with an init of its own, before): check-expiration agrees with the
 * reference kubeadm's (which reads the cluster's kubeadm-config), also through --kubeconfig where
 * the stored certificatesDir decides; `tsadm certs renew all --restart` renews every certificate
 * and restarts etcd, the API server, the controller-manager and the scheduler through the kubelet,
 * after which the API server serves the renewed certificate and every component works with its
 * renewed credentials. Last, `tsadm reset` honours ResetConfiguration unmountFlags on a real busy
 * mount. Needs `npm run build` (machines run bin/tsadm).
 */
import { expect } from '@jest/globals';
import https from 'node:https';
import { createHash } from 'node:crypto';
import {
  createMachine, destroyMachine, kubectl, machineExec, podPhases, provision, referenceJoin, requireComponents,
  tsadm, waitClusterReady, waitFor, writeSharedFile, kubeadmConfig, type Machine,
} from './harness.js';
import { verifyDetachedSignature } from '../../src/token/jws.js';
import { parseExpirationTable } from '../helpers/certs-lifecycle.js';

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

interface Expiration {
  certificates: { name: string; expirationDate: string | null; missing: boolean; externallyManaged: boolean }[];
  certificateAuthorities: { name: string; expirationDate: string | null }[];
}

async function expiration(): Promise<Expiration> {
  return JSON.parse((await tsadm(CP.name, ['certs', 'check-expiration', '-o', 'json'])).stdout) as Expiration;
}

/** Serial (hex) and NotAfter of the certificate the API server serves right now. */
async function servedCertificate(): Promise<string> {
  const r = await machineExec(CP.name, ['sh', '-c', `openssl s_client -connect ${CP.ip}:6443 </dev/null 2>/dev/null | openssl x509 -noout -serial -enddate`]);
  return r.stdout.trim();
}

async function fileCertificate(file: string): Promise<string> {
  return (await machineExec(CP.name, ['openssl', 'x509', '-in', file, '-noout', '-serial', '-enddate'])).stdout.trim();
}

/** When the running container of a control-plane static pod started (from its mirror pod). */
async function startedAt(component: string): Promise<number> {
  const out = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'pod', `${component}-${CP.name}`, '-o', 'jsonpath={.status.containerStatuses[0].state.running.startedAt}']);
  return out ? Date.parse(out) : 0;
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

describe('certificate lifecycle on the same control plane', () => {
  test('check-expiration lists what the reference kubeadm lists, with the same dates', async () => {
    // Both read the cluster's ClusterConfiguration through admin.conf first and say so in the same
    // lines before the table.
    const oursOut = (await tsadm(CP.name, ['certs', 'check-expiration'])).stdout;
    const theirsOut = (await machineExec(CP.name, ['kubeadm', 'certs', 'check-expiration'])).stdout;
    expect(oursOut.slice(0, oursOut.indexOf('CERTIFICATE '))).toBe(theirsOut.slice(0, theirsOut.indexOf('CERTIFICATE ')));
    const ours = parseExpirationTable(oursOut.slice(oursOut.indexOf('CERTIFICATE ')));
    const theirs = parseExpirationTable(theirsOut.slice(theirsOut.indexOf('CERTIFICATE ')));
    expect(ours.certificates.map((r) => r.name)).toHaveLength(10);
    expect(ours.certificates.map(({ ca: _ca, ...r }) => r)).toEqual(theirs.certificates.map(({ ca: _ca, ...r }) => r));
    expect(ours.cas).toEqual(theirs.cas);
    const json = await expiration();
    expect(json.certificates.every((c) => !c.missing && !c.externallyManaged)).toBe(true);
  }, 2 * MIN);

  test('renew all --restart: every certificate renewed, the API server serves the new one after its restart, all components work', async () => {
    const before = await expiration();
    const servedBefore = await servedCertificate();
    expect(servedBefore).toBe(await fileCertificate('/etc/kubernetes/pki/apiserver.crt'));
    const apiserverStarted = await startedAt('kube-apiserver');
    await new Promise((r) => setTimeout(r, 1500)); // new NotAfter dates differ from the old ones by at least a second
    const t0 = Date.now();

    const r = await tsadm(CP.name, ['certs', 'renew', 'all', '--restart'], { timeoutMs: 10 * MIN });
    expect(r.stdout.match(/^\[renew\] .* renewed$/gm)).toHaveLength(10);
    for (const c of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      expect(r.stdout).toContain(`[restart] ${c} restarted and healthy`);
    }

    // served: the renewed certificate on disk, not the one served before
    const served = await servedCertificate();
    expect(served).not.toBe(servedBefore);
    expect(served).toBe(await fileCertificate('/etc/kubernetes/pki/apiserver.crt'));

    // every date moved forward
    const after = await expiration();
    for (const c of after.certificates) {
      const old = before.certificates.find((b) => b.name === c.name);
      expect([c.name, Date.parse(c.expirationDate ?? '') > Date.parse(old?.expirationDate ?? '')]).toEqual([c.name, true]);
    }
    expect(after.certificateAuthorities).toEqual(before.certificateAuthorities.map((ca) => ({ ...ca, residualTime: expect.any(Number) })));

    // the containers really restarted, and with their renewed credentials they work:
    // kubectl uses the renewed admin.conf; the scheduler and the controller-manager renew their leases
    expect(await startedAt('kube-apiserver')).toBeGreaterThan(apiserverStarted);
    for (const lease of ['kube-scheduler', 'kube-controller-manager']) {
      await waitFor(async () => {
        const renewTime = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'lease', lease, '-o', 'jsonpath={.spec.renewTime}'], { reject: false });
        return Date.parse(renewTime) > t0;
      }, 3 * MIN, `${lease} to renew its lease with its new certificate`);
    }
    expect(await kubectl(CP.name, ['get', '--raw', '/readyz'])).toBe('ok');
  }, 15 * MIN);

  test('check-expiration --kubeconfig: the ClusterConfiguration of kubeadm-config decides, as for the reference kubeadm', async () => {
    // The stored certificatesDir is what both tools follow: point it at a copy of the PKI that
    // lacks the API server's certificate.
    await machineExec(CP.name, ['sh', '-c', 'rm -rf /etc/kubernetes/pki-copy && cp -a /etc/kubernetes/pki /etc/kubernetes/pki-copy && rm /etc/kubernetes/pki-copy/apiserver.crt /etc/kubernetes/pki-copy/apiserver.key']);
    const cm = await kubectl(CP.name, ['-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}']);
    expect(cm).toContain('certificatesDir: /etc/kubernetes/pki');
    const moved = cm.replace('certificatesDir: /etc/kubernetes/pki', 'certificatesDir: /etc/kubernetes/pki-copy');
    const patch = JSON.stringify({ data: { ClusterConfiguration: moved } });
    await kubectl(CP.name, ['-n', 'kube-system', 'patch', 'cm', 'kubeadm-config', '--type', 'merge', '-p', patch]);
    try {
      const ours = (await tsadm(CP.name, ['certs', 'check-expiration', '--kubeconfig', '/etc/kubernetes/admin.conf'])).stdout;
      const theirs = (await machineExec(CP.name, ['kubeadm', 'certs', 'check-expiration', '--kubeconfig', '/etc/kubernetes/admin.conf'])).stdout;
      expect(ours.split('\n').slice(0, 3)).toEqual([
        '[check-expiration] Reading configuration from the cluster...',
        "[check-expiration] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'",
        '',
      ]);
      expect(ours.split('\n').slice(0, 3)).toEqual(theirs.split('\n').slice(0, 3));
      const o = parseExpirationTable(ours.split('\n').slice(3).join('\n'));
      const t = parseExpirationTable(theirs.split('\n').slice(3).join('\n'));
      expect(o.certificates.find((c) => c.name === 'apiserver')?.missing).toBe(true);
      expect(o.certificates.filter((c) => c.missing).map((c) => c.name)).toEqual(['apiserver']);
      expect(o.certificates.map((c) => [c.name, c.missing, c.expires])).toEqual(t.certificates.map((c) => [c.name, c.missing, c.expires]));
      expect(o.cas).toEqual(t.cas);
      // --config wins over the cluster: the file's default certificatesDir has every certificate.
      const file = writeSharedFile('certs-check-expiration-defaults.yaml', 'apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\nkubernetesVersion: v1.20.2\n');
      const withConfig = (await tsadm(CP.name, ['certs', 'check-expiration', '--config', file])).stdout;
      expect(withConfig).not.toContain('Reading configuration');
      expect(parseExpirationTable(withConfig).certificates.every((c) => !c.missing)).toBe(true);
    } finally {
      await kubectl(CP.name, ['-n', 'kube-system', 'patch', 'cm', 'kubeadm-config', '--type', 'merge', '-p', JSON.stringify({ data: { ClusterConfiguration: cm } })]);
    }
  }, 3 * MIN);
});

describe('reset of the same control plane', () => {
  test('reset with unmountFlags [MNT_DETACH]: a busy mount under /var/lib/kubelet is detached (plain umount would fail) and the directory cleaned', async () => {
    const point = '/var/lib/kubelet/pods/reset-unmount-test/volumes/kubernetes.io~empty-dir/busy';
    await machineExec(CP.name, ['sh', '-c', `mkdir -p ${point} && mount -t tmpfs reset-busy-tmpfs ${point} && touch ${point}/x`]);
    // A process working inside keeps the mount busy.
    const holder = await machineExec(CP.name, ['sh', '-c', `cd ${point} && (setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!)`]);
    const holderPid = holder.stdout.trim();
    expect(holderPid).toMatch(/^\d+$/);
    const busy = await machineExec(CP.name, ['umount', point], { reject: false });
    expect(busy.exitCode).not.toBe(0);
    const cfg = writeSharedFile('reset-unmount-flags.yaml', 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\nunmountFlags: [MNT_DETACH]\n');
    const r = await tsadm(CP.name, ['reset', '--config', cfg], { timeoutMs: 4 * MIN });
    expect(r.stdout).toContain('Unmounting mounted directories in "/var/lib/kubelet"');
    expect(r.all).not.toContain(`failed to unmount ${point}`);
    const mounts = (await machineExec(CP.name, ['cat', '/proc/mounts'])).stdout;
    expect(mounts).not.toContain('reset-busy-tmpfs');
    const left = await machineExec(CP.name, ['sh', '-c', 'ls -A /var/lib/kubelet | wc -l']);
    expect(left.stdout.trim()).toBe('0');
    await machineExec(CP.name, ['kill', holderPid], { reject: false });
  }, 6 * MIN);
});
