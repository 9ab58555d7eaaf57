/**
 * join and reset on harness machines j1..j4 (10.250.0.21–24), each step a "Done when" of issue 6:
 *   tsadm init j1 + tsadm join j2 → both Ready;
 *   (was kubelet-serving-csr.e2e.test.ts, issue 30 item 3) the cluster's KubeletConfiguration, given
 *   at init, has serverTLSBootstrap: true: j2's kubelet asks for its serving certificate (signer
 *   kubernetes.io/kubelet-serving); `tsadm certs approve-kubelet-serving` approves it,
 *   kube-controller-manager signs it, and port 10250 then serves a certificate that openssl (the
 *   oracle) verifies against the cluster CA with j2's IP in its SANs. A CSR forged with j2's own node
 *   credentials for j1's IP is denied. (No other step here needs a kubelet's serving certificate:
 *   the Nodes go Ready and the joins and resets work without one, and the reference kubeadm's
 *   cluster of the last step is made with its own configuration.)
 *   (was certs-auto-renew.e2e.test.ts) `tsadm certs renew --auto` on j1 while it is the only control
 *   plane: three of its certificates are re-issued to last 2 hours (a v1beta4
 *   `certificateValidityPeriod: 2h` given to `certs renew`), then `renew --auto --within 3h` renews
 *   exactly those three (check-expiration before and after), restarts only the API server and the
 *   scheduler (their containers' start times), takes and releases the Lease, and the renewed
 *   admin.conf works with kubectl; a re-run renews nothing. The API is polled once a second
 *   throughout: with one control plane, the API server's own restart is an outage, so its length is
 *   bounded rather than zero.
 *   a wrong CA hash / a wrong token on j3 fail in discovery and leave nothing behind;
 *   tsadm join --control-plane --certificate-key on j3 → 2 healthy etcd members, both voters (on
 *   v1.20 no learner is added and nothing promoted), a second apiserver, the Node labelled and tainted;
 *   tsadm reset --force on j3 (control plane) and j2 (worker) → the etcd member and ClusterStatus
 *   entry are gone, and both machines join again;
 *   tsadm reset of j1, the reference kubeadm v1.20.2 inits a cluster there, tsadm joins worker j4 → Ready.
 * Only these machines are created and destroyed (never destroyAll: other suites share the host).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createMachine, destroyMachine, etcdGateway, kubeadmConfig, kubectl, machineExec, nodeReadiness, provision, referenceInit, requireComponents,
  tsadm, waitClusterReady, waitFor, writeSharedFile, type ExecResult, type Machine,
  commandFailure,
} from './harness.js';
import { heavyFile } from './heavy-files.js';

const J1: Machine = { name: 'j1', ip: '10.250.0.21' };
const J2: Machine = { name: 'j2', ip: '10.250.0.22' };
const J3: Machine = { name: 'j3', ip: '10.250.0.23' };
const J4: Machine = { name: 'j4', ip: '10.250.0.24' };
const ALL = [J1, J2, J3, J4];
const MIN = 60_000;
const CRI = '/run/containerd/containerd.sock';
// A control-plane join pulls the cluster's images in preflight; the CoreDNS image exists nowhere a
// machine can reach (scripts/e2e/kubeadm-config.sh), so its pull may only warn.
const CP_IMAGES = ['--ignore-preflight-errors', 'ImagePull'];

let dir: string;

interface JoinInfo { endpoint: string; token: string; hash: string; certificateKey?: string }
let joinInfo: JoinInfo;

/** The join parameters init printed (tsadm and kubeadm print the same command). */
function parseJoin(output: string): JoinInfo {
  const flat = output.replace(/\\\r?\n/g, ' ');
  const endpoint = /(?:tsadm|kubeadm) join (\S+)/.exec(flat)?.[1];
  const token = /--token (\S+)/.exec(flat)?.[1];
  const hash = /--discovery-token-ca-cert-hash (\S+)/.exec(flat)?.[1];
  const key = /--certificate-key (\S+)/.exec(flat)?.[1];
  if (!endpoint || !token || !hash) throw new Error(`no join command in:\n${output}`);
  return { endpoint, token, hash, ...(key ? { certificateKey: key } : {}) };
}

function workerJoinArgs(info: JoinInfo, overrides: Partial<JoinInfo> = {}): string[] {
  const i = { ...info, ...overrides };
  return ['join', i.endpoint, '--token', i.token, '--discovery-token-ca-cert-hash', i.hash, '--cri-socket', CRI];
}

async function tsadmOk(m: Machine, args: string[], timeoutMs = 6 * MIN): Promise<ExecResult> {
  const r = await tsadm(m.name, args, { reject: false, timeoutMs });
  if (r.exitCode !== 0) throw commandFailure(`tsadm ${args.join(' ')} on ${m.name}`, r, m.name);
  return r;
}

/** Every file under the directories join and reset touch, for before/after comparisons. */
async function stateFiles(m: Machine): Promise<string> {
  return (await machineExec(m.name, ['sh', '-c', 'find /etc/kubernetes /var/lib/kubelet /var/lib/etcd -xdev 2>/dev/null | sort'])).stdout;
}

const etcd = etcdGateway;

async function clusterStatus(cp: Machine): Promise<string> {
  return kubectl(cp.name, ['-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterStatus}']);
}

// Heavy (several control planes; may run beside the other such files, not beside ha): test/e2e/heavy-files.ts.
heavyFile('together');

beforeAll(async () => {
  await provision();
  requireComponents();
  for (const m of ALL) await destroyMachine(m.name); // leftovers of an interrupted run of this suite
  await Promise.all([J1, J2, J3].map((m) => createMachine(m.name, m.ip)));
  dir = mkdtempSync(path.join(tmpdir(), 'tsadm-e2e-csr-'));
}, 20 * MIN);

afterAll(async () => {
  for (const m of ALL) await destroyMachine(m.name).catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 5 * MIN);

/** The certificates the renew --auto test makes short-lived (and so due). */
const AUTO_SHORT = ['admin.conf', 'apiserver', 'scheduler.conf'];

interface Expiration {
  certificates: { name: string; expirationDate: string | null; residualTime: number }[];
}

async function expiration(): Promise<Expiration> {
  return JSON.parse((await tsadm(J1.name, ['certs', 'check-expiration', '-o', 'json'])).stdout) as Expiration;
}

async function startedAt(component: string): Promise<number> {
  const out = await kubectl(J1.name, ['-n', 'kube-system', 'get', 'pod', `${component}-${J1.name}`, '-o', 'jsonpath={.status.containerStatuses[0].state.running.startedAt}'], { reject: false });
  return out ? Date.parse(out) : 0;
}

interface Csr {
  metadata: { name: string };
  spec: { signerName: string; username: string };
  status?: { conditions?: { type: string; reason?: string; message?: string }[]; certificate?: string };
}

async function csrs(): Promise<Csr[]> {
  return (JSON.parse(await kubectl(J1.name, ['get', 'csr', '-o', 'json'])) as { items: Csr[] }).items;
}

/** What openssl sees on ADDRESS:10250: its verdict against CA, and the served certificate as text. */
function servedCertificate(address: string, caFile: string): { verify: string; text: string } {
  const s = spawnSync('openssl', ['s_client', '-connect', `${address}:10250`, '-CAfile', caFile, '-verify_return_error', '-showcerts'], {
    input: '', encoding: 'utf8', timeout: 15_000,
  });
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(s.stdout)?.[0];
  const verify = /Verify return code: (\d+ \([^)]*\))/.exec(s.stdout)?.[1] ?? `(no verdict; exit ${s.status}) ${s.stderr}`;
  const text = pem ? execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem, encoding: 'utf8' }) : '';
  return { verify, text };
}

describe('tsadm join and reset on the harness', () => {
  test('tsadm init on j1, tsadm join on j2: both Nodes Ready', async () => {
    // serverTLSBootstrap for the kubelet-serving test below (every kubelet of this cluster gets it).
    const base = await kubeadmConfig(J1.ip, J1.name);
    expect(base).toContain('kind: KubeletConfiguration\n');
    const config = writeSharedFile('tsadm-j1.yaml', base.replace('kind: KubeletConfiguration\n', 'kind: KubeletConfiguration\nserverTLSBootstrap: true\n'));
    const init = await tsadmOk(J1, ['init', '--config', config, '--upload-certs']);
    joinInfo = parseJoin(init.stdout);
    expect(joinInfo.endpoint).toBe(`${J1.ip}:6443`);
    expect(joinInfo.certificateKey).toMatch(/^[0-9a-f]{64}$/);

    const join = await tsadmOk(J2, workerJoinArgs(joinInfo));
    expect(join.stdout).toContain('[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap...');
    expect(join.stdout).toContain('This node has joined the cluster:');
    // The bootstrap token does not stay on disk; the kubelet has its own credentials.
    const files = await stateFiles(J2);
    expect(files).not.toContain('bootstrap-kubelet.conf');
    expect(files).toContain('/etc/kubernetes/kubelet.conf');
    expect(files).toContain('/var/lib/kubelet/pki/kubelet-client-current.pem');

    await waitClusterReady(J1, [J1, J2]);
    const node = JSON.parse(await kubectl(J1.name, ['get', 'node', 'j2', '-o', 'json'])) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: { taints?: { key: string; effect: string }[] } };
    expect(node.metadata.annotations['kubeadm.alpha.kubernetes.io/cri-socket']).toBe(CRI);
  }, 15 * MIN);

  test('serverTLSBootstrap: j2\'s serving CSR is approved and 10250 serves a cluster-CA certificate for its IP; a forged CSR is denied', async () => {
    // j2's kubelet asks for its serving certificate once its Node has addresses; nothing approves it yet.
    const pending = await waitFor(async () => (await csrs()).find((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving' && c.spec.username === `system:node:${J2.name}`), 3 * MIN, `a kubelet-serving CSR from ${J2.name}`);
    expect(pending.status?.conditions ?? []).toEqual([]);

    // --dry-run names it and changes nothing.
    const dry = await tsadmOk(J1, ['certs', 'approve-kubelet-serving', '--dry-run', '-o', 'json']);
    const result = JSON.parse(dry.stdout.trim().split('\n').pop()!) as { type: string; ok: boolean; data: { approved: { csr: string }[]; dryRun: boolean } };
    expect(result).toMatchObject({ type: 'result', ok: true, data: { dryRun: true } });
    expect(result.data.approved.map((r) => r.csr)).toContain(pending.metadata.name);
    expect((await csrs()).find((c) => c.metadata.name === pending.metadata.name)?.status?.conditions ?? []).toEqual([]);

    const run = await tsadmOk(J1, ['certs', 'approve-kubelet-serving']);
    expect(run.stdout).toContain(`Approving CertificateSigningRequest "${pending.metadata.name}"`);
    const issued = await waitFor(async () => (await csrs()).find((c) => c.metadata.name === pending.metadata.name && c.status?.certificate), 2 * MIN, 'the approved CSR signed by kube-controller-manager');
    expect(issued.status?.conditions?.[0]).toMatchObject({ type: 'Approved', reason: 'TsadmNodeAddressesMatch' });

    // The oracle: openssl from the host against j2's address, trusting only the cluster CA.
    const caFile = path.join(dir, 'ca.crt');
    writeFileSync(caFile, (await machineExec(J1.name, ['cat', '/etc/kubernetes/pki/ca.crt'])).stdout);
    const served = await waitFor(() => { const s = servedCertificate(J2.ip, caFile); return s.verify.startsWith('0 ') ? s : undefined; }, 2 * MIN, `${J2.ip}:10250 serving a certificate the cluster CA verifies`);
    expect(served.verify).toBe('0 (ok)');
    expect(served.text).toContain(`IP Address:${J2.ip}`);
    expect(served.text).toMatch(/Subject: O ?= ?system:nodes, CN ?= ?system:node:j2/);
    expect(served.text).toContain('TLS Web Server Authentication');

    // A CSR forged with j2's own node credentials, asking for the control plane's IP, is denied.
    const key = path.join(dir, 'forged.key');
    execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    const pem = execFileSync('openssl', ['req', '-new', '-key', key, '-subj', `/O=system:nodes/CN=system:node:${J2.name}`, '-addext', `subjectAltName=DNS:${J2.name},IP:${J1.ip}`], { encoding: 'utf8' });
    const forged = writeSharedFile('j2-forged-csr.json', JSON.stringify({
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'j2-forged' },
      spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'key encipherment', 'server auth'] },
    }));
    await machineExec(J2.name, ['kubectl', '--kubeconfig', '/etc/kubernetes/kubelet.conf', 'create', '-f', forged]);
    const denyRun = await tsadmOk(J1, ['certs', 'approve-kubelet-serving']);
    expect(denyRun.stdout).toContain('Denying CertificateSigningRequest "j2-forged"');
    const denied = (await csrs()).find((c) => c.metadata.name === 'j2-forged');
    expect(denied?.spec.username).toBe(`system:node:${J2.name}`);
    expect(denied?.status?.conditions?.[0]).toMatchObject({ type: 'Denied', reason: 'NameNotNodeAddress' });
    expect(denied?.status?.conditions?.[0]?.message).toContain(`IP:${J1.ip}`);
    expect(denied?.status?.certificate).toBeUndefined();
  }, 10 * MIN);

  // (was certs-auto-renew.e2e.test.ts) While j1 is the only control plane and nothing has restarted
  // there yet: its outage bound is for one control plane, and a restart back-off would slow it.
  test('certs renew --auto on j1: renews exactly the due certificates, restarts only their readers, the API comes back, kubectl works; a re-run renews nothing', async () => {
    // three certificates made short-lived, as a cluster 2 hours from their expiry
    const short = writeSharedFile(`tsadm-${J1.name}-2h.yaml`, ['apiVersion: kubeadm.k8s.io/v1beta4', 'kind: ClusterConfiguration', 'kubernetesVersion: v1.20.2', 'certificateValidityPeriod: 2h0m0s', ''].join('\n'));
    for (const name of AUTO_SHORT) await tsadm(J1.name, ['certs', 'renew', name, '--config', short]);

    const before = await expiration();
    for (const name of AUTO_SHORT) expect([name, before.certificates.find((c) => c.name === name)!.residualTime < 3 * 3600]).toEqual([name, true]);
    const started = Object.fromEntries(await Promise.all(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map(async (c) => [c, await startedAt(c)] as const)));

    // poll the API once a second while the renewal runs
    let polling = true;
    const outages: number[] = [];
    let downSince: number | undefined;
    const poller = (async () => {
      while (polling) {
        const ok = (await machineExec(J1.name, ['kubectl', '--kubeconfig', '/etc/kubernetes/admin.conf', 'get', '--raw', '/readyz', '--request-timeout=2s'], { reject: false })).exitCode === 0;
        const now = Date.now();
        if (!ok && downSince === undefined) downSince = now;
        if (ok && downSince !== undefined) { outages.push(now - downSince); downSince = undefined; }
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    const r = await tsadm(J1.name, ['certs', 'renew', '--auto', '--within', '3h'], { timeoutMs: 10 * MIN });
    await waitFor(() => Promise.resolve(downSince === undefined), 2 * MIN, 'the API to answer after the renewal');
    polling = false;
    await poller;

    expect(r.stdout).toContain(`Holding the Lease kube-system/tsadm-certs-renew as "${J1.name}"`);
    expect(r.stdout.match(/^\[renew\] .* renewed \(until /gm)).toHaveLength(AUTO_SHORT.length);
    expect(r.stdout).toContain('[restart] kube-apiserver restarted and healthy');
    expect(r.stdout).toContain('[restart] kube-scheduler restarted and healthy');
    expect(r.stdout).not.toContain('[restart] etcd');
    expect(r.stdout).not.toContain('[restart] kube-controller-manager');

    const after = await expiration();
    for (const c of after.certificates) {
      const old = before.certificates.find((b) => b.name === c.name)!;
      if (AUTO_SHORT.includes(c.name)) expect([c.name, c.residualTime > 300 * 86_400]).toEqual([c.name, true]);
      else expect([c.name, c.expirationDate]).toEqual([c.name, old.expirationDate]);
    }
    // The mirror Pods' status lags the kubelet by seconds (a full run once read kube-scheduler's
    // while it showed no running container): read until both show a container started after the
    // renewal began, or fail with the start times last seen.
    const restartedAfter = async (c: 'kube-apiserver' | 'kube-scheduler'): Promise<boolean> => (await startedAt(c)) > started[c]!;
    await waitFor(async () => (await restartedAfter('kube-apiserver')) && (await restartedAfter('kube-scheduler')), 2 * MIN,
      'kube-apiserver and kube-scheduler running in containers started after the renewal');
    expect(await startedAt('etcd')).toBe(started.etcd);
    // (kube-controller-manager is not restarted by tsadm, as its output says, but with one control
    // plane it loses its leader-election lease while the API server restarts and exits by itself;
    // the kubelet starts it again, so its start time is no oracle here)
    // one control plane: the API server's restart is the only outage, and a short one
    expect(outages.every((ms) => ms < 90_000)).toBe(true);

    // the renewed admin.conf works (the list is sorted by name: j1 before j2); the Lease is released
    expect(await kubectl(J1.name, ['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).toBe(J1.name);
    expect(await kubectl(J1.name, ['-n', 'kube-system', 'get', 'lease', 'tsadm-certs-renew', '-o', 'jsonpath={.spec.holderIdentity}'])).toBe('');

    const again = await tsadm(J1.name, ['certs', 'renew', '--auto', '--within', '3h']);
    expect(again.stdout).toContain('Nothing to renew');
    expect((await expiration()).certificates.map((c) => c.expirationDate)).toEqual(after.certificates.map((c) => c.expirationDate));
  }, 15 * MIN);

  test('a wrong CA hash fails before any credential is used and names the hash it saw; a wrong token fails clearly; neither leaves files', async () => {
    const before = await stateFiles(J3);
    const wrongHash = `sha256:${'0'.repeat(64)}`;
    const bad = await tsadm(J3.name, workerJoinArgs(joinInfo, { hash: wrongHash }), { reject: false, timeoutMs: 2 * MIN });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain(`error: error execution phase preflight: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${joinInfo.hash}" are pinned`);
    // Only the anonymous cluster-info fetch happened: the bootstrap token was never presented.
    expect(bad.stdout).toContain('(anonymous, not yet trusted)');
    expect(bad.stdout).not.toContain('Reading configuration from the cluster');

    const secret = joinInfo.token.split('.')[1] as string;
    const wrongToken = `${joinInfo.token.split('.')[0]}.${secret.split('').reverse().join('')}`;
    const badToken = await tsadm(J3.name, workerJoinArgs(joinInfo, { token: wrongToken }), { reject: false, timeoutMs: 2 * MIN });
    expect(badToken.exitCode).toBe(1);
    expect(badToken.stderr).toContain("failed to verify JWS signature of received cluster info object, can't trust this API Server");
    expect(`${badToken.stdout}${badToken.stderr}`).not.toContain(secret);

    const unknownToken = await tsadm(J3.name, workerJoinArgs(joinInfo, { token: 'zzzzzz.0123456789abcdef' }), { reject: false, timeoutMs: 2 * MIN });
    expect(unknownToken.exitCode).toBe(1);
    expect(unknownToken.stderr).toContain('token id "zzzzzz" is invalid for this cluster or it has expired');

    expect(await stateFiles(J3)).toBe(before);
  }, 10 * MIN);

  test('tsadm join --control-plane --certificate-key on j3: 2 healthy etcd members, both voters (v1.20 has no learner step), a second apiserver, the Node labelled and tainted', async () => {
    // -v 1: a learner add or a promotion would be logged at this level.
    const r = await tsadmOk(J3, [...workerJoinArgs(joinInfo), '--control-plane', '--certificate-key', joinInfo.certificateKey as string, '--apiserver-advertise-address', J3.ip, '-v', '1', ...CP_IMAGES]);
    expect(r.stdout).toContain('[etcd] Announced new etcd member joining to the existing etcd cluster');
    expect(r.stdout).toContain('[etcd] Waiting for the new etcd member to join the cluster. This can take up to 40s');
    expect(r.stdout).toContain('This node has joined the cluster and a new control plane instance was created:');
    // Kubernetes 1.20 has no EtcdLearnerMode gate (kubeadm added it in 1.27): the member is added
    // as a voter and nothing is promoted. The learner path itself is proven against real etcd in
    // test/unit/phases/join/etcd-member-join.test.ts (no newer kubelet here).
    expect(r.all).not.toContain('learner');
    expect(r.all).not.toContain('Promoting');

    const members = (await etcd(J3, `https://${J3.ip}:2379`, '/v3/cluster/member/list')).members as { name: string; clientURLs: string[]; isLearner?: boolean }[];
    expect(members.map((m) => m.name).sort()).toEqual(['j1', 'j3']);
    expect(members.every((m) => m.isLearner !== true)).toBe(true);
    const statuses = await Promise.all([J1, J3].map((m) => etcd(J3, `https://${m.ip}:2379`, '/v3/maintenance/status')));
    expect(new Set(statuses.map((s) => s.leader)).size).toBe(1);
    expect(statuses[0]?.leader).not.toBe('0');

    // The new API server answers with the cluster's CA on its own address.
    await waitFor(async () => (await machineExec(J3.name, ['kubectl', '--kubeconfig', '/etc/kubernetes/admin.conf', '--server', `https://${J3.ip}:6443`, 'get', '--raw', '/healthz'], { reject: false })).stdout === 'ok', 3 * MIN, 'the API server on j3 healthy');
    await waitFor(async () => (await nodeReadiness(J1.name)).j3 === 'True', 5 * MIN, 'j3 Ready');
    const node = JSON.parse(await kubectl(J1.name, ['get', 'node', 'j3', '-o', 'json'])) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: { taints?: { key: string; effect: string }[] } };
    expect(node.metadata.labels).toMatchObject({ 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '' });
    // The control-plane taint, once (the node controller may still hold its not-ready taint for a moment).
    expect((node.spec.taints ?? []).filter((t) => t.key === 'node-role.kubernetes.io/master'))
      .toEqual([{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }]);
    expect(await clusterStatus(J1)).toContain('j3:\n    advertiseAddress: 10.250.0.23');
  }, 10 * MIN);

  test('tsadm reset --force on j3 (control plane) and j2 (worker): etcd member and ClusterStatus entry gone; both join again', async () => {
    const r3 = await tsadmOk(J3, ['reset', '--force']);
    expect(r3.stdout).toContain('[reset] Removed etcd member "j3"');
    expect(r3.stdout).toContain('The reset process does not clean CNI configuration');
    const members = (await etcd(J1, `https://${J1.ip}:2379`, '/v3/cluster/member/list')).members as { name: string }[];
    expect(members.map((m) => m.name)).toEqual(['j1']);
    expect(await clusterStatus(J1)).not.toContain('j3:');

    await tsadmOk(J2, ['reset', '--force']);
    for (const m of [J2, J3]) {
      const left = (await machineExec(m.name, ['sh', '-c', 'find /etc/kubernetes/manifests /etc/kubernetes/pki /var/lib/kubelet /var/lib/etcd -mindepth 1; ls /etc/kubernetes/*.conf 2>/dev/null; true'])).stdout;
      expect(left.trim()).toBe('');
      // Nothing of the cluster runs any more.
      const pods = await machineExec(m.name, ['sh', '-c', 'ctr -n k8s.io tasks list -q | wc -l']);
      expect(pods.stdout.trim()).toBe('0');
    }

    // As an admin would: the old Node objects go, then the machines join again.
    await kubectl(J1.name, ['delete', 'node', 'j2', 'j3']);
    await tsadmOk(J2, workerJoinArgs(joinInfo));
    await tsadmOk(J3, [...workerJoinArgs(joinInfo), '--control-plane', '--certificate-key', joinInfo.certificateKey as string, '--apiserver-advertise-address', J3.ip, ...CP_IMAGES]);
    await waitFor(async () => {
      const ready = await nodeReadiness(J1.name);
      return ready.j2 === 'True' && ready.j3 === 'True';
    }, 5 * MIN, 'j2 and j3 Ready after rejoining');
    const again = (await etcd(J1, `https://${J1.ip}:2379`, '/v3/cluster/member/list')).members as { name: string }[];
    expect(again.map((m) => m.name).sort()).toEqual(['j1', 'j3']);
  }, 15 * MIN);

  test('tsadm reset of j1, reference kubeadm init there, tsadm join of worker j4: Ready', async () => {
    // Take the cluster's last control plane down first (j3's etcd member would otherwise keep a quorum).
    await tsadmOk(J3, ['reset', '--force']);
    await tsadmOk(J2, ['reset', '--force']);
    const reset = await tsadmOk(J1, ['reset', '--force']);
    expect(reset.stderr).not.toContain('failed to remove etcd member');
    // The harness plays systemd: `systemctl restart kubelet` (which kubeadm runs) is "want running" here.
    await machineExec(J1.name, ['sh', '-c', '"$TSADM_SERVICE_MANAGER" start kubelet']);
    const ref = await referenceInit(J1);
    const info = parseJoin(ref.output);
    await createMachine(J4.name, J4.ip);
    const join = await tsadmOk(J4, workerJoinArgs(info));
    expect(join.stdout).toContain('This node has joined the cluster:');
    await waitClusterReady(J1, [J1, J4]);
    // What tsadm wrote is what the reference kubeadm wrote on its own node for the cluster-wide settings.
    const mine = (await machineExec(J4.name, ['sha256sum', '/var/lib/kubelet/config.yaml'])).stdout.split(' ')[0];
    const theirs = (JSON.parse(await kubectl(J1.name, ['-n', 'kube-system', 'get', 'cm', 'kubelet-config-1.20', '-o', 'json'])) as { data: { kubelet: string } }).data.kubelet;
    expect(mine).toBe(createHash('sha256').update(theirs).digest('hex'));
  }, 15 * MIN);
});
