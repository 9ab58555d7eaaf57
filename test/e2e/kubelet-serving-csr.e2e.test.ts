/**
 * Issue 30 item 3 on the harness: a control plane (tsadm init) and a worker (tsadm join) whose
 * KubeletConfiguration has serverTLSBootstrap: true. The worker's kubelet asks for its serving
 * certificate (signer kubernetes.io/kubelet-serving); `tsadm certs approve-kubelet-serving`
 * approves it, kube-controller-manager signs it, and port 10250 then serves a certificate that
 * openssl (the oracle) verifies against the cluster CA with the worker's IP in its SANs. A CSR
 * forged with the worker's own node credentials for the control plane's IP is denied.
 * Machines ks1 and ks2 (10.250.0.71–72) only; never destroyAll (other suites share the host).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createMachine, destroyMachine, kubeadmConfig, kubectl, machineExec, machineLog, provision, requireComponents, tsadm, waitFor, writeSharedFile,
  type ExecResult, type Machine,
} from './harness.js';

const CP: Machine = { name: 'ks1', ip: '10.250.0.71' };
const WORKER: Machine = { name: 'ks2', ip: '10.250.0.72' };
const MIN = 60_000;
const CRI = '/run/containerd/containerd.sock';

let dir: string;

beforeAll(async () => {
  await provision();
  requireComponents();
  for (const m of [CP, WORKER]) await destroyMachine(m.name).catch(() => undefined);
  await Promise.all([CP, WORKER].map((m) => createMachine(m.name, m.ip)));
  dir = mkdtempSync(path.join(tmpdir(), 'tsadm-e2e-csr-'));
}, 20 * MIN);

afterAll(async () => {
  for (const m of [CP, WORKER]) await destroyMachine(m.name).catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 5 * MIN);

async function tsadmOk(m: Machine, args: string[], timeoutMs = 6 * MIN): Promise<ExecResult> {
  const r = await tsadm(m.name, args, { reject: false, timeoutMs });
  if (r.exitCode !== 0) throw new Error(`tsadm ${args.join(' ')} on ${m.name} exited ${r.exitCode}:\n${r.all}\n--- kubelet\n${machineLog(m.name)}`);
  return r;
}

interface Csr {
  metadata: { name: string };
  spec: { signerName: string; username: string };
  status?: { conditions?: { type: string; reason?: string; message?: string }[]; certificate?: string };
}

async function csrs(): Promise<Csr[]> {
  return (JSON.parse(await kubectl(CP.name, ['get', 'csr', '-o', 'json'])) as { items: Csr[] }).items;
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

test('serverTLSBootstrap: the worker\'s serving CSR is approved and 10250 serves a cluster-CA certificate for its IP; a forged CSR is denied', async () => {
  const base = await kubeadmConfig(CP.ip, CP.name);
  const config = writeSharedFile(`tsadm-${CP.name}.yaml`, base.replace('kind: KubeletConfiguration\n', 'kind: KubeletConfiguration\nserverTLSBootstrap: true\n'));
  const init = await tsadmOk(CP, ['init', '--config', config]);
  const flat = init.stdout.replace(/\\\r?\n/g, ' ');
  const token = /--token (\S+)/.exec(flat)?.[1];
  const hash = /--discovery-token-ca-cert-hash (\S+)/.exec(flat)?.[1];
  expect(token && hash).toBeTruthy();
  await tsadmOk(WORKER, ['join', `${CP.ip}:6443`, '--token', token!, '--discovery-token-ca-cert-hash', hash!, '--cri-socket', CRI]);

  // The worker's kubelet asks for its serving certificate once its Node has addresses; nothing approves it yet.
  const pending = await waitFor(async () => (await csrs()).find((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving' && c.spec.username === `system:node:${WORKER.name}`), 3 * MIN, `a kubelet-serving CSR from ${WORKER.name}`);
  expect(pending.status?.conditions ?? []).toEqual([]);

  // --dry-run names it and changes nothing.
  const dry = await tsadmOk(CP, ['certs', 'approve-kubelet-serving', '--dry-run', '-o', 'json']);
  const result = JSON.parse(dry.stdout.trim().split('\n').pop()!) as { type: string; ok: boolean; data: { approved: { csr: string }[]; dryRun: boolean } };
  expect(result).toMatchObject({ type: 'result', ok: true, data: { dryRun: true } });
  expect(result.data.approved.map((r) => r.csr)).toContain(pending.metadata.name);
  expect((await csrs()).find((c) => c.metadata.name === pending.metadata.name)?.status?.conditions ?? []).toEqual([]);

  const run = await tsadmOk(CP, ['certs', 'approve-kubelet-serving']);
  expect(run.stdout).toContain(`Approving CertificateSigningRequest "${pending.metadata.name}"`);
  const issued = await waitFor(async () => (await csrs()).find((c) => c.metadata.name === pending.metadata.name && c.status?.certificate), 2 * MIN, 'the approved CSR signed by kube-controller-manager');
  expect(issued.status?.conditions?.[0]).toMatchObject({ type: 'Approved', reason: 'TsadmNodeAddressesMatch' });

  // The oracle: openssl from the host against the worker's address, trusting only the cluster CA.
  const caFile = path.join(dir, 'ca.crt');
  writeFileSync(caFile, (await machineExec(CP.name, ['cat', '/etc/kubernetes/pki/ca.crt'])).stdout);
  const served = await waitFor(() => { const s = servedCertificate(WORKER.ip, caFile); return s.verify.startsWith('0 ') ? s : undefined; }, 2 * MIN, `${WORKER.ip}:10250 serving a certificate the cluster CA verifies`);
  expect(served.verify).toBe('0 (ok)');
  expect(served.text).toContain(`IP Address:${WORKER.ip}`);
  expect(served.text).toMatch(/Subject: O ?= ?system:nodes, CN ?= ?system:node:ks2/);
  expect(served.text).toContain('TLS Web Server Authentication');

  // A CSR forged with the worker's own node credentials, asking for the control plane's IP, is denied.
  const key = path.join(dir, 'forged.key');
  execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  const pem = execFileSync('openssl', ['req', '-new', '-key', key, '-subj', `/O=system:nodes/CN=system:node:${WORKER.name}`, '-addext', `subjectAltName=DNS:${WORKER.name},IP:${CP.ip}`], { encoding: 'utf8' });
  const forged = writeSharedFile('ks2-forged-csr.json', JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'ks2-forged' },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'key encipherment', 'server auth'] },
  }));
  await machineExec(WORKER.name, ['kubectl', '--kubeconfig', '/etc/kubernetes/kubelet.conf', 'create', '-f', forged]);
  const denyRun = await tsadmOk(CP, ['certs', 'approve-kubelet-serving']);
  expect(denyRun.stdout).toContain('Denying CertificateSigningRequest "ks2-forged"');
  const denied = (await csrs()).find((c) => c.metadata.name === 'ks2-forged');
  expect(denied?.spec.username).toBe(`system:node:${WORKER.name}`);
  expect(denied?.status?.conditions?.[0]).toMatchObject({ type: 'Denied', reason: 'NameNotNodeAddress' });
  expect(denied?.status?.conditions?.[0]?.message).toContain(`IP:${CP.ip}`);
  expect(denied?.status?.certificate).toBeUndefined();
}, 15 * MIN);
