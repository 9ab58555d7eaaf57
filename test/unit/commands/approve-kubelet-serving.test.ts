import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeWithApiServer, startApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { openssl } from '../../helpers/pki-test-utils.js';
import { events, runCli } from '../../helpers/run-cli.js';

test('an --interval under one second is a usage error (exit 3), said in one line', async () => {
  const r = await runCli(['certs', 'approve-kubelet-serving', '--watch', '--interval', '500ms', '--kubeconfig', '/nonexistent/admin.conf']);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('error: --interval "500ms" is not a duration of at least 1s');
});

test('a missing kubeconfig is a one-line error naming it', async () => {
  const r = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', '/nonexistent/admin.conf']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("couldn't read the kubeconfig /nonexistent/admin.conf");
});

/** The command end to end in-process against a real kube-apiserver v1.20.2; its stored conditions are the oracle. */
describeWithApiServer('tsadm certs approve-kubelet-serving on a real API server', () => {
  let server: TestApiServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tsadm-csr-cli-'));
    server = await startApiServer();
    expect((await server.request('POST', '/api/v1/nodes', { auth: 'admin', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' } } })).status).toBe(201);
    expect((await server.request('PATCH', '/api/v1/nodes/w1/status', {
      auth: 'admin', contentType: 'application/merge-patch+json', body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.11' }] } },
    })).status).toBe(200);
    // Created by the admin in w1's name: the requester is not the node, so it must be denied.
    const key = path.join(dir, 'k.key');
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    const pem = openssl(['req', '-new', '-key', key, '-subj', '/O=system:nodes/CN=system:node:w1', '-addext', 'subjectAltName=IP:10.0.0.11']);
    const created = await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      auth: 'admin',
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'not-from-w1' }, spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] } },
    });
    expect(created.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test('-o json: a pure event stream ending in the result; the API server holds the Denied condition', async () => {
    const r = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '-o', 'json']);
    expect(r.code).toBe(0);
    const all = events(r.stdout);
    const result = all[all.length - 1];
    expect(result).toMatchObject({ type: 'result', command: 'certs approve-kubelet-serving', ok: true, data: { approved: [], denied: [{ csr: 'not-from-w1', reason: 'RequesterNotNode' }], dryRun: false } });
    expect(all).toContainEqual(expect.objectContaining({ type: 'object', action: 'updated', kind: 'CertificateSigningRequest', name: 'not-from-w1' }));
    const stored = await server.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/not-from-w1', { auth: 'admin' });
    expect((stored.body as unknown as { status: { conditions: { type: string; reason: string }[] } }).status.conditions).toMatchObject([{ type: 'Denied', reason: 'RequesterNotNode' }]);
  }, 60_000);
  test('passes take turns through the Lease kube-system/tsadm-kubelet-serving-approver: held by another control plane, nothing is decided; once free, the pass runs', async () => {
    const key = path.join(dir, 'k2.key');
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    const pem = openssl(['req', '-new', '-key', key, '-subj', '/O=system:nodes/CN=system:node:w1', '-addext', 'subjectAltName=IP:10.0.0.11']);
    expect((await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      auth: 'admin',
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'while-locked' }, spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] } },
    })).status).toBe(201);
    const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
    // The first test's pass made the Lease and released it (no holder); another control plane takes it now.
    const micro = (d: Date): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const held = await server.request('PATCH', `${leasePath}/tsadm-kubelet-serving-approver`, {
      auth: 'admin', contentType: 'application/merge-patch+json',
      body: { spec: { holderIdentity: 'other-control-plane', leaseDurationSeconds: 600, acquireTime: micro(new Date()), renewTime: micro(new Date()) } },
    });
    expect(held.status).toBe(200);
    const conditions = async (): Promise<unknown> => ((await server.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/while-locked', { auth: 'admin' })).body as unknown as { status?: { conditions?: unknown } }).status?.conditions;

    const locked = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '-o', 'json']);
    expect(locked.code).toBe(0);
    const lockedResult = events(locked.stdout).at(-1);
    expect(lockedResult).toMatchObject({ type: 'result', ok: true, data: { ran: false, approved: [], denied: [] } });
    expect(await conditions()).toBeUndefined();

    expect((await server.request('DELETE', `${leasePath}/tsadm-kubelet-serving-approver`, { auth: 'admin' })).status).toBe(200);
    const free = await runCli(['certs', 'approve-kubelet-serving', '--kubeconfig', server.adminKubeconfigPath, '-o', 'json']);
    expect(free.code).toBe(0);
    expect(events(free.stdout).at(-1)).toMatchObject({ type: 'result', ok: true, data: { ran: true, denied: [{ csr: 'while-locked', reason: 'RequesterNotNode' }] } });
    expect(await conditions()).toMatchObject([{ type: 'Denied', reason: 'RequesterNotNode' }]);
  }, 60_000);
});
